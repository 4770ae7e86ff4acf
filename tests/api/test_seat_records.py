"""Records of matches in which every player acts with his own seat credential (issue 55).

The response that ends a round carries the round's reveal to the host credential only; when a
seat's own action ends it (its last card, a Sawa claim, a Qayd call, the bid that made everyone
pass) the host's GetView carries it (``round_reveal``) until the next deal, and the clients
complete their record from it. Whole matches played that way, table play with Qayd calls and
Sawa claims included, give records that VerifyRecord finds valid, complete and with every deal
proven; nothing of the reveal reaches a seat or a spectator before the rules allow.
"""

from __future__ import annotations

import dataclasses
import functools
import random
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from baloot_client import EngineClient, IllegalActionError, Match

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import rules_pb2, types_pb2
from baloot_engine.rules import Bid, BidKind, Deal, game
from baloot_engine.rules.ruleset import SEEDS, Kawesh
from tests.api.conftest import BETWEEN, PASS

SCORED = types_pb2.EVENT_KIND_ROUND_SCORED
REDEAL = types_pb2.EVENT_KIND_REDEAL
REVEALED = types_pb2.EVENT_KIND_ROUND_REVEALED
JUDGED = types_pb2.EVENT_KIND_QAYD_JUDGED
REVIEW = types_pb2.PHASE_ROUND_REVIEW
OVER = types_pb2.PHASE_MATCH_OVER
EACH_ROUND = types_pb2.DEAL_DISCLOSURE_EACH_ROUND
KAWESH = types_pb2.BID_KIND_KAWESH

# Sawa claims and Kawesh redeals (the dealer keeps the deal after a Kawesh before anybody
# bought), outside table play.
CLAIMS = rules_pb2.RuleSet(
    preset=rules_pb2.PRESET_SEEDS,
    sawa=True,
    kawesh=rules_pb2.KAWESH_NO_COURT_CARDS,
    kawesh_keeps_dealer=True,
    match_target=80,
)
# Table play: any card held is accepted, the other team calls Qayd; Sawa claims too.
TABLE = rules_pb2.RuleSet(
    preset=rules_pb2.PRESET_KAMMELNA, illegal_moves_allowed=True, sawa=True, match_target=80
)
# Every credential gets the reveal, but in a board-set match the key stays the host's.
SHOWN = rules_pb2.RuleSet(
    preset=rules_pb2.PRESET_KAMMELNA, reveal_hands_after_round=True, sawa=True, match_target=80
)


class SeatPlayers:
    """Plays a match as four players would, each sending his own actions with his own
    credential; the host credential only closes a table-play review. Counts how rounds end."""

    def __init__(
        self,
        client: EngineClient,
        match: Match,
        rng: random.Random,
        *,
        qayd_share: float = 0.0,
        flag: bool = False,
    ) -> None:
        self.client = client
        self.match = match
        self.rng = rng
        self.qayd_share = qayd_share
        self.flag = flag  # reveal_hands_after_round
        self.ends: Counter[str] = Counter()
        self.view = match.views[0]  # phase, dealer and turn are in every view
        self.dealer_before = self.view.dealer  # the dealer of the round in play

    def credential(self, seat: int) -> str:
        return self.match.seat_credentials[seat]

    def seat_view(self, seat: int) -> types_pb2.View:
        return self.match.view(seat, credential=self.credential(seat))

    def play(self, max_steps: int = 4000) -> None:
        for _ in range(max_steps):
            if self.view.phase == OVER:
                return
            self.step()
        raise AssertionError("the match does not end")

    def step(self) -> None:
        view = self.view
        if view.phase == REVIEW:
            if self.rng.random() < self.qayd_share and self.call_qayd(view.last_trick):
                return
            self.take(self.match.close_review(), "close")
            return
        if view.phase in BETWEEN:
            seat = self.dealer_before = view.dealer
            self.take(self.match.deal(seat, credential=self.credential(seat)), "deal")
            return
        seat = view.turn
        if (
            view.phase == types_pb2.PHASE_PLAYING
            and self.rng.random() < self.qayd_share / 30
            and self.call_qayd(view.current_trick if view.current_trick.cards else view.last_trick)
        ):
            return
        seen = self.seat_view(seat)
        options = list(seen.legal_actions)
        if len(seen.hand) > 3:  # a claim with many cards left costs VerifyRecord a long search
            options = [a for a in options if not (a.HasField("play") and a.play.sawa)]
        while True:
            action = self.choose(options)
            before = self.twin()
            try:
                events = self.match.act(seat, action, credential=self.credential(seat))
            except IllegalActionError as error:
                assert action.HasField("play"), error
                assert action.play.sawa, error
                options.remove(action)
                continue
            kind = "sawa" if action.HasField("play") and action.play.sawa else "seat"
            self.take(events, kind, functools.partial(before.act, seat, action), seat)
            return

    def choose(self, options: list[types_pb2.Action]) -> types_pb2.Action:
        kawesh = [a for a in options if a.HasField("bid") and a.bid.kind == KAWESH]
        if kawesh and self.rng.random() < 0.5:
            return kawesh[0]
        passes = [a for a in options if a.HasField("bid") and a.bid.kind == PASS]
        if passes and self.rng.random() < 0.8:
            return passes[0]
        claims = [a for a in options if a.HasField("play") and a.play.sawa]
        if claims and self.rng.random() < 0.5:
            return claims[0]
        return self.rng.choice(options)

    def call_qayd(self, trick: types_pb2.Trick) -> bool:
        """A seat of the other team calls Qayd on a card of ``trick``; False when refused."""
        if not trick.cards:
            return False
        played = self.rng.choice(list(trick.cards))
        caller = (played.seat + self.rng.choice((1, 3))) % 4
        call = types_pb2.QaydCall(accused=played.seat, trick=trick.number, card=played.card)
        before = self.twin()
        try:
            events = self.match.call_qayd(caller, call, credential=self.credential(caller))
        except IllegalActionError:
            return False
        self.take(events, "qayd", functools.partial(before.call_qayd, caller, call), caller)
        return True

    def twin(self) -> Match:
        """The match as it is now, without a record: the same action sent on it again with
        the host credential gives the response the host would have had."""
        return dataclasses.replace(self.match, recorder=None)

    def take(
        self,
        events: Any,
        kind: str,
        as_host: Callable[[], Any] | None = None,
        seat: int | None = None,
    ) -> None:
        kinds = [e.kind for e in events]
        self.view = self.match.views[0]
        if SCORED not in kinds and REDEAL not in kinds:
            return
        self.ends["redeal" if REDEAL in kinds else kind] += 1
        if as_host is None or seat is None:
            return
        # Ended by a seat's own credential: his response has the reveal only under the flag.
        assert (REVEALED in kinds) == self.flag
        self.check_reveals(as_host(), seat, kinds)

    def check_reveals(self, host_events: Any, seat: int, kinds: list[int]) -> None:
        """The host's GetView shows the reveal the host's own response would have carried; the
        seat and the spectator see it only as the rules allow."""
        match = self.match
        common = {"state": match.state, "match_id": match.match_id}
        [expected] = [e.reveal for e in host_events if e.kind == REVEALED]
        host = self.client.call(
            self.client.stub.GetView,
            pb.GetViewRequest(credential=match.host_credential, **common),
        )
        assert host.round_reveal == expected
        if REDEAL in kinds:
            assert host.round_reveal.dealer == self.dealer_before
        in_views = self.flag and SCORED in kinds
        assert host.view.HasField("last_round_reveal") == in_views
        for credential, asked in (
            (match.seat_credentials[seat], seat),
            (match.seat_credentials[(seat + 1) % 4], (seat + 1) % 4),
            (match.spectator_credential, None),
        ):
            request = pb.GetViewRequest(credential=credential, **common)
            if asked is not None:
                request.seat = asked
            shown = self.client.call(self.client.stub.GetView, request)
            assert not shown.HasField("round_reveal")
            assert shown.view.HasField("last_round_reveal") == in_views
            if in_views:
                reveal = shown.view.last_round_reveal
                assert list(reveal.deck_order) == list(expected.deck_order)
                board_set = bool(match.record.board_set)
                assert reveal.HasField("deal_key") == (
                    expected.HasField("deal_key") and not board_set
                )


def _verified(client: EngineClient, match: Match) -> pb.VerifyRecordResponse:
    record = match.record
    assert all(len(r.deck_order) == 32 for r in record.rounds)
    verified = client.verify_record(record)
    assert verified.valid, verified.divergence
    assert verified.complete
    assert verified.deals_proven
    assert verified.rounds_proven == len(record.rounds)
    # The server that dealt it attested the commitment the record carries.
    assert verified.commitment_status == pb.COMMITMENT_STATUS_ATTESTED, verified.commitment_note
    return verified


def _played_until(
    client: EngineClient,
    rules: rules_pb2.RuleSet,
    kinds: tuple[str, ...],
    *,
    seed: int = 0,
    qayd_share: float = 0.0,
    **options: Any,
) -> Counter[str]:
    """Play whole matches with seat credentials, each record verified, until every kind of
    round ending in ``kinds`` was seen (two matches at least, eight at most)."""
    ends: Counter[str] = Counter()
    for number in range(8):
        match = client.create_match(rules, first_dealer=number % 4, **options)
        players = SeatPlayers(client, match, random.Random(seed + number), qayd_share=qayd_share)
        players.play()
        _verified(client, match)
        ends += players.ends
        if number >= 1 and min(ends[kind] for kind in kinds) > 0:
            break
    return ends


@pytest.mark.parametrize("disclosure", [types_pb2.DEAL_DISCLOSURE_AT_MATCH_END, EACH_ROUND])
def test_whole_matches_acted_with_seat_credentials_give_proven_records(
    attested_client: EngineClient, disclosure: int
) -> None:
    client = attested_client
    # Rounds ended by a seat's last card, by its Sawa claim, and by redeals (Kawesh included):
    # the decks are the server's, so matches are played until each ending has been seen.
    kinds = ("seat", "sawa", "redeal")
    ends = _played_until(client, CLAIMS, kinds, deal_disclosure=disclosure)
    assert min(ends[kind] for kind in kinds) > 0, ends


def test_table_play_with_qayd_calls_and_sawa_claims_acted_with_seat_credentials(
    attested_client: EngineClient,
) -> None:
    kinds = ("qayd", "close")  # the last card opens a review: the host closes it
    ends = _played_until(attested_client, TABLE, kinds, seed=100, qayd_share=0.5)
    assert min(ends[kind] for kind in kinds) > 0, ends


def test_under_the_reveal_flag_a_board_set_s_key_reaches_the_record_from_the_host_only(
    attested_client: EngineClient,
) -> None:
    client = attested_client
    first = client.create_match(
        SHOWN, first_dealer=0, board_set="issue-55", deal_disclosure=EACH_ROUND
    )
    players = SeatPlayers(client, first, random.Random(7), flag=True)
    players.play()
    verified = _verified(client, first)
    assert verified.rounds_proven == len(first.record.rounds)


def test_a_kawesh_that_keeps_the_dealer_shows_him_as_the_redealt_round_s_dealer(
    client: EngineClient,
) -> None:
    # A deck on which the first seat to speak may call Kawesh, found with the rules core.
    core_rules = SEEDS.replace(kawesh=Kawesh.NO_COURT_CARDS, kawesh_keeps_dealer=True)
    rng = random.Random(55)
    while True:
        deck = tuple(rng.sample(range(32), 32))
        dealt, _ = game.apply(game.new_match(core_rules, 3), 3, Deal(deck))
        if Bid(BidKind.KAWESH) in game.legal_actions(dealt, dealt.turn):
            break
    match = client.create_match(CLAIMS, first_dealer=3)
    match.deal(3, deck, credential=match.seat_credentials[3])
    seat = match.views[0].turn
    before = dataclasses.replace(match, recorder=None)
    kawesh = types_pb2.Action(bid=types_pb2.Bid(kind=KAWESH))
    events = match.act(seat, kawesh, credential=match.seat_credentials[seat])
    [redeal] = [e for e in events if e.kind == REDEAL]
    assert redeal.redeal.next_dealer == 3  # the dealer keeps the deal
    assert REVEALED not in [e.kind for e in events]
    [host_reveal] = [e.reveal for e in before.act(seat, kawesh) if e.kind == REVEALED]
    request = pb.GetViewRequest(
        state=match.state, match_id=match.match_id, credential=match.host_credential
    )
    shown = client.call(client.stub.GetView, request).round_reveal
    assert shown == host_reveal
    assert (shown.dealer, tuple(shown.deck_order)) == (3, deck)
    assert match.record.rounds[0].deck_order == list(deck)
    # The next deal hides it again.
    match.deal(3, credential=match.seat_credentials[3])
    request.state = match.state
    assert not client.call(client.stub.GetView, request).HasField("round_reveal")
