"""The match layer without a server: open, act, seal, decks, reveals and the bots' turn.

Every call here is a plain function call on :class:`Matches`; no channel, no servicer.
"""

from __future__ import annotations

import asyncio

import pytest

from baloot_engine.api.matches import Acted, Matches, Opened, last_reveal, round_end_index
from baloot_engine.api.refusals import (
    CREDENTIAL_INVALID,
    PRESET_DECK_DISABLED,
    REQUEST_INVALID,
    STALE_STATE,
    STATE_INVALID,
    ApiError,
)
from baloot_engine.api.sealing import HOST_ROLE, SPECTATOR_ROLE, KeyRing, seat_role
from baloot_engine.api.state_codec import DEALING_AT_MATCH_END, TokenFields, decode, encode
from baloot_engine.rules import fairdeal, game
from baloot_engine.rules.actions import Bid, BidKind, Deal, EventKind, Play
from baloot_engine.rules.dealing import board_deck, deck_from_seed
from baloot_engine.rules.errors import NOT_YOUR_TURN, RuleError
from baloot_engine.rules.ruleset import SEEDS
from baloot_engine.rules.state import Phase
from baloot_engine.telemetry.metrics import Metrics

KEYS = KeyRing([bytes(range(32))])


def _matches(*, allow_preset_deck: bool = True) -> Matches:
    return Matches(KEYS, Metrics(), allow_preset_deck=allow_preset_deck)


def _host(matches: Matches, token: bytes, match_id: str) -> Opened:
    return matches.open(token, match_id, KEYS.credential(bytes.fromhex(match_id), HOST_ROLE))


def test_a_new_match_opens_with_each_role() -> None:
    matches = _matches()
    created = matches.create(SEEDS, 2, (0, 0))
    key = bytes.fromhex(created.match_id)
    assert created.state.phase is Phase.AWAITING_DEAL
    assert created.host_credential == KEYS.credential(key, HOST_ROLE)
    for seat, credential in enumerate(created.seat_credentials):
        opened = matches.open(created.token, created.match_id, credential)
        assert opened.role == seat_role(seat)
        assert opened.visible_seats() == (seat,)
        assert opened.may_act_for(seat)
        assert not opened.may_act_for((seat + 1) & 3)
    spectator = matches.open(created.token, created.match_id, created.spectator_credential)
    assert spectator.role == SPECTATOR_ROLE
    assert spectator.visible_seats() == ()
    host = _host(matches, created.token, created.match_id)
    assert host.visible_seats() == (0, 1, 2, 3)
    assert (host.version, host.state) == (0, created.state)


def test_opening_refuses_a_bad_id_credential_or_token() -> None:
    matches = _matches()
    created = matches.create(SEEDS, 0, (0, 0))
    with pytest.raises(ApiError) as bad_id:
        matches.open(created.token, "not hex", created.host_credential)
    assert bad_id.value.reason == REQUEST_INVALID
    with pytest.raises(ApiError) as bad_credential:
        matches.open(created.token, created.match_id, "x" * 20)
    assert bad_credential.value.reason == CREDENTIAL_INVALID
    with pytest.raises(ApiError) as bad_token:
        matches.open(created.token[:-1], created.match_id, created.host_credential)
    assert bad_token.value.reason == STATE_INVALID


def test_a_deal_applies_and_seals_the_next_state() -> None:
    matches = _matches()
    created = matches.create(SEEDS, 1, (0, 0))
    opened = _host(matches, created.token, created.match_id)
    assert matches.bot_turn(opened, 1)  # between rounds: the dealer deals
    deck = matches.next_deck(opened)
    # The committed deck of round 1, no redeal (docs/fair-deals.md), opened by key[1].
    key = fairdeal.round_key(fairdeal.dealing_secret(opened.seed), 1)
    assert deck == fairdeal.committed_deck(key, 0)
    assert fairdeal.key_matches(key, 1, created.commitment)
    acted = asyncio.run(matches.act(opened, 1, 0, lambda _: Deal(deck)))
    assert acted.version == 1
    assert acted.state.phase is Phase.BIDDING
    assert [e.kind for e in acted.events] == [EventKind.CARDS_DEALT]
    assert acted.reveal is None
    reopened = _host(matches, acted.token, created.match_id)
    assert (reopened.version, reopened.state) == (1, acted.state)
    # A committed deck derives from the round and its redeals: the token keeps it.
    assert reopened.decoded.fields.kept_deck(1) == deck
    assert reopened.decoded.fields.dealing == DEALING_AT_MATCH_END


def test_a_match_begun_before_commitments_keeps_its_own_shuffle() -> None:
    matches = _matches()
    match_key = bytes(range(16))
    plaintext = encode(game.new_match(SEEDS, 1), bytes(16), 0)
    opened = _host(matches, KEYS.seal(plaintext, match_key), match_key.hex())
    assert not opened.decoded.fields.committed
    deck = matches.next_deck(opened)
    assert deck == deck_from_seed(bytes(16), 1)
    acted = asyncio.run(matches.act(opened, 1, 0, lambda _: Deal(deck)))
    # Its own deck is not kept in the token: it is derived from the seed.
    assert _host(matches, acted.token, match_key.hex()).decoded.fields.round_deck == b""


def test_acting_checks_the_seat_and_the_version_before_the_action() -> None:
    matches = _matches()
    created = matches.create(SEEDS, 0, (0, 0))
    seat_one = matches.open(created.token, created.match_id, created.seat_credentials[1])

    def never(_: Opened) -> Deal:
        raise AssertionError("the action is read only after the checks")

    with pytest.raises(ApiError) as other_seat:
        asyncio.run(matches.act(seat_one, 0, None, never))
    assert other_seat.value.reason == CREDENTIAL_INVALID
    host = _host(matches, created.token, created.match_id)
    with pytest.raises(ApiError) as stale:
        asyncio.run(matches.act(host, 0, 7, never))
    assert (stale.value.reason, stale.value.metadata) == (STALE_STATE, {"state_version": "0"})
    with pytest.raises(RuleError) as not_dealer:
        asyncio.run(matches.act(host, 1, None, lambda o: Deal(matches.next_deck(o))))
    assert not_dealer.value.reason == NOT_YOUR_TURN


def test_a_preset_deck_is_kept_in_the_token_and_refused_in_a_board_set() -> None:
    matches = _matches()
    created = matches.create(SEEDS, 0, (0, 0))
    opened = _host(matches, created.token, created.match_id)
    deck = tuple(range(32))
    matches.check_preset_allowed(opened)
    acted = asyncio.run(matches.act(opened, 0, None, lambda _: Deal(deck)))
    after = _host(matches, acted.token, created.match_id)
    assert after.decoded.fields.kept_deck(1) == deck
    assert matches.round_deck(after, 1) == deck
    board = matches.create(SEEDS, 0, (0, 0), board_set="final", board_secret="s" * 22)
    in_board = _host(matches, board.token, board.match_id)
    assert in_board.decoded.fields.board_set == "final"
    with pytest.raises(ApiError) as refused:
        matches.check_preset_allowed(in_board)
    assert refused.value.reason == PRESET_DECK_DISABLED
    with pytest.raises(ApiError) as off:
        _matches(allow_preset_deck=False).check_preset_allowed()
    assert off.value.reason == PRESET_DECK_DISABLED


def test_a_board_set_deals_from_its_name_and_secret_and_old_matches_keep_their_boards() -> None:
    matches = _matches()
    decks = {}
    for name, secret in (("final", "a" * 22), ("final", "b" * 22), ("semi", "a" * 22)):
        created = matches.create(SEEDS, 0, (0, 0), board_set=name, board_secret=secret)
        decks[name, secret] = matches.next_deck(_host(matches, created.token, created.match_id))
    again = matches.create(SEEDS, 0, (0, 0), board_set="final", board_secret="a" * 22)
    assert (
        matches.next_deck(_host(matches, again.token, again.match_id)) == decks["final", "a" * 22]
    )
    assert len(set(decks.values())) == 3
    # A match created before board sets had secrets (no seed in its token) keeps its boards.
    match_key = bytes(range(16))
    plaintext = encode(game.new_match(SEEDS, 0), bytes(16), 0, fields=TokenFields(board_set="old"))
    opened = _host(matches, KEYS.seal(plaintext, match_key), match_key.hex())
    assert matches.next_deck(opened) == board_deck(KEYS.board_key(), "old", 1, 0)


def _step(matches: Matches, opened: Opened) -> Acted:
    """The host acts for the seat the match waits for: the deal, or its first legal action."""
    state = opened.state
    if state.phase in game.BETWEEN_ROUNDS:
        return asyncio.run(
            matches.act(opened, state.dealer, None, lambda o: Deal(matches.next_deck(o)))
        )
    legal = game.legal_actions(state, state.turn)
    # A Sun bid when there is one, so the round is played rather than redealt.
    action = next((a for a in legal if isinstance(a, Bid) and a.kind is BidKind.SUN), legal[0])
    return asyncio.run(matches.act(opened, state.turn, None, lambda _: action))


def test_a_round_played_out_is_revealed_to_the_host_and_counted_in_the_token() -> None:
    matches = _matches()
    created = matches.create(SEEDS, 0, (0, 0))
    opened = _host(matches, created.token, created.match_id)
    deck = matches.next_deck(opened)
    acted = _step(matches, opened)
    for _ in range(100):
        if acted.reveal is not None:
            break
        acted = _step(matches, _host(matches, acted.token, created.match_id))
    assert acted.reveal is not None
    end = round_end_index(acted.events)
    assert end == acted.reveal_at >= 0
    assert acted.reveal.deck == deck
    assert acted.reveal.round.hand_number == 1
    assert not acted.reveal.in_views  # SEEDS does not reveal the hands to every seat
    fields = decode(_plaintext(acted.token, created.match_id)).fields
    if acted.events[end].kind is EventKind.ROUND_SCORED:
        assert (fields.rounds_scored, fields.scored_at_hand) == (1, acted.state.hand_number)
    assert last_reveal(acted.state, deck) is None


def test_the_bot_turn_is_the_hosts_and_the_seat_on_turn() -> None:
    matches = _matches()
    created = matches.create(SEEDS, 3, (0, 0))
    seat = matches.open(created.token, created.match_id, created.seat_credentials[3])
    with pytest.raises(ApiError) as not_host:
        matches.bot_turn(seat, 3)
    assert not_host.value.reason == CREDENTIAL_INVALID
    host = _host(matches, created.token, created.match_id)
    with pytest.raises(RuleError) as wrong_seat:
        matches.bot_turn(host, 0)
    assert (wrong_seat.value.reason, wrong_seat.value.details) == (NOT_YOUR_TURN, {"turn": "3"})
    # The bots' seed is derived from the match seed and the version, unless one is given.
    assert matches.bot_seed(host) == matches.bot_seed(host)
    assert matches.bot_seed(host, 5) == 5


def test_a_played_card_goes_through_the_match_layer() -> None:
    matches = _matches()
    created = matches.create(SEEDS, 0, (0, 0))
    acted = _step(matches, _host(matches, created.token, created.match_id))
    for _ in range(100):
        if acted.state.phase is Phase.PLAYING:
            break
        acted = _step(matches, _host(matches, acted.token, created.match_id))
    opened = _host(matches, acted.token, created.match_id)
    seat = opened.state.turn
    play = next(a for a in game.legal_actions(opened.state, seat) if isinstance(a, Play))
    played = asyncio.run(matches.act(opened, seat, opened.version, lambda _: play))
    assert played.events[0].kind is EventKind.CARD_PLAYED
    assert played.events[0].card == play.card


def _plaintext(token: bytes, match_id: str) -> bytes:
    return KEYS.open(token, bytes.fromhex(match_id))
