"""R33 over a real channel: the 10 for the last trick is in the 8th trick everywhere it is shown.

The trick-won event of the 8th trick, the views' last trick and the running abnat per team
all include it; the expected abnat are computed here from the card values of R32.
"""

from __future__ import annotations

import random

from baloot_client import EngineClient

from baloot.v1 import types_pb2
from tests.api.conftest import IN_ORDER_HOKM, SEEDS, Table

# R32, by rank index 0-7 (7 8 9 10 J Q K A).
PLAIN = (0, 0, 0, 10, 2, 3, 4, 11)
TRUMP = (0, 0, 14, 10, 20, 3, 4, 11)
DIAMONDS = 2  # the trump of IN_ORDER_HOKM (the revealed JD)


def value(card: int) -> int:
    return (TRUMP if card // 8 == DIAMONDS else PLAIN)[card % 8]


def played_round(client: EngineClient, seed: int) -> Table:
    match = client.create_match(SEEDS, first_dealer=0)
    for seat, action in IN_ORDER_HOKM:
        if action is None:
            match.deal(seat, range(32))
        else:
            match.act(seat, action)
    table = Table(match, random.Random(seed), seat_share=0)
    table.play(lambda v: v.phase in (types_pb2.PHASE_ROUND_OVER, types_pb2.PHASE_MATCH_OVER))
    return table


def test_the_last_trick_ten_is_in_the_event_the_last_trick_and_the_running_abnat(
    client: EngineClient,
) -> None:
    for seed in (1, 2, 3):
        table = played_round(client, seed)
        tricks = [e.trick for e in table.events(types_pb2.EVENT_KIND_TRICK_WON)]
        # Trick 1 was played before the table took over: 7S 10S AS 9D, won by seat 0's 9D
        # (a trump), 0 + 10 + 11 + 14 = 35 abnat for team 0.
        assert [t.number for t in tricks] == list(range(2, 9))
        per_team = [35, 0]
        for trick in tricks:
            cards = sum(value(c.card) for c in trick.cards)
            expected = cards + (10 if trick.number == 8 else 0)
            assert trick.abnat == expected, trick
            per_team[trick.winner % 2] += expected
        assert sum(per_team) == 162
        for view in table.views.values():
            assert view.last_trick.number == 8
            assert view.last_trick.abnat == tricks[-1].abnat
            assert list(view.abnat_won) == per_team
            assert [t.card_abnat for t in view.round_score.teams] == per_team


def test_the_running_abnat_have_no_ten_before_the_last_trick(client: EngineClient) -> None:
    table = played_round(client, 4)
    seven = [
        s for s in table.steps if any(e.kind == types_pb2.EVENT_KIND_TRICK_WON for e in s.events)
    ][5]
    events = [e for e in seven.events if e.kind == types_pb2.EVENT_KIND_TRICK_WON]
    assert events[0].trick.number == 7
    assert events[0].trick.abnat == sum(value(c.card) for c in events[0].trick.cards)
