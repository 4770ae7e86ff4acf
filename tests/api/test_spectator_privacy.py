"""The spectator credential over 1,000 hands: GetView shows the public observation only.

The servicer is called in process (no channel), on tokens sealed from the states of random
matches played by the rules core, at several moments of every hand: after the deal, during
bidding and doubling, during play, and between hands.
"""

from __future__ import annotations

import asyncio
import random

from baloot.v1 import engine_service_pb2 as pb
from baloot_engine.api.sealing import SPECTATOR_ROLE, KeyRing
from baloot_engine.api.servicer import BalootEngineServicer
from baloot_engine.api.state_codec import SEED_SIZE, encode
from baloot_engine.api.views import encode_observation
from baloot_engine.rules.observation import observe_public
from baloot_engine.rules.ruleset import KAMMELNA, SEEDS
from baloot_engine.rules.state import Phase, State
from baloot_engine.telemetry.metrics import Metrics
from tests.rules.strategies import play_match

HANDS = 1000
KEYS = KeyRing([bytes(range(32))])
MATCH = bytes(range(16))


def _hidden_cards(state: State) -> set[int]:
    """Cards nobody but their holder (or nobody at all) may see."""
    hidden = set()
    for mask in (*state.hands, *(1 << c for c in state.stock)):
        hidden.update(c for c in range(32) if mask >> c & 1)
    if state.revealed >= 0:
        hidden.discard(state.revealed)
    return hidden


def test_a_spectator_sees_no_hidden_card_over_a_thousand_hands() -> None:
    servicer = BalootEngineServicer(KEYS, Metrics(), allow_preset_deck=False)
    credential = KEYS.credential(MATCH, SPECTATOR_ROLE)
    rng = random.Random(2026)
    hands = checked = 0

    async def view_of(state: State, version: int) -> pb.GetViewResponse:
        token = KEYS.seal(encode(state, bytes(SEED_SIZE), version), MATCH)
        request = pb.GetViewRequest(state=token, match_id=MATCH.hex(), credential=credential)
        return await servicer.GetView(request, None)  # type: ignore[arg-type]

    async def run() -> None:
        nonlocal hands, checked
        while hands < HANDS:
            rules = rng.choice([SEEDS, KAMMELNA])
            states = play_match(rng, rules)
            hands += sum(1 for s in states if s.phase is Phase.BIDDING and not s.bids)
            for version, state in enumerate(states):
                if state.phase is Phase.PLAYING and rng.random() > 0.15:
                    continue  # a sample of the plays, every other moment
                view = (await view_of(state, version)).view
                assert not view.HasField("seat")
                assert not view.hand
                assert not view.legal_actions
                assert not view.HasField("last_round_reveal")
                public = encode_observation(observe_public(state), MATCH.hex(), version)
                public.rules.CopyFrom(view.rules)
                assert view == public
                shown = {c.card for c in view.current_trick.cards}
                assert not shown & _hidden_cards(state)
                checked += 1

    asyncio.run(run())
    assert hands >= HANDS
    assert checked > 5 * HANDS
