"""``validation.validate`` lists every way a state is impossible, all at once (A.13 item 12)."""

from __future__ import annotations

import copy
import pickle
import random
from dataclasses import replace
from enum import Enum

import pytest

from baloot_engine.rules.actions import ClaimSawa, Deal
from baloot_engine.rules.contract import ContractType, PlayMode
from baloot_engine.rules.game import apply, close_review, new_match
from baloot_engine.rules.ruleset import FEDERATION, SEEDS, RuleSet
from baloot_engine.rules.state import BidStage, DoublingStep, Phase, State
from baloot_engine.rules.validation import validate

from .strategies import choose, play_match, random_deck


def _playing(contract_type: ContractType) -> State:
    rng = random.Random(11)
    while True:
        for state in play_match(rng, SEEDS):
            contract = state.contract
            if (
                state.phase is Phase.PLAYING
                and not state.tricks
                and contract is not None
                and contract.type is contract_type
                and contract.multiplier == 1
                and not contract.ashkal
            ):
                return state


def test_a_played_state_is_valid() -> None:
    assert validate(_playing(ContractType.HOKM)) == []
    assert validate(_playing(ContractType.SUN)) == []


def test_contracts_the_bidding_cannot_produce_are_listed() -> None:
    hokm = _playing(ContractType.HOKM)
    contract = hokm.contract
    assert contract is not None
    other_suit = (contract.trump + 1) % 4
    cases = {
        "revealed card's suit": replace(contract, trump=other_suit, bidding_round=1),
        "only a doubled Hokm can be closed": replace(contract, mode=PlayMode.CLOSED),
        "a Gahwa is played open": replace(contract, multiplier=4, gahwa=True, mode=PlayMode.CLOSED),
        "dealer's left can call Ashkal": replace(
            contract, type=ContractType.SUN, trump=-1, ashkal=True, buyer=(hokm.dealer + 1) % 4
        ),
        "could not be doubled": replace(contract, type=ContractType.SUN, trump=-1, multiplier=2),
    }
    for expected, forged in cases.items():
        problems = validate(hokm._replace(contract=forged))
        assert any(expected in p for p in problems), (expected, problems)


def test_every_problem_is_reported_at_once() -> None:
    hokm = _playing(ContractType.HOKM)
    broken = hokm._replace(dealer=7, turn=9, match_scores=(-1, 0))
    problems = validate(broken)
    assert any("dealer" in p for p in problems)
    assert any("turn" in p for p in problems)
    assert any("negative" in p for p in problems)


def test_replace_changes_only_the_named_fields() -> None:
    state = _playing(ContractType.HOKM)
    changed = state._replace(turn=(state.turn + 1) & 3, trick=(1, 2), akka=True)
    assert type(changed) is State
    for name in State._fields:
        expected = {"turn": (state.turn + 1) & 3, "trick": (1, 2), "akka": True}.get(
            name, getattr(state, name)
        )
        assert getattr(changed, name) == expected, name
    assert state._replace() == state


def test_replace_refuses_an_unknown_field() -> None:
    with pytest.raises(ValueError, match="no_such_field"):
        State()._replace(no_such_field=1)  # type: ignore[call-arg]


def test_phases_are_enum_members_hashed_by_identity() -> None:
    names = [phase.name for phase in Phase]
    assert names == [
        "AWAITING_DEAL",
        "BIDDING",
        "DOUBLING",
        "PLAYING",
        "ROUND_OVER",
        "MATCH_OVER",
        "ROUND_REVIEW",
    ]
    assert len(Phase) == 7
    for phase in Phase:
        assert getattr(Phase, phase.name) is phase
        assert phase.value == phase.name.lower()
        assert copy.copy(phase) is phase
        assert copy.deepcopy(phase) is phase
        assert pickle.loads(pickle.dumps(phase)) is phase  # noqa: S301 - our own bytes
        assert isinstance(phase, Enum)
        assert hash(phase) == object.__hash__(phase)  # the phase table's lookup is C code
    state = State()
    assert copy.deepcopy(state).phase is Phase.AWAITING_DEAL


def _states_of_every_phase() -> dict[Phase, list[State]]:
    """Real states of a few random matches, by phase."""
    found: dict[Phase, list[State]] = {phase: [] for phase in Phase}
    rng = random.Random(5)
    hokm: set[bool] = set()  # Hokm hands in play seen with and without a Baloot holder
    for _ in range(200):
        for state in play_match(rng, SEEDS):
            found[state.phase].append(state)
            if state.phase is Phase.PLAYING and state.trump >= 0:
                hokm.add(state.baloot_seat >= 0)
        if len(hokm) == 2:
            break
    return found


_EVERY_PHASE = _states_of_every_phase()


def _one_with(phase: Phase, condition: object = None) -> State:
    for state in _EVERY_PHASE[phase]:
        if condition is None or condition(state):  # type: ignore[operator]
            return state
    raise AssertionError(f"no {phase} state found")


def _mid_play() -> State:
    return _one_with(Phase.PLAYING, lambda s: len(s.tricks) >= 2 and s.trick)


def test_field_ranges_are_checked_before_anything_else() -> None:
    state = _mid_play()
    forged = {
        "hand_number": state._replace(hand_number=2**31),
        "revealed": state._replace(revealed=2**31 - 1),
        "buy card": state._replace(buy_card=32),
        "buy card -2": state._replace(buy_card=-2),
        "match scores": state._replace(match_scores=(0, 10**9)),
        "bidding_round": state._replace(bidding_round=7),
        "seats to ask": state._replace(to_ask=(1, 1)),
        "pending_suit": state._replace(pending_suit=4),
        "leader": state._replace(leader=4),
        "project_team": state._replace(project_team=2),
        "sawa_seat": state._replace(sawa_seat=9),
        "winner": state._replace(winner=5),
        "abnat": state._replace(abnat=(100, 100)),
    }
    for name, broken in forged.items():
        assert validate(broken), name


def test_each_phase_leaves_the_other_phases_fields_empty() -> None:
    bidding = _one_with(Phase.BIDDING)
    playing = _mid_play()
    over = _one_with(Phase.ROUND_OVER)
    awaiting = _one_with(Phase.AWAITING_DEAL)
    for state in (bidding, playing, over, awaiting):
        assert validate(state) == []
    cases = {
        "a face-up card in play": playing._replace(revealed=playing.buy_card),
        "a doubling step in play": playing._replace(doubling_step=DoublingStep.DOUBLE),
        "a stage while playing": playing._replace(bid_stage=BidStage.LAP),
        "a pending bid in play": playing._replace(pending_seat=1),
        "a Sawa seat in play": playing._replace(sawa_seat=0),
        "a leader while bidding": bidding._replace(leader=0),
        "a contract while bidding": bidding._replace(contract=playing.contract),
        "another face-up card": bidding._replace(revealed=(bidding.revealed + 1) % 32),
        "no turn when a hand is over": over._replace(turn=-1),
        "bids kept after the hand": over._replace(bids=playing.bids),
        "a hand before any deal": awaiting._replace(hand_number=0, phase=Phase.BIDDING),
        "a buy card while awaiting": awaiting._replace(buy_card=3),
        "a winner in the match": over._replace(winner=0),
    }
    for name, broken in cases.items():
        assert validate(broken), name


def test_the_tricks_must_be_the_tricks_that_were_played() -> None:
    state = _mid_play()
    first, second, *rest = state.tricks
    wrong_winner = first._replace(winner=(first.winner + 1) & 3)
    wrong_leader = second._replace(leader=(second.leader + 1) & 3)
    cases = {
        "a wrong winner": state._replace(tricks=(wrong_winner, second, *rest)),
        "a wrong leader": state._replace(tricks=(first, wrong_leader, *rest)),
        "abnat not won": state._replace(abnat=(state.abnat[1], state.abnat[0] + 1)),
        "an Akka with no led card": state._replace(trick=(), akka=True),
    }
    for name, broken in cases.items():
        assert validate(broken), name


def test_baloot_is_announced_only_by_its_holder_once_both_cards_are_played() -> None:
    playing = [s for s in _EVERY_PHASE[Phase.PLAYING] if s.tricks]
    sun = next(s for s in playing if s.trump < 0)
    assert validate(sun._replace(baloot_announced=True))
    no_holder = next(s for s in playing if s.trump >= 0 and s.baloot_seat < 0)
    assert validate(no_holder._replace(baloot_announced=True))
    held = [s for s in playing if s.baloot_seat >= 0]
    assert held
    for state in held:
        # The flag must say exactly whether the holder has played both cards.
        assert validate(state._replace(baloot_announced=not state.baloot_announced))


def test_the_match_score_decides_the_match() -> None:
    over = _one_with(Phase.ROUND_OVER)
    target = over.rules.match_target
    assert validate(over._replace(match_scores=(target, 0)))
    assert validate(over._replace(match_scores=(target + 5, target + 1)))


def test_members_are_the_enums_own() -> None:
    """rules.members holds each enum's own members, each once."""
    from baloot_engine.rules import members

    constants = {name: value for name, value in vars(members).items() if name.isupper()}
    assert len(constants) == len({id(v) for v in constants.values()}) > 10
    for name, member in constants.items():
        assert isinstance(member, Enum), name
        assert getattr(type(member), member.name) is member


_HOT_MODULES = (
    "rules/bidding.py",
    "rules/declaring.py",
    "rules/doubling.py",
    "rules/game.py",
    "rules/match.py",
    "rules/play.py",
    "rules/qayd.py",
    "rules/sawa.py",
    "rules/validation.py",
    "api/outbound.py",
    "api/records.py",
    "api/state_codec.py",
    "api/views.py",
)


def test_hot_paths_read_members_from_rules_members() -> None:
    """The functions of the modules on every call's path compare the members rules.members
    holds through its constants, never through their enum class (the slow lookup)."""
    import ast
    from pathlib import Path

    import baloot_engine
    from baloot_engine.rules import members

    held = {(type(v).__name__, v.name) for v in vars(members).values() if isinstance(v, Enum)}
    root = Path(baloot_engine.__file__).parent
    found = []
    for name in _HOT_MODULES:
        tree = ast.parse((root / name).read_text())
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef):
                continue
            for node in ast.walk(function):
                if (
                    isinstance(node, ast.Attribute)
                    and isinstance(node.value, ast.Name)
                    and (node.value.id, node.attr) in held
                ):
                    found.append(f"{name}:{node.lineno} {node.value.id}.{node.attr}")
    assert found == []


def _states(rules: RuleSet, phase: Phase, matches: int = 60, seed: int = 11) -> list[State]:
    """The states of ``phase`` that random matches under ``rules`` pass through."""
    rng = random.Random(seed)
    return [s for _ in range(matches) for s in play_match(rng, rules) if s.phase is phase]


def test_the_doubling_step_asked_is_the_one_the_calls_made() -> None:
    # A forged doubling state let the buyer's Triple under FEDERATION look for a Double that
    # was never called (a crash), a Gahwa at x1, a Sun at x3, a buyer's partner double his
    # own contract. Every doubling state of real play is valid; each forgery is not.
    for rules in (SEEDS, FEDERATION):
        real = _states(rules, Phase.DOUBLING)
        assert {s.doubling_step for s in real} >= {DoublingStep.DOUBLE, DoublingStep.TRIPLE}
        assert all(validate(s) == [] for s in real)
    base = next(
        s
        for s in _states(FEDERATION, Phase.DOUBLING)
        if s.doubling_step is DoublingStep.DOUBLE and s.contract is not None and s.trump >= 0
    )
    contract = base.contract
    assert contract is not None
    buyer, partner = contract.buyer, (contract.buyer + 2) & 3
    sun = replace(contract, type=ContractType.SUN, trump=-1)
    forged = {
        "a Triple with no Double called": base._replace(
            contract=replace(contract, multiplier=2),
            doubling_step=DoublingStep.TRIPLE,
            to_ask=(buyer,),
            turn=buyer,
        ),
        "a Gahwa asked at x1": base._replace(
            doubling_step=DoublingStep.GAHWA, to_ask=(buyer,), turn=buyer
        ),
        "a Sun asked for a Triple": base._replace(
            contract=sun, doubling_step=DoublingStep.TRIPLE, to_ask=(buyer,), turn=buyer
        ),
        "a Sun doubled at 0-0 (R15)": base._replace(contract=sun),
        "the buyer's partner asked to double": base._replace(to_ask=(partner,), turn=partner),
    }
    for name, state in forged.items():
        assert validate(state), name


def test_a_review_keeps_the_abnat_of_its_tricks() -> None:
    # A round under review is scored from its abnat when the review closes: they must be the
    # tricks' (and the last trick's 10, or a Sawa's cards and 10), as in play.
    rules = SEEDS.replace(illegal_moves_allowed=True, sawa=True)
    rng = random.Random(3)
    reviews = []
    for _ in range(20):
        state = new_match(rules)
        while state.phase is not Phase.MATCH_OVER:
            if state.phase is Phase.ROUND_REVIEW:
                reviews.append(state)
                state, _ = close_review(state)
            elif state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
                state, _ = apply(state, state.dealer, Deal(random_deck(rng)))
            elif state.phase is Phase.PLAYING and not state.trick and rng.random() < 0.2:
                state, _ = apply(state, state.turn, ClaimSawa())  # table play: false ones too
            else:
                state, _ = apply(state, *choose(rng, state))
    assert any(s.sawa_seat >= 0 for s in reviews)
    assert any(s.sawa_seat < 0 for s in reviews)
    for state in reviews:
        assert validate(state) == []
        first, second = state.abnat
        for abnat in ((second, first), (first + second, 0), (0, 0)):
            if abnat != state.abnat:
                assert validate(state._replace(abnat=abnat)), abnat


def test_the_projects_that_score_are_the_team_their_comparison_names() -> None:
    # R28, R29: once compared, the team whose projects score is the comparison's, never
    # another, and the comparison is not undone.
    playing = _states(SEEDS, Phase.PLAYING, matches=40)
    assert all(validate(s) == [] for s in playing)  # trick 1's cards included: not yet compared
    compared = [s for s in playing if len(s.tricks) >= 2 and s.project_team >= 0]
    assert compared
    for state in compared:
        assert validate(state) == []
        assert validate(state._replace(project_team=1 - state.project_team))
        assert validate(state._replace(project_team=-1))
