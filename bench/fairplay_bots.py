"""Bots that cheat, for the calibration and the tests of the fair-play analysis only.

Never part of the service: they sit beside the benchmark (``bench/bench_fairplay.py``) and the
tests import them from here. A cheating bot plays like STRONG or EXPERT, except that its
card play samples its worlds with the hands it peeks at fixed to the real ones: every hand
(``all``: every world is the real deal), its partner's (``partner``) or the opponent on its
left (``left``). Its bids, calls and declarations are the honest level's.

Two kinds: ``STRONG`` runs STRONG's own search (policy play-outs) over its peeking worlds;
``EXPERT`` is the solver's player, like EXPERT's exact search: :data:`SOLVED_WORLDS` peeking
worlds, each solved exactly for every card (with every hand seen, the solver on the real
position).
"""

from __future__ import annotations

import random
from collections.abc import Sequence

from baloot_engine.analysis.core import StopCheck, representatives
from baloot_engine.analysis.fairplay import _sampled
from baloot_engine.analysis.selfplay import play_record
from baloot_engine.bots import Level, suggest
from baloot_engine.bots.search import DEFAULT_BUDGET, search_card
from baloot_engine.bots.tracking import Tracker, sample_hands, track
from baloot_engine.rules.actions import Action, Play
from baloot_engine.rules.contract import partner_of
from baloot_engine.rules.observation import Observation, observe
from baloot_engine.rules.record import RecordedRound
from baloot_engine.rules.state import Phase, State
from baloot_engine.solver import _plays, position_of, solve

SOLVED_WORLDS = 12
"""The worlds the EXPERT-like cheater solves per card (when it does not see every hand)."""

PEEKS = ("none", "all", "partner", "left")
"""What a bot may peek at: nothing (honest), every hand, the partner's, the left opponent's."""


def peeked_seats(seat: int, peek: str) -> tuple[int, ...]:
    """The seats whose hands a bot at ``seat`` sees under ``peek``."""
    if peek == "all":
        return tuple(s for s in range(4) if s != seat)
    if peek == "partner":
        return (partner_of(seat),)
    if peek == "left":
        return ((seat + 1) & 3,)
    return ()


def peeking_sampler(hands: tuple[int, int, int, int], seats: tuple[int, ...]):  # type: ignore[no-untyped-def]
    """A sampler of worlds with the real hands of ``seats`` fixed (``hands``: the real deal)."""

    def sample(obs: Observation, tracker: Tracker, rng: random.Random) -> tuple[int, int, int, int]:
        known = list(tracker.known)
        excluded = list(tracker.excluded)
        for seat in seats:
            known[seat] = hands[seat] & tracker.unseen
            excluded[seat] = tracker.unseen & ~hands[seat]
        peeking = tracker._replace(
            known=(known[0], known[1], known[2], known[3]),
            excluded=(excluded[0], excluded[1], excluded[2], excluded[3]),
        )
        return sample_hands(obs, peeking, rng)

    return sample


def cheat(state: State, seat: int, level: Level, peek: str, seed: int) -> Action:
    """The action of a ``level`` bot at ``seat`` that peeks at ``peek`` (seeded)."""
    seats = peeked_seats(seat, peek)
    if not seats or level not in (Level.STRONG, Level.EXPERT) or state.phase is not Phase.PLAYING:
        return suggest(state, seat, level, seed=seed)
    obs = observe(state, seat)
    legal = [a for a in obs.legal_actions if isinstance(a, Play)]
    if len(legal) != len(obs.legal_actions) or len({p.card for p in legal}) < 2:
        return suggest(state, seat, level, seed=seed)  # a declaration, a Sawa, a forced card
    options = 0
    for play in legal:
        options |= 1 << play.card
    rng = random.Random(seed)
    if level is Level.STRONG:
        sampler = peeking_sampler(state.hands, seats)
        card = search_card(obs, options, rng, DEFAULT_BUDGET, deadline=None, sampler=sampler)
    else:
        return _solved(state, obs, seats, rng)
    akka = Play(card, True)
    return akka if akka in legal else Play(card)


def _solved(state: State, obs: Observation, seats: tuple[int, ...], rng: random.Random) -> Play:
    """The solver's card with the hands of ``seats`` known (every hand: the real position)."""
    position = position_of(state)
    team = obs.seat & 1
    if len(seats) == 3:
        real = solve(position)
        values = [v.points[team] + v.tricks[team] / 9.0 for v in real.values]
        plays = [v.play for v in real.values]
    else:
        plays = _plays(position)
        same = representatives(position, plays)
        sampler = peeking_sampler(state.hands, seats)
        tracker = track(obs)

        def sample() -> tuple[int, int, int, int]:
            return sampler(obs, tracker, rng)

        values = _sampled(
            position, plays, same, sorted(set(same)), sample, SOLVED_WORLDS, StopCheck(None, None)
        )
    best = max(range(len(plays)), key=values.__getitem__)
    return plays[best]


def play_cheat_record(
    levels: Sequence[Level],
    peeks: Sequence[str],
    seed: int,
    *,
    max_rounds: int = 0,
) -> tuple[State, list[RecordedRound]]:
    """A seeded match like :func:`baloot_engine.analysis.selfplay.play_record`, seat ``s``
    playing at ``levels[s]`` and peeking at ``peeks[s]``."""
    return play_record(
        levels,
        seed,
        max_rounds=max_rounds,
        decide=lambda state, seat, decision_seed: cheat(
            state, seat, levels[seat], peeks[seat], decision_seed
        ),
    )


__all__ = ["PEEKS", "cheat", "peeked_seats", "peeking_sampler", "play_cheat_record"]
