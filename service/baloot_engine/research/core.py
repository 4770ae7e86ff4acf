"""What the two research environments share: the rule set, the deal, the rewards.

* :func:`make_rules`: a preset name (or a :class:`RuleSet`) and single flags, as the
  constructors take them. Table play (``illegal_moves_allowed``: Qayd calls) is refused; its
  calls are not in the action table.
* :func:`shuffled_deck`: the deck order of a deal, drawn from the environment's seeded
  generator (``random.Random``), so a seed fixes every deal of an episode.
* :func:`round_rewards`: a scored round as each seat's reward in game points (its team's
  points minus the other team's; a Gahwa round counts the match target for its winner).
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping

from baloot_engine.rules.actions import Event, EventKind
from baloot_engine.rules.ruleset import PRESETS, Preset, RuleSet
from baloot_engine.rules.scoring import RoundScore
from baloot_engine.rules.state import Phase

LIVE = (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING)
"""The phases in which a seat is to act."""
DEALING = (Phase.AWAITING_DEAL, Phase.ROUND_OVER)
"""The phases in which the next round is dealt (the environments deal it themselves)."""


def make_rules(
    preset: str | Preset | RuleSet = Preset.SEEDS, flags: Mapping[str, object] | None = None
) -> RuleSet:
    """The rule set of an environment: a preset (``"seeds"``, ``"kammelna"``,
    ``"federation"`` or a :class:`RuleSet`) with single flags over it (plain values, as
    :meth:`RuleSet.to_dict` gives them)."""
    if isinstance(preset, RuleSet):
        base = preset
    else:
        base = PRESETS[Preset(preset)]
    rules = RuleSet.from_dict(dict(flags), base) if flags else base
    if rules.illegal_moves_allowed:
        raise ValueError(
            "table play (illegal_moves_allowed, Qayd calls) is not offered by the research "
            "environments: every action in them is legal"
        )
    return rules


def shuffled_deck(rng: random.Random) -> tuple[int, ...]:
    """A deck order for the next deal: ``rng.shuffle`` of the cards 0-31."""
    deck = list(range(32))
    rng.shuffle(deck)
    return tuple(deck)


def scored_round(events: Iterable[Event]) -> RoundScore | None:
    """The score of the round the events finished, or None."""
    for event in events:
        if event.kind is EventKind.ROUND_SCORED:
            return event.score
    return None


def redealt(events: Iterable[Event]) -> bool:
    """The events cancelled the round (all four passed twice, or a Kawesh)."""
    return any(event.kind is EventKind.REDEAL for event in events)


def round_rewards(score: RoundScore, rules: RuleSet) -> tuple[float, float, float, float]:
    """Each seat's reward for a scored round: its team's game points minus the other team's.

    A Gahwa round adds nothing to the totals (its winner wins the match): it counts
    ``rules.match_target`` for the winning team and minus that for the other.
    """
    if score.gahwa_winner is not None:
        target = float(rules.match_target)
        team_0 = target if score.gahwa_winner == 0 else -target
    else:
        team_0 = float(score.points[0] - score.points[1])
    return team_0, -team_0, team_0, -team_0


def match_rewards(winner: int) -> tuple[float, float, float, float]:
    """Each seat's reward at the end of a match: 1 for the winning team, -1 for the other."""
    team_0 = 1.0 if winner == 0 else -1.0
    return team_0, -team_0, team_0, -team_0


def round_bound(rules: RuleSet) -> float:
    """A bound on the absolute value of :func:`round_rewards` under ``rules``.

    A round's points are at most 4 x (a Sun kaboot's 44 + the projects of two eight-card
    hands, at most 60 each in Sun) plus the Baloot's 2, far under 1,000; a Gahwa round counts
    the match target.
    """
    return float(max(1000, rules.match_target))
