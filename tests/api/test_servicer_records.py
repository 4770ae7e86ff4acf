"""Match records over a real channel: the reveal, records built by the client, VerifyRecord,
ReplayRecord, board sets, the spectator credential and ApplyBotAction."""

from __future__ import annotations

import random
import threading
from collections.abc import Callable
from typing import Any

import grpc
import pytest
from baloot_client import EngineClient, EngineError, Match
from baloot_client.records import (
    from_bytes,
    from_json,
    read_record,
    to_bytes,
    to_json,
    write_record,
)

from baloot.v1 import engine_service_pb2 as pb
from baloot.v1 import records_pb2, rules_pb2, types_pb2
from tests.api.conftest import KEY_A, expect_refusal, open_token
from tests.server.conftest import InProcessServer

OK = grpc.StatusCode
REVEALED = types_pb2.EVENT_KIND_ROUND_REVEALED
SCORED = types_pb2.EVENT_KIND_ROUND_SCORED
BETWEEN = (types_pb2.PHASE_AWAITING_DEAL, types_pb2.PHASE_ROUND_OVER)

RULE_SETS = {
    "seeds": rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS),
    "kammelna": rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA),
    "seeds-sawa-short": rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_SEEDS, sawa=True, match_target=60
    ),
    "kammelna-auto-declare": rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_KAMMELNA, auto_declare_projects=True, match_target=80
    ),
    "seeds-table": rules_pb2.RuleSet(
        preset=rules_pb2.PRESET_SEEDS, illegal_moves_allowed=True, sawa=True, match_target=80
    ),
}
TABLE_PRESETS = {
    "seeds": rules_pb2.PRESET_SEEDS,
    "kammelna": rules_pb2.PRESET_KAMMELNA,
    "federation": rules_pb2.PRESET_FEDERATION,
}
REVIEW = types_pb2.PHASE_ROUND_REVIEW


CLAIM_CARDS = 4
"""Sawa claims are made with at most this many cards in hand, as players make them: a record
whose claims (false ones in table play) need more search than ``MAX_SAWA_POSITIONS`` is refused
(docs/records.md), which a claim at the first lead can."""


def random_action(view: types_pb2.View, rng: random.Random) -> types_pb2.Action:
    """Any legal action (declarations, doubling and Sawa claims included, a claim with at most
    ``CLAIM_CARDS`` cards in hand), by the seat's view; a Gahwa (which ends the match at once)
    only now and then, so matches last a few rounds."""
    actions = list(view.legal_actions)
    if len(view.hand) > CLAIM_CARDS:
        actions = [a for a in actions if not (a.HasField("play") and a.play.sawa)] or actions
    if rng.random() < 0.9:
        tame = [a for a in actions if a.doubling.call != types_pb2.DOUBLING_CALL_GAHWA]
        actions = tame or actions
    return rng.choice(actions)


class TablePlay:
    """Random table play (``illegal_moves_allowed``): now and then the seat on turn plays any
    card it holds, a seat calls Qayd on a card the other team played this round, and in the
    review the host closes it (or a seat calls Qayd first)."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.played: list[tuple[int, int, int]] = []  # this round's (seat, trick, card)
        self.closes = 0
        self.calls = 0

    def seen(self, events: Any) -> None:
        for event in events:
            if event.kind == types_pb2.EVENT_KIND_CARDS_DEALT:
                self.played = []
            elif event.kind == types_pb2.EVENT_KIND_CARD_PLAYED:
                trick = len(self.played) // 4 + 1
                self.played.append((event.seat, trick, event.play.card))

    def step(self, match: Match) -> list[Any] | None:
        """A table-play step, applied; None to take an ordinary legal action."""
        rng, phase = self.rng, match.views[0].phase
        if phase == REVIEW or (phase == types_pb2.PHASE_PLAYING and rng.random() < 0.04):
            if self.played and rng.random() < 0.3:
                accused, trick, card = rng.choice(self.played)
                call = types_pb2.QaydCall(accused=accused, trick=trick, card=card)
                try:
                    events = list(match.call_qayd((accused + rng.choice((1, 3))) & 3, call))
                except EngineError:
                    pass
                else:
                    self.calls += 1
                    return events
            if phase == REVIEW:
                self.closes += 1
                return list(match.close_review())
        if phase == types_pb2.PHASE_PLAYING and rng.random() < 0.15:
            seat = match.views[0].turn
            card = rng.choice(list(match.views[seat].hand))
            return list(match.play(seat, types_pb2.CardPlay(card=card)))
        return None


def play_out(
    match: Match,
    rng: random.Random,
    *,
    max_steps: int = 5000,
    table: TablePlay | None = None,
    views: list[list[types_pb2.View]] | None = None,
) -> list[Any]:
    """Play a match to its end with random legal actions (and random table play under
    ``illegal_moves_allowed``); return every response's events (and add the views after each
    response to ``views``)."""
    responses: list[Any] = []
    if table is None and match.record.rules.illegal_moves_allowed:
        table = TablePlay(rng)
    for _ in range(max_steps):
        view = match.views[0]
        if view.phase == types_pb2.PHASE_MATCH_OVER:
            return responses
        events = table.step(match) if table is not None else None
        if events is None:
            seat = view.dealer if view.phase in BETWEEN else view.turn
            action = random_action(match.views[seat], rng)
            try:
                events = list(match.act(seat, action))
            except EngineError as error:
                assert error.reason == "SAWA_INVALID", error  # a claim is offered, then checked
                continue
        if table is not None:
            table.seen(events)
        responses.append(events)
        if views is not None:
            views.append(list(match.views))
    raise AssertionError("the match did not end")


def verify(client: EngineClient, record: records_pb2.MatchRecord) -> pb.VerifyRecordResponse:
    return client.verify_record(record)


@pytest.fixture(scope="module")
def played(client: EngineClient) -> dict[str, Match]:
    """One complete match per rule set, played by random seats through the host."""
    matches = {}
    for number, (name, rules) in enumerate(RULE_SETS.items()):
        match = client.create_match(rules, first_dealer=number % 4)
        play_out(match, random.Random(number))
        matches[name] = match
    return matches


# ---------------------------------------------------------------------------------------
# The deal as a legal action


def test_the_dealer_alone_lists_the_deal(client: EngineClient) -> None:
    match = client.create_match(first_dealer=2)
    for seat, view in enumerate(match.views):
        kinds = [a.WhichOneof("action") for a in view.legal_actions]
        assert kinds == (["deal"] if seat == 2 else [])
    listed = client.call(
        client.stub.ListLegalActions,
        pb.ListLegalActionsRequest(
            state=match.state, match_id=match.match_id, credential=match.host_credential, seat=2
        ),
    )
    assert [a.WhichOneof("action") for a in listed.actions] == ["deal"]
    events = match.act(2, match.views[2].legal_actions[0])
    assert events[0].kind == types_pb2.EVENT_KIND_CARDS_DEALT
    assert all(not a.HasField("deal") for v in match.views for a in v.legal_actions)


# ---------------------------------------------------------------------------------------
# The reveal


def test_the_host_alone_gets_the_reveal_after_the_round_is_scored(
    client: EngineClient, played: dict[str, Match]
) -> None:
    match = played["seeds"]
    record = match.record
    for recorded in record.rounds:
        assert sorted(recorded.deck_order) == list(range(32))
    # Every scored round's reveal holds each seat's eight cards, as the tricks show them.
    replayed = client.replay_record(record, 0)
    assert not any(v.HasField("last_round_reveal") for v in replayed.views)


def test_the_reveal_reaches_only_the_host_and_only_after_the_round(
    client: EngineClient,
) -> None:
    rng = random.Random(7)
    match = client.create_match(first_dealer=0)
    seat_events: list[types_pb2.Event] = []
    host_reveals: list[types_pb2.Event] = []
    while len(host_reveals) < 3:
        if match.views[0].phase == types_pb2.PHASE_MATCH_OVER:
            match = client.create_match(first_dealer=0)
        view = match.views[0]
        seat = view.dealer if view.phase in BETWEEN else view.turn
        action = random_action(match.views[seat], rng)
        # Half the actions with the seat's own credential: it never gets the reveal.
        own = rng.random() < 0.5
        credential = match.seat_credentials[seat] if own else None
        try:
            events = list(match.act(seat, action, credential))
        except EngineError as error:
            assert error.reason == "SAWA_INVALID"
            continue
        if own:
            seat_events.extend(events)
            # A seat credential's response carries only that seat's view.
            match.views = [match.view(s) for s in range(4)]
        else:
            reveals = [e for e in events if e.kind == REVEALED]
            ended = any(e.kind in (SCORED, types_pb2.EVENT_KIND_REDEAL) for e in events)
            assert len(reveals) == (1 if ended else 0)
            host_reveals.extend(reveals)
        for v in match.views:
            assert not v.HasField("last_round_reveal")
    assert host_reveals
    assert all(e.kind != REVEALED for e in seat_events)
    for reveal in host_reveals:
        assert sorted(reveal.reveal.deck_order) == list(range(32))


def test_under_the_flag_every_view_shows_the_finished_round(client: EngineClient) -> None:
    rules = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, reveal_hands_after_round=True)
    match = client.create_match(rules, first_dealer=1)
    rng = random.Random(3)
    hands_seen: dict[int, list[int]] = {}
    while True:
        view = match.views[0]
        seat = view.dealer if view.phase in BETWEEN else view.turn
        action = random_action(match.views[seat], rng)
        if action.HasField("play") and action.play.sawa:
            continue
        first_lead = not view.HasField("last_trick") and not view.current_trick.cards
        if view.phase == types_pb2.PHASE_PLAYING and first_lead:
            hands_seen = {s: list(match.views[s].hand) for s in range(4)}
        # Every action with the acting seat's own credential.
        events = list(match.act(seat, action, match.seat_credentials[seat]))
        match.views = [match.view(s) for s in range(4)]
        if any(e.kind == SCORED for e in events):
            break
        redealt = any(e.kind == types_pb2.EVENT_KIND_REDEAL for e in events)
        assert [e.kind for e in events].count(REVEALED) == (1 if redealt else 0)
        assert not any(v.HasField("last_round_reveal") for v in match.views)
        assert not match.view(credential=match.spectator_credential).HasField("last_round_reveal")
    reveals = [e for e in events if e.kind == REVEALED]
    assert len(reveals) == 1  # a seat credential gets it under the flag
    deck = list(reveals[0].reveal.deck_order)
    assert sorted(deck) == list(range(32))
    spectator = match.view(credential=match.spectator_credential)
    assert list(spectator.last_round_reveal.deck_order) == deck
    for s in range(4):
        shown = match.view(s, credential=match.seat_credentials[s]).last_round_reveal
        assert list(shown.deck_order) == deck
        assert list(shown.hands[s].cards) == sorted(hands_seen[s])
    # The next deal hides it again.
    if match.views[0].phase != types_pb2.PHASE_MATCH_OVER:
        match.act(match.views[0].dealer, types_pb2.Action(deal=types_pb2.DealAction()))
        assert not match.view(credential=match.spectator_credential).HasField("last_round_reveal")


# ---------------------------------------------------------------------------------------
# Records: built by the client, verified, replayed


@pytest.mark.parametrize("name", list(RULE_SETS))
def test_the_record_of_a_random_match_verifies(
    client: EngineClient, played: dict[str, Match], name: str
) -> None:
    match = played[name]
    record = match.record
    verified = verify(client, record)
    assert verified.valid, verified.divergence
    assert verified.actions_replayed == match.version
    assert verified.match == match.views[0].match_score
    assert list(verified.sheet) == [r.score for r in record.rounds if r.HasField("score")]
    final = client.replay_record(record, verified.actions_replayed)
    assert list(final.views) == match.views


def test_a_record_round_trips_as_json_and_binary(
    client: EngineClient, played: dict[str, Match], tmp_path: Any
) -> None:
    record = played["kammelna"].record
    assert from_json(to_json(record)) == record
    assert from_bytes(to_bytes(record)) == record
    for name in ("match.json", "match.pb"):
        write_record(tmp_path / name, record)
        assert read_record(tmp_path / name) == record
    assert verify(client, from_json(to_json(record))).valid


def _actions(record: records_pb2.MatchRecord) -> list[tuple[int, int]]:
    return [(r, i) for r, rnd in enumerate(record.rounds) for i in range(len(rnd.actions))]


def _divergence(client: EngineClient, record: records_pb2.MatchRecord) -> tuple[int, int, str]:
    verified = verify(client, record)
    assert not verified.valid
    d = verified.divergence
    return d.round_index, d.action_index, d.reason


def test_a_changed_action_is_the_exact_first_divergence(
    client: EngineClient, played: dict[str, Match]
) -> None:
    record = played["seeds"].record
    rng = random.Random(11)
    positions = _actions(record)
    step_of = {p: n for n, p in enumerate(positions)}
    for r, i in rng.sample(positions, 25):
        # The legal actions of the acting seat before that action, from the replay.
        before = client.replay_record(record, step_of[(r, i)])
        entry = record.rounds[r].actions[i]
        legal = list(before.views[entry.seat].legal_actions)
        changed = records_pb2.MatchRecord()
        changed.CopyFrom(record)
        target = changed.rounds[r].actions[i]
        # Another seat acts: it is not its turn (or not its deal). A declaration is left out:
        # in the first trick any seat may declare before its turn, so another seat's
        # declaration can be refused for its own reasons (DECLARATION_CLOSED) or even accepted.
        if not entry.action.HasField("declaration") and rng.random() < 0.5:
            target.seat = (entry.seat + rng.randrange(1, 4)) % 4
            expected: tuple[str, ...] = ("NOT_YOUR_TURN",)
        # An action of another kind, or a card the seat may not play.
        elif entry.action.HasField("play"):
            illegal = [
                c for c in range(32) if all(a.play.card != c for a in legal if a.HasField("play"))
            ]
            target.action.play.card = rng.choice(illegal)
            target.action.play.akka = False
            target.action.play.sawa = False
            expected = (
                "CARD_NOT_IN_HAND",
                "MUST_FOLLOW_SUIT",
                "MUST_TRUMP",
                "MUST_OVERTRUMP",
                "TRUMP_LEAD_LOCKED",
            )
        else:
            target.action.CopyFrom(
                types_pb2.Action(play=types_pb2.CardPlay(card=0))
                if not entry.action.HasField("deal")
                else types_pb2.Action(bid=types_pb2.Bid(kind=types_pb2.BID_KIND_PASS))
            )
            expected = (
                "WRONG_PHASE",
                "NOT_YOUR_TURN",
                "CARD_NOT_IN_HAND",
                "MUST_FOLLOW_SUIT",
                "MUST_TRUMP",
                "MUST_OVERTRUMP",
                "TRUMP_LEAD_LOCKED",
            )
            if target.action in legal:
                continue
        round_index, action_index, reason = _divergence(client, changed)
        assert (round_index, action_index) == (r, i), (reason, entry, target)
        assert reason in expected


def test_a_changed_card_of_a_deck_or_a_score_is_the_exact_first_divergence(
    client: EngineClient, played: dict[str, Match]
) -> None:
    record = played["kammelna"].record
    for r in range(len(record.rounds)):
        changed = records_pb2.MatchRecord()
        changed.CopyFrom(record)
        deck = changed.rounds[r].deck_order
        deck[5] = deck[6]  # a card twice
        assert _divergence(client, changed) == (r, 0, "INVALID_DECK")
    scored = [r for r, rnd in enumerate(record.rounds) if rnd.HasField("score")]
    for r in scored:
        changed = records_pb2.MatchRecord()
        changed.CopyFrom(record)
        changed.rounds[r].score.teams[0].final_points += 1
        assert _divergence(client, changed) == (
            r,
            len(record.rounds[r].actions),
            "RECORD_MISMATCH",
        )
        # The English explanation is for people: reworded (as a later version may), the
        # record still verifies; the points are what is checked.
        changed = records_pb2.MatchRecord()
        changed.CopyFrom(record)
        changed.rounds[r].score.explanation = "worded otherwise"
        assert client.verify_record(changed).valid
    # A round cut short while another follows, and a round that goes on after its end.
    changed = records_pb2.MatchRecord()
    changed.CopyFrom(record)
    del changed.rounds[0].actions[-1]
    assert _divergence(client, changed)[:2] == (0, len(changed.rounds[0].actions))
    changed = records_pb2.MatchRecord()
    changed.CopyFrom(record)
    changed.rounds[0].actions.append(changed.rounds[1].actions[0])
    assert _divergence(client, changed) == (0, len(record.rounds[0].actions), "RECORD_MISMATCH")
    # An action of no kind this server knows.
    changed = records_pb2.MatchRecord()
    changed.CopyFrom(record)
    changed.rounds[1].actions[1].action.Clear()
    assert _divergence(client, changed) == (1, 1, "INVALID_ACTION")


# ---------------------------------------------------------------------------------------
# Table play: the Qayd calls and the host's close of each review are in the record


class TableMatch:
    def __init__(self, match: Match, table: TablePlay, responses: list[Any], views: Any) -> None:
        self.match, self.table, self.responses, self.views = match, table, responses, views


@pytest.fixture(scope="module")
def table_played(client: EngineClient) -> dict[str, TableMatch]:
    """One table-play match per preset, seats sometimes playing illegal cards and calling Qayd."""
    matches = {}
    for number, (name, preset) in enumerate(TABLE_PRESETS.items()):
        rules = rules_pb2.RuleSet(preset=preset, illegal_moves_allowed=True, sawa=True)
        rng = random.Random(100 + number)
        # The decks are the server's (random): a short match (a Gahwa, every round ended by a
        # Qayd call in the play) may have no review closed or no call; the next one will.
        for _ in range(8):
            match = client.create_match(rules, first_dealer=number)
            table = TablePlay(rng)
            views: list[list[types_pb2.View]] = [list(match.views)]
            responses = play_out(match, rng, table=table, views=views)
            if table.closes and table.calls:
                break
        assert table.closes, name
        assert table.calls, name
        matches[name] = TableMatch(match, table, responses, views)
    return matches


def _close_positions(record: records_pb2.MatchRecord) -> list[tuple[int, int, int]]:
    """The (round, action, step) of every close of a review in a record."""
    found, step = [], 0
    for r, recorded in enumerate(record.rounds):
        for i, entry in enumerate(recorded.actions):
            step += 1
            if entry.close_review:
                found.append((r, i, step))
    return found


@pytest.mark.parametrize("name", list(TABLE_PRESETS))
def test_the_record_of_a_table_play_match_verifies(
    client: EngineClient, table_played: dict[str, TableMatch], name: str
) -> None:
    match = table_played[name].match
    record = match.record
    closes = _close_positions(record)
    assert len(closes) == table_played[name].table.closes
    for r, i, _ in closes:
        entry = record.rounds[r].actions[i]
        assert (entry.seat, entry.HasField("action")) == (0, False)
        assert i == len(record.rounds[r].actions) - 1  # the close scores the round
        assert record.rounds[r].HasField("score")
    assert any(a.action.HasField("qayd") for rnd in record.rounds for a in rnd.actions)
    verified = verify(client, record)
    assert verified.valid, verified.divergence
    assert verified.actions_replayed == match.version
    assert verified.match == match.views[0].match_score
    assert match.views[0].phase == types_pb2.PHASE_MATCH_OVER
    assert list(verified.sheet) == [r.score for r in record.rounds if r.HasField("score")]
    final = client.replay_record(record, verified.actions_replayed)
    assert list(final.views) == match.views
    # The JSON form names the close, and reads back to a record that verifies.
    text = to_json(record)
    assert '"closeReview": true' in text
    assert from_json(text) == record
    assert verify(client, from_json(text)).valid


def test_replay_inside_a_review_and_at_its_close(
    client: EngineClient, table_played: dict[str, TableMatch]
) -> None:
    played = table_played["kammelna"]
    record = played.match.record
    for _, _, step in _close_positions(record)[:3]:
        # Inside the review: the views the host had before closing it.
        inside = client.replay_record(record, step - 1)
        assert inside.views[0].phase == REVIEW
        assert list(inside.views) == played.views[step - 1]
        # The close: its events (the score, the reveal) and the views after it.
        closed = client.replay_record(record, step)
        assert closed.action == records_pb2.RecordedAction(close_review=True)
        assert list(closed.events) == played.responses[step - 1]
        kinds = [e.kind for e in closed.events]
        assert SCORED in kinds
        assert REVEALED in kinds
        assert list(closed.views) == played.views[step]
        assert closed.views[0].phase != REVIEW


def test_a_close_removed_misplaced_or_malformed_is_the_exact_first_divergence(
    client: EngineClient, table_played: dict[str, TableMatch]
) -> None:
    record = table_played["seeds"].match.record
    # A close with a round after it, two entries after a card (a round ended by a Qayd call
    # early in the play has its close right after the bidding or the first card instead).
    closes = [
        (r, i, step)
        for r, i, step in _close_positions(record)
        if r < len(record.rounds) - 1
        and i >= 2
        and record.rounds[r].actions[i - 2].action.WhichOneof("action") == "play"
    ]
    r, i, _ = closes[0]
    # Removed: the round stops in its review, yet the next round follows.
    removed = records_pb2.MatchRecord()
    removed.CopyFrom(record)
    del removed.rounds[r].actions[i]
    assert _divergence(client, removed) == (r, i, "RECORD_MISMATCH")
    # Misplaced: moved into the play (before the last card), or to the next round's bidding.
    early = records_pb2.MatchRecord()
    early.CopyFrom(record)
    del early.rounds[r].actions[i]
    early.rounds[r].actions.insert(i - 2, records_pb2.RecordedAction(close_review=True))
    assert _divergence(client, early) == (r, i - 2, "REVIEW_NOT_OPEN")
    late = records_pb2.MatchRecord()
    late.CopyFrom(record)
    del late.rounds[r].actions[i]
    late.rounds[r + 1].actions.insert(1, records_pb2.RecordedAction(close_review=True))
    assert _divergence(client, late) == (r, i, "RECORD_MISMATCH")
    # Doubled: the round is over after the first.
    doubled = records_pb2.MatchRecord()
    doubled.CopyFrom(record)
    doubled.rounds[r].actions.insert(i + 1, records_pb2.RecordedAction(close_review=True))
    assert _divergence(client, doubled) == (r, i + 1, "RECORD_MISMATCH")
    # A close that also names an action.
    both = records_pb2.MatchRecord()
    both.CopyFrom(record)
    both.rounds[r].actions[i].action.play.card = 3
    assert _divergence(client, both) == (r, i, "REQUEST_INVALID")
    # ReplayRecord shows up to the divergence and refuses a step past it.
    steps_before = sum(len(x.actions) for x in record.rounds[:r]) + i - 2
    assert client.replay_record(early, steps_before).views[0].phase == types_pb2.PHASE_PLAYING
    with pytest.raises(EngineError) as refused:
        client.replay_record(early, steps_before + 1)
    assert refused.value.reason == "RECORD_DIVERGES"


def test_replay_shows_the_views_and_events_of_every_step(client: EngineClient) -> None:
    match = client.create_match(
        rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA, match_target=60), first_dealer=3
    )
    rng = random.Random(5)
    seen: list[tuple[list[types_pb2.View], list[types_pb2.Event], int]] = [
        (list(match.views), [], -1)
    ]
    while match.views[0].phase != types_pb2.PHASE_MATCH_OVER:
        view = match.views[0]
        seat = view.dealer if view.phase in BETWEEN else view.turn
        try:
            events = list(match.act(seat, random_action(match.views[seat], rng)))
        except EngineError:
            continue
        seen.append((list(match.views), events, seat))
    record = match.record
    assert len(seen) == match.version + 1
    steps = sorted({*range(min(45, len(seen))), *random.Random(1).sample(range(len(seen)), 40)})
    for step in steps:
        views, events, seat = seen[step]
        replayed = client.replay_record(record, step)
        assert replayed.total_steps == match.version
        expected_views = views if step else [_without_rules(v) for v in views]
        assert list(replayed.views) == expected_views, step
        assert list(replayed.events) == events
        assert _without_rules(replayed.public_view) == match_public(replayed.views[0])
        assert replayed.public_view.rules.preset == rules_pb2.PRESET_KAMMELNA
        if step:
            assert replayed.action.seat == seat
    assert verify(client, record).valid


def _without_rules(view: types_pb2.View) -> types_pb2.View:
    copy = types_pb2.View()
    copy.CopyFrom(view)
    copy.ClearField("rules")
    return copy


def match_public(view: types_pb2.View) -> types_pb2.View:
    """The public part of a seat's view (no seat, hand or legal actions), with the rules."""
    public = types_pb2.View()
    public.CopyFrom(view)
    for name in ("seat", "hand", "legal_actions"):
        public.ClearField(name)
    return public


def test_oversize_and_malformed_records_are_refused(client: EngineClient, stub: Any) -> None:
    big = records_pb2.MatchRecord()
    for _ in range(1001):
        big.rounds.add()
    expect_refusal(
        stub.VerifyRecord,
        pb.VerifyRecordRequest(record=big),
        OK.INVALID_ARGUMENT,
        "RECORD_TOO_LARGE",
    )
    long = records_pb2.MatchRecord()
    long.rounds.add().actions.extend(records_pb2.RecordedAction() for _ in range(257))
    expect_refusal(
        stub.ReplayRecord,
        pb.ReplayRecordRequest(record=long),
        OK.INVALID_ARGUMENT,
        "RECORD_TOO_LARGE",
    )
    bad_rules = records_pb2.MatchRecord(rules=rules_pb2.RuleSet(preset=9))
    expect_refusal(
        stub.VerifyRecord,
        pb.VerifyRecordRequest(record=bad_rules),
        OK.INVALID_ARGUMENT,
        "INVALID_RULES",
    )
    expect_refusal(
        stub.ReplayRecord,
        pb.ReplayRecordRequest(record=records_pb2.MatchRecord(), step=1),
        OK.INVALID_ARGUMENT,
        "REQUEST_INVALID",
    )
    # Starting scores at or past the target, refused as CreateMatch refuses them.
    for scores in ([152, 0], [200, 200], [2**32 - 1, 3]):
        expect_refusal(
            stub.VerifyRecord,
            pb.VerifyRecordRequest(record=records_pb2.MatchRecord(starting_scores=scores)),
            OK.INVALID_ARGUMENT,
            "REQUEST_INVALID",
        )
    # An empty record is the start of a match: valid, 0 to 0.
    empty = verify(client, records_pb2.MatchRecord())
    assert empty.valid
    assert list(empty.match.points) == [0, 0]


def test_replay_past_a_divergence_is_refused(
    client: EngineClient, played: dict[str, Match], stub: Any
) -> None:
    record = records_pb2.MatchRecord()
    record.CopyFrom(played["seeds"].record)
    record.rounds[0].actions[1].seat = (record.rounds[0].actions[1].seat + 1) % 4
    refused = expect_refusal(
        stub.ReplayRecord,
        pb.ReplayRecordRequest(record=record, step=5),
        OK.FAILED_PRECONDITION,
        "RECORD_DIVERGES",
    )
    assert refused.metadata == {
        "round_index": "0",
        "action_index": "1",
        "divergence": "NOT_YOUR_TURN",
    }
    assert client.replay_record(record, 1).action.action.HasField("deal")


# ---------------------------------------------------------------------------------------
# Duplicate boards


def _first_deals(record: records_pb2.MatchRecord) -> dict[tuple[int, int], list[int]]:
    """Each hand's deck by (round number, redeals before it in that round)."""
    decks: dict[tuple[int, int], list[int]] = {}
    number, redeals = 1, 0
    for recorded in record.rounds:
        decks[(number, redeals)] = list(recorded.deck_order)
        if recorded.HasField("score"):
            number, redeals = number + 1, 0
        else:
            redeals += 1
    return decks


def test_one_board_set_deals_the_same_hands_every_round(
    client: EngineClient,
    servers: Callable[..., InProcessServer],
    dial: Callable[[InProcessServer], EngineClient],
) -> None:
    other = dial(servers(state_keys=(KEY_A,)))  # another server sharing the keys
    short = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, match_target=60)
    # A fixed secret keeps the deals, and so the length of the matches, the same every run.
    fixed = "organiser-key-0001"
    first = client.create_match(
        short, first_dealer=0, board_set="cup-2026/table", board_set_secret=fixed
    )
    secret = first.board_set_secret
    assert secret == fixed
    second = other.create_match(
        short, first_dealer=0, board_set="cup-2026/table", board_set_secret=secret
    )
    third = client.create_match(
        short, first_dealer=0, board_set="cup-2026/other", board_set_secret=secret
    )
    for number, match in enumerate((first, second, third)):
        play_out(match, random.Random(100 + number))
    a, b, c = (_first_deals(m.record) for m in (first, second, third))
    common = a.keys() & b.keys()
    assert len(common) >= 3
    for key in common:
        assert a[key] == b[key], key
    assert all(a[key] != c[key] for key in a.keys() & c.keys())
    for match in (first, second, third):
        assert verify(client, match.record).valid


def test_a_board_set_is_dealt_only_with_its_secret(
    client: EngineClient,
    servers: Callable[..., InProcessServer],
    dial: Callable[[InProcessServer], EngineClient],
) -> None:
    """Issue 27, finding 2: a stranger who knows a board set's name creates a match on it and
    plays the round with bots to read its reveal; the boards must not be the organiser's."""
    short = rules_pb2.RuleSet(preset=rules_pb2.PRESET_SEEDS, match_target=60)
    organiser = client.create_match(short, first_dealer=0, board_set="cup-2026/final")
    secret = organiser.board_set_secret
    assert len(secret) >= 22
    table = dial(servers(state_keys=(KEY_A,))).create_match(
        short, first_dealer=0, board_set="cup-2026/final", board_set_secret=secret
    )
    assert table.board_set_secret == secret
    strangers = [
        client.create_match(short, first_dealer=0, board_set="cup-2026/final"),
        client.create_match(
            short, first_dealer=0, board_set="cup-2026/final", board_set_secret="0" * 22
        ),
    ]
    assert all(s.board_set_secret != secret for s in strangers)
    for number, match in enumerate((organiser, table, *strangers)):
        play_out(match, random.Random(200 + number))
    ours, theirs = _first_deals(organiser.record), _first_deals(table.record)
    assert ours[(1, 0)] == theirs[(1, 0)]
    for stranger in strangers:
        guessed = _first_deals(stranger.record)
        assert all(ours[key] != guessed[key] for key in ours.keys() & guessed.keys())
    assert not client.create_match(short).board_set_secret
    for bad in ("short", "x" * 65, "with a space in it", "é" * 16):
        with pytest.raises(EngineError) as refused:
            client.create_match(board_set="league", board_set_secret=bad)
        assert refused.value.reason == "REQUEST_INVALID"
    with pytest.raises(EngineError) as alone:
        client.create_match(board_set_secret="s" * 22)
    assert alone.value.reason == "REQUEST_INVALID"


def test_a_board_set_match_takes_no_preset_deck(client: EngineClient) -> None:
    match = client.create_match(first_dealer=0, board_set="league")
    with pytest.raises(EngineError) as refused:
        match.deal(0, range(32))
    assert refused.value.reason == "PRESET_DECK_DISABLED"
    for bad in ("x" * 65, "tab\there", "é"):
        with pytest.raises(EngineError) as refused:
            client.create_match(board_set=bad)
        assert refused.value.reason == "REQUEST_INVALID"


# ---------------------------------------------------------------------------------------
# The spectator credential


def test_the_spectator_sees_the_public_view_and_acts_for_no_seat(
    client: EngineClient, stub: Any, keys: Any
) -> None:
    match = client.create_match(first_dealer=0)
    match.deal(0)
    spectator = match.spectator_credential
    assert spectator not in (match.host_credential, *match.seat_credentials)
    public = match.view(credential=spectator)
    assert not public.HasField("seat")
    assert not public.hand
    assert not public.legal_actions
    assert public == match.view()
    common = {"state": match.state, "match_id": match.match_id, "credential": spectator}
    for seat in range(4):
        expect_refusal(
            stub.GetView,
            pb.GetViewRequest(seat=seat, **common),
            OK.PERMISSION_DENIED,
            "CREDENTIAL_INVALID",
        )
        expect_refusal(
            stub.ListLegalActions,
            pb.ListLegalActionsRequest(seat=seat, **common),
            OK.PERMISSION_DENIED,
            "CREDENTIAL_INVALID",
        )
    turn = match.views[0].turn
    action = match.views[turn].legal_actions[0]
    expect_refusal(
        stub.PlaceBid,
        pb.PlaceBidRequest(seat=turn, bid=action.bid, **common),
        OK.PERMISSION_DENIED,
        "CREDENTIAL_INVALID",
    )
    expect_refusal(
        stub.ApplyBotAction,
        pb.ApplyBotActionRequest(seat=turn, level=pb.BOT_LEVEL_RANDOM, **common),
        OK.PERMISSION_DENIED,
        "CREDENTIAL_INVALID",
    )
    assert client.call(stub.GetScore, pb.GetScoreRequest(**common)).match.target == 152


# ---------------------------------------------------------------------------------------
# ApplyBotAction


def _bot_request(match: Match, seat: int, **fields: Any) -> pb.ApplyBotActionRequest:
    return pb.ApplyBotActionRequest(
        state=match.state,
        match_id=match.match_id,
        credential=match.host_credential,
        seat=seat,
        level=fields.pop("level", pb.BOT_LEVEL_BASIC),
        **fields,
    )


def test_bots_play_a_whole_match_in_one_call_per_action(client: EngineClient) -> None:
    match = client.create_match(
        rules_pb2.RuleSet(preset=rules_pb2.PRESET_KAMMELNA, match_target=40), first_dealer=1
    )
    while match.views[0].phase != types_pb2.PHASE_MATCH_OVER:
        view = match.views[0]
        seat = view.dealer if view.phase in BETWEEN else view.turn
        before = match.views[seat]
        response = match.bot_act(seat, pb.BOT_LEVEL_BASIC)
        assert response.seat == seat
        assert response.action in before.legal_actions
    assert verify(client, match.record).valid


def test_apply_bot_action_refuses_the_wrong_seat_a_stale_token_and_other_credentials(
    client: EngineClient, stub: Any
) -> None:
    match = client.create_match(first_dealer=2)
    expect_refusal(
        stub.ApplyBotAction, _bot_request(match, 1), OK.FAILED_PRECONDITION, "NOT_YOUR_TURN"
    )
    match.bot_act(2)  # the dealer's deal
    turn = match.views[0].turn
    for seat in range(4):
        if seat != turn:
            expect_refusal(
                stub.ApplyBotAction,
                _bot_request(match, seat),
                OK.FAILED_PRECONDITION,
                "NOT_YOUR_TURN",
            )
    expect_refusal(
        stub.ApplyBotAction,
        _bot_request(match, turn, expected_version=0),
        OK.FAILED_PRECONDITION,
        "STALE_STATE",
    )
    own = _bot_request(match, turn)
    own.credential = match.seat_credentials[turn]
    expect_refusal(stub.ApplyBotAction, own, OK.PERMISSION_DENIED, "CREDENTIAL_INVALID")
    expect_refusal(
        stub.ApplyBotAction,
        _bot_request(match, turn, level=0),
        OK.INVALID_ARGUMENT,
        "REQUEST_INVALID",
    )


def test_concurrent_timeouts_apply_the_same_action_once_per_version(
    client: EngineClient, keys: Any
) -> None:
    match = client.create_match(first_dealer=0)
    match.deal(0)
    turn = match.views[0].turn
    request = _bot_request(match, turn, expected_version=match.version)
    answers: list[pb.ApplyBotActionResponse] = []
    lock = threading.Lock()

    def fire() -> None:
        answer = client.call(client.stub.ApplyBotAction, request)
        with lock:
            answers.append(answer)

    threads = [threading.Thread(target=fire) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(answers) == 6
    first = answers[0]
    for answer in answers:
        # The same action, version, events and views: a backend keeps whichever it stores
        # first, and its compare-and-set refuses the rest (the next call is stale).
        assert (answer.state_version, answer.action) == (first.state_version, first.action)
        assert list(answer.events) == list(first.events)
        assert list(answer.views) == list(first.views)
        assert (
            open_token(keys, match.match_id, answer.state).state
            == open_token(keys, match.match_id, first.state).state
        )
    stale = _bot_request(match, turn, expected_version=match.version)
    stale.state = first.state
    expect_refusal(client.stub.ApplyBotAction, stale, OK.FAILED_PRECONDITION, "STALE_STATE")
