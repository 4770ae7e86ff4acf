"""Partner quality on constructed positions, at every level that thinks, and whole matches under
every preset at every level without a refused action.

The positions are built card by card (and checked by the rules core's validation). In each the
solver, seeing every hand, confirms the standard play is the best one, so a level that plays
otherwise gives something away; each level sees only its own seat's observation.
"""

from __future__ import annotations

import pytest

from baloot_engine.bots import Level, suggest
from baloot_engine.rules.actions import Action, Deal, Play
from baloot_engine.rules.cards import parse_card, trick_points, trick_winner_index
from baloot_engine.rules.contract import Contract, ContractType
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, RuleSet
from baloot_engine.rules.state import Phase, State, TrickRecord
from baloot_engine.rules.validation import validate
from baloot_engine.solver import position_of, solve

from .games import SMALL, TINY_EXPERT, deck

THINKING = [Level.BASIC, Level.STRONG, Level.EXPERT, Level.LEARNED]


def _mask(cards: str) -> int:
    mask = 0
    for name in cards.split():
        mask |= 1 << parse_card(name)
    return mask


def _cards(cards: str) -> tuple[int, ...]:
    return tuple(parse_card(name) for name in cards.split())


def position(
    rules: RuleSet,
    contract: Contract,
    dealer: int,
    hands: tuple[str, str, str, str],
    tricks: list[tuple[int, str]],
    leader: int,
    trick: str,
) -> State:
    """A round in play: the cards each seat still holds, the completed tricks (leader, cards),
    and the trick in progress from ``leader``."""
    held = [_mask(h) for h in hands]
    records = []
    full = list(held)
    played = 0
    abnat = [0, 0]
    for lead, names in tricks:
        cards = _cards(names)
        winner = (lead + trick_winner_index(cards, contract.trump)) & 3
        records.append(TrickRecord(lead, (cards[0], cards[1], cards[2], cards[3]), winner))
        for step, card in enumerate(cards):
            full[(lead + step) & 3] |= 1 << card
            played |= 1 << card
        abnat[winner & 1] += trick_points(cards, contract.trump, last=False)
    current = _cards(trick)
    for step, card in enumerate(current):
        full[(leader + step) & 3] |= 1 << card
    buy = (full[contract.taker] & -full[contract.taker]).bit_length() - 1
    state = State(
        rules=rules,
        phase=Phase.PLAYING,
        dealer=dealer,
        hand_number=1,
        turn=(leader + len(current)) & 3,
        hands=(held[0], held[1], held[2], held[3]),
        buy_card=buy,
        bidding_round=contract.bidding_round,
        contract=contract,
        full_hands=(full[0], full[1], full[2], full[3]),
        leader=leader,
        trick=current,
        tricks=tuple(records),
        played=played,
        abnat=(abnat[0], abnat[1]),
    )
    problems = validate(state)
    assert problems == [], problems
    return state


def _choose(state: State, level: Level) -> Action:
    return suggest(state, state.turn, level, seed=7, budget=SMALL, expert=TINY_EXPERT)


# Hokm in spades, seat 0 bought; seat 0 dealt, so seat 1 led trick 1 and won it with the ace of
# diamonds. In trick 2 seat 1 led a heart, the partner (seat 2) took it over with the ace and
# seat 3 followed; seat 0, out of hearts with the two top trumps, plays last: the partner's
# trick is sure. Ruffing it gains nothing and spends a trump that wins a trick of its own.
HOKM = Contract(ContractType.HOKM, 0, 0)


def _sure_trick_state(rules: RuleSet) -> State:
    return position(
        rules,
        HOKM,
        dealer=0,
        hands=(
            "JS 9S 7D 9C 10C 7C 8C",
            "QC KC AC JC QD KD",
            "KH QH 10H 9H 7S KS",
            "JH JD AS 10S QS 8S",
        ),
        tricks=[(1, "AD 9D 10D 8D")],
        leader=1,
        trick="7H AH 8H",
    )


@pytest.mark.parametrize("level", THINKING, ids=lambda level: level.value)
@pytest.mark.parametrize(
    "rules", [SEEDS, KAMMELNA, FEDERATION], ids=["seeds", "kammelna", "federation"]
)
def test_no_level_ruffs_a_partners_sure_trick_without_a_gain(level: Level, rules: RuleSet) -> None:
    state = _sure_trick_state(rules)
    legal = [a for a in legal_actions(state, 0) if isinstance(a, Play)]
    discards = [a for a in legal if a.card >> 3 != 0]
    if not discards:
        pytest.skip("the rule set makes seat 0 ruff here")
    solution = solve(position_of(state))
    best = solution.best_value.points[0]
    ruffs = [v for v in solution.values if v.play.card >> 3 == 0]
    assert all(v.points[0] < best for v in ruffs)  # the solver: every ruff costs
    action = _choose(state, level)
    assert isinstance(action, Play)
    assert action.card >> 3 != 0, f"{level.value} ruffed its partner's sure trick with {action}"


# Sun, seat 2 bought. In trick 1 the partner (seat 2) led the ten of diamonds and seat 0 won it
# with the ace; seat 0 now leads trick 2. The partner holds the king and queen of diamonds,
# the other diamonds are gone: returning the partner's suit lets it cash them, and the solver
# confirms a diamond is the best lead.
SUN = Contract(ContractType.SUN, -1, 2)


def _return_state(rules: RuleSet) -> State:
    return position(
        rules,
        SUN,
        dealer=1,
        hands=(
            "9D JD 7S 8S 7C 8C 9C",
            "AS KS QS AC JC QC KC",
            "KD QD 7H 8H 9H 10C 9S",
            "JS 10S AH 10H KH QH JH",
        ),
        tricks=[(2, "10D 7D AD 8D")],
        leader=0,
        trick="",
    )


@pytest.mark.parametrize(
    "level",
    [
        Level.BASIC,
        Level.STRONG,
        Level.EXPERT,
        pytest.param(
            Level.LEARNED,
            marks=pytest.mark.xfail(
                reason="the card features do not say who led each trick (docs/learning.md)",
                strict=True,
            ),
        ),
    ],
    ids=lambda level: level.value,
)
def test_every_level_returns_the_partners_led_suit(level: Level) -> None:
    state = _return_state(SEEDS)
    solution = solve(position_of(state))
    best = solution.best_value.points[0]
    diamonds = [v for v in solution.values if v.play.card >> 3 == 2]
    assert max(v.points[0] for v in diamonds) == best
    others = [v for v in solution.values if v.play.card >> 3 != 2]
    assert all(v.points[0] < best for v in others)
    action = _choose(state, level)
    assert isinstance(action, Play)
    assert action.card >> 3 == 2, f"{level.value} led {action} instead of the partner's suit"


@pytest.mark.parametrize("level", list(Level), ids=lambda level: level.value)
@pytest.mark.parametrize(
    "rules", [SEEDS, KAMMELNA, FEDERATION], ids=["seeds", "kammelna", "federation"]
)
def test_every_preset_and_level_plays_whole_matches(level: Level, rules: RuleSet) -> None:
    """A whole match with the level in every seat: no action refused, the match ends."""
    if level in (Level.STRONG, Level.EXPERT):
        rules = rules.replace(match_target=60)  # the searching levels: a shorter match
    state = new_match(rules, dealer=1)
    step = 0
    while state.phase is not Phase.MATCH_OVER:
        assert state.hand_number < 60, "the match does not end"
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            state, _ = apply(state, state.dealer, Deal(deck(5, state.hand_number + 1)))
            continue
        seat = state.turn
        action = suggest(state, seat, level, seed=step, budget=SMALL, expert=TINY_EXPERT)
        assert action in legal_actions(state, seat)
        try:
            state, _ = apply(state, seat, action)
        except RuleError as error:  # pragma: no cover - the failure this test looks for
            pytest.fail(f"{level.value} under {rules}: {action} refused: {error}")
        step += 1
    assert state.winner in (0, 1)
