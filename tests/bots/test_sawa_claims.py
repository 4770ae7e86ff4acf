"""EXPERT's Sawa claims: proved in every deal the seat cannot rule out, never false.

BASIC and STRONG claim only on the plain proof from their own hand (they hold the top card of
every suit they hold, and draw the trumps). EXPERT, late in a round, checks the claim with the
rules core's exact verdict in every deal of the unseen cards its observation allows; the
claim it makes must hold in the real deal, and it finds claims the plain proof misses.
"""

from __future__ import annotations

import math

from baloot_engine.bots import Level, suggest
from baloot_engine.bots.policies import sawa_certain, sawa_proved
from baloot_engine.bots.tracking import ENUMERATED_CARDS, every_deal, track
from baloot_engine.rules.actions import ClaimSawa
from baloot_engine.rules.game import apply, legal_actions
from baloot_engine.rules.observation import observe
from baloot_engine.rules.sawa import claim_holds
from baloot_engine.rules.state import Phase
from tests.bots.games import RULE_SETS, TINY_EXPERT, bot, walk


def test_every_deal_lists_the_real_deal_and_only_deals_the_seat_cannot_rule_out() -> None:
    checked = 0
    for seed in range(12):
        for state in walk(RULE_SETS["seeds"], seed, bot(Level.BASIC), max_rounds=1):
            if state.phase is not Phase.PLAYING:
                continue
            seat = state.turn
            obs = observe(state, seat)
            tracker = track(obs)
            deals = every_deal(obs, tracker, 10_000)
            known = tracker.known[0] | tracker.known[1] | tracker.known[2] | tracker.known[3]
            unseen = (tracker.unseen & ~known).bit_count()  # the cards left to place
            if unseen > ENUMERATED_CARDS:
                assert deals is None
                continue
            assert deals is not None
            assert state.hands in deals
            assert len(set(deals)) == len(deals)
            sizes = [state.hands[s].bit_count() for s in range(4)]
            for hands in deals:
                assert hands[seat] == state.hands[seat]
                assert [h.bit_count() for h in hands] == sizes
                for s in range(4):
                    assert not hands[s] & tracker.excluded[s] or s == seat
                    assert hands[s] & tracker.known[s] == tracker.known[s]
            if not known and not any(
                tracker.excluded[s] & tracker.unseen for s in range(4) if s != seat
            ):
                # Nothing rules a deal out: every split of the unseen cards is listed.
                others = [sizes[s] for s in range(4) if s != seat]
                expected = math.factorial(unseen)
                for size in others:
                    expected //= math.factorial(size)
                assert len(deals) == expected
            checked += 1
    assert checked > 30


def test_every_deal_gives_up_past_its_bound() -> None:
    for state in walk(RULE_SETS["seeds"], 3, bot(Level.BASIC), max_rounds=1):
        if state.phase is Phase.PLAYING and state.hands[state.turn].bit_count() == 3:
            obs = observe(state, state.turn)
            tracker = track(obs)
            deals = every_deal(obs, tracker, 10_000)
            assert deals is not None
            assert len(deals) > 1
            assert every_deal(obs, tracker, len(deals) - 1) is None
            assert every_deal(obs, tracker, len(deals)) == deals
            return
    raise AssertionError("no position with three cards a hand")


def test_expert_claims_only_true_sawas_and_more_than_the_plain_proof() -> None:
    proved_only = 0
    claims = 0
    for seed in range(40):
        for state in walk(RULE_SETS["custom"], seed, bot(Level.BASIC), max_rounds=2):
            seat = state.turn
            if ClaimSawa() not in legal_actions(state, seat):
                continue
            obs = observe(state, seat)
            assert state.contract is not None
            if sawa_proved(obs):
                claims += 1
                assert claim_holds(state.hands, seat, state.contract, state.rules)
                proved_only += not sawa_certain(obs)
                action = suggest(state, seat, Level.EXPERT, seed, expert=TINY_EXPERT)
                assert action == ClaimSawa()
                apply(state, seat, action)  # refused (SAWA_INVALID) were the claim false
    assert claims > 0
    assert proved_only > 0
