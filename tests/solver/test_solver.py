"""The exact solver: plain minimax agrees with it, both engines agree card for card, the best
card is the position's value along the whole best line, and the par is the rules core's score."""

from __future__ import annotations

import random
import time
from dataclasses import replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from baloot_engine.rules.actions import Bid, BidKind, Deal, Declare, Doubling, DoublingCall, Play
from baloot_engine.rules.cards import card_of, strength
from baloot_engine.rules.game import apply, close_review, legal_actions, new_match
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.projects import best_projects
from baloot_engine.rules.ruleset import RuleSet
from baloot_engine.rules.scoring import score_round
from baloot_engine.rules.state import Phase, State
from baloot_engine.solver import (
    COMPILED,
    TRICK_WEIGHT,
    Position,
    SolverBudgetError,
    answer_played_out,
    deal_value,
    new_search,
    now_plus,
    pair_of_searches,
    par,
    par_with_facts,
    played_out,
    position_of,
    solve,
    solve_some,
)
from baloot_engine.solver.reference import minimax, rest_of
from tests.golden.solver_positions import RULE_SETS, end_position, first_lead, play_on
from tests.waiting import HANG_GUARD

ENGINES = ["reference", "compiled"] if COMPILED else ["reference"]


def test_the_compiled_search_is_installed() -> None:
    # The package's install builds it; without it the service falls back to the slow reference.
    assert COMPILED


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_every_value_is_the_plain_minimax_value(engine: str, rules_name: str) -> None:
    # 250 random ends of rounds a rule set and engine (2 or 3 cards a seat, 0-3 cards in the
    # trick), Sun and Hokm, open and closed: the value of the position and of each team agree
    # with minimax over every legal card, with no pruning.
    rules = RULE_SETS[rules_name]
    for seed in range(250):
        position = end_position(seed, 2 + seed % 2, seed % 4, rules)
        args = (position.hands, position.trick, position.leader, position.played, position.akka)
        rest = rest_of(position.hands, position.trick, position.contract.trump)
        values = []
        for team in (0, 1):
            expected = minimax(*args, position.contract, rules, team)
            found = new_search(position.contract, rules, team, engine).value(*args)  # type: ignore[arg-type]
            assert found == expected, (seed, team, position)
            values.append(found)
        assert values[0] + values[1] == rest  # the two sides share every point and trick


def test_minimax_agrees_on_four_cards_a_seat() -> None:
    for rules_name, rules in sorted(RULE_SETS.items()):
        for seed in range(3):
            position = end_position(1000 + seed, 4, 1 + seed % 3, rules)
            args = (position.hands, position.trick, position.leader, position.played, position.akka)
            expected = minimax(*args, position.contract, rules, 0)
            assert new_search(position.contract, rules, 0).value(*args) == expected, rules_name


def _partner_can_be_reached(position: Position) -> bool:
    """Does the leader hold a card of a plain suit whose strongest card still out is his
    partner's (the quick tricks' crossing to the partner)?"""
    trump = position.contract.trump
    leader = position.leader
    partner = position.hands[(leader + 2) & 3]
    opponents = position.hands[(leader + 1) & 3] | position.hands[(leader + 3) & 3]
    for suit in range(4):
        if suit == trump or not position.hands[leader] >> (8 * suit) & 0xFF:
            continue
        cards = [card_of(suit, rank) for rank in range(8)]
        ours = [strength(c, trump) for c in cards if partner >> c & 1]
        theirs = [strength(c, trump) for c in cards if opponents >> c & 1]
        if ours and max(ours) > max(theirs, default=-1):
            return True
    return False


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_the_bound_of_a_crossing_to_the_partner_keeps_the_minimax_value(rules_name: str) -> None:
    # Trick starts where the leader can reach his partner's winners (3 or 4 cards a seat; Sun,
    # and Hokm where an opponent may still hold a trump, when the crossing must not count): the
    # compiled search's bound may end a search, and the value must stay the plain minimax one.
    rules = RULE_SETS[rules_name]
    checked = 0
    for seed in range(2_000):
        position = end_position(70_000 + seed, 3 + (seed % 4 == 0), 0, rules)
        if not _partner_can_be_reached(position):
            continue
        args = (position.hands, position.trick, position.leader, position.played, position.akka)
        for team in (0, 1):
            expected = minimax(*args, position.contract, rules, team)
            found = new_search(position.contract, rules, team).value(*args)
            assert found == expected, (seed, team, position)
        checked += 1
        if checked == 80:
            break
    assert checked == 80


@pytest.mark.skipif(not COMPILED, reason="the compiled search is not installed")
@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_the_compiled_search_equals_the_reference_card_for_card(rules_name: str) -> None:
    # 600 random positions a rule set (3 to 5 cards a seat), every legal card's value.
    rules = RULE_SETS[rules_name]
    for seed in range(600):
        position = end_position(50_000 + seed, 3 + seed % 3, seed % 4, rules)
        compiled = solve(position, engine="compiled")
        reference = solve(position, engine="reference")
        assert compiled.values == reference.values, (seed, position)
        assert compiled.best == reference.best


def test_the_solution_names_every_legal_card_and_akka_call() -> None:
    rules = RULE_SETS["custom"]  # Akka calls are made under these rules
    found_call = False
    for seed in range(300):
        position = end_position(7000 + seed, 5, 0, rules)
        solution = solve(position)
        plays = [value.play for value in solution.values]
        cards = {play.card for play in plays}
        mask = position.hands[position.seat]
        legal = allowed_cards(
            mask,
            (),
            position.leader,
            position.seat,
            position.played,
            False,
            position.contract,
            rules,
        )
        assert cards == {c for c in range(32) if legal >> c & 1}
        for play in plays:
            if play.akka:
                found_call = True
                # Calling Akka never costs the caller's team.
                plain = next(v for v in solution.values if v.play == Play(play.card))
                called = next(v for v in solution.values if v.play == play)
                team = position.seat & 1
                assert called.points[team] >= plain.points[team]
    assert found_call


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), rules_name=st.sampled_from(sorted(RULE_SETS)))
def test_the_best_card_holds_its_value_along_the_best_line(seed: int, rules_name: str) -> None:
    # From a random position of 5 cards a seat: the best card's totals are the position's
    # value, and after it is played the next seat's best card has the same totals, to the end.
    rules = RULE_SETS[rules_name]
    position = end_position(seed, 5, seed % 4, rules)
    solution = solve(position)
    best = solution.best_value
    team = position.seat & 1
    search = new_search(position.contract, rules, team)
    value = search.value(
        position.hands, position.trick, position.leader, position.played, position.akka
    )
    assert value is not None
    assert divmod(value, TRICK_WEIGHT) == (best.points[team], best.tricks[team])
    assert all(v.points[team] * TRICK_WEIGHT + v.tricks[team] <= value for v in solution.values)
    while True:
        position = position.after(solution.values[solution.best].play)
        if position.over:
            break
        solution = solve(position)
        assert (solution.best_value.points, solution.best_value.tricks) == (
            best.points,
            best.tricks,
        )


@pytest.mark.parametrize("rules_name", ["seeds", "kammelna", "federation", "custom"])
def test_the_par_is_the_rules_core_score_of_the_best_line(rules_name: str) -> None:
    rules = RULE_SETS[rules_name]
    for seed in range(3):
        start = first_lead(seed, rules)
        for state in (start, play_on(start, 2 + seed % 3, seed)):
            if state.phase is not Phase.PLAYING:
                continue
            result = par(state)
            # Replay the line through the rules core: the same score, from score_round.
            replay = state
            for seat, action in result.line:
                replay, _ = apply(replay, seat, action)
            if replay.phase is Phase.ROUND_REVIEW:
                replay, _ = close_review(replay)
            assert replay.last_score == result.score
            assert score_round(result.score.facts, rules) == result.score
            assert result.points == result.score.facts.card_abnat
            # And the par's card points are the solver's value of the position.
            solution = solve(position_of(state))
            assert solution.best_value.points == result.points
            assert solution.best_value.tricks == result.tricks


@pytest.mark.parametrize("engine", ENGINES)
@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_the_par_line_is_the_best_card_of_solve_at_every_position(
    engine: str, rules_name: str
) -> None:
    # The par finds each card of its line by null-window tests at the line's value, not by
    # valuing every card: each must still be solve()'s best (the first of the equal best), and
    # with a given first solution the line is the same. Positions late enough for the
    # reference, and first leads for the compiled search.
    rules = RULE_SETS[rules_name]
    for seed in range(3):
        start = first_lead(200 + seed, rules)
        if start.phase is not Phase.PLAYING:
            continue
        state = play_on(start, 5, seed) if engine == "reference" else start
        if state.phase is not Phase.PLAYING:
            continue
        searches = pair_of_searches(state.contract, rules, engine)  # type: ignore[arg-type]
        first = solve(position_of(state), search=searches[state.turn & 1])
        result = par(state, engine=engine)  # type: ignore[arg-type]
        assert par(state, searches=searches, first=first).line == result.line
        replay = state
        for seat, action in result.line:
            if isinstance(action, Play):
                solution = solve(position_of(replay), engine=engine)  # type: ignore[arg-type]
                assert action == solution.values[solution.best].play, (seed, seat)
            replay, _ = apply(replay, seat, action)
        assert replay.phase is not Phase.PLAYING


@pytest.mark.parametrize("rules_name", sorted(RULE_SETS))
def test_every_first_lead_of_a_real_round_is_worth_the_value_after_it(rules_name: str) -> None:
    # Whole rounds, too deep for the reference: each lead's value, found in one search whose
    # table serves every lead (and, by shape, many positions of each), is the value of the
    # position after that lead, solved afresh.
    rules = RULE_SETS[rules_name]
    for seed in range(4):
        start = first_lead(100 + seed, rules)
        if start.phase is not Phase.PLAYING:
            continue
        position = position_of(start)
        for value in solve(position).values:
            after = solve(position.after(value.play)).best_value
            assert (value.points, value.tricks) == (after.points, after.tricks), (seed, value)


def test_the_par_declares_the_projects_a_seat_holds() -> None:
    rules = RULE_SETS["seeds"]
    checked = 0
    for seed in range(30):
        state = first_lead(seed, rules)
        holders = {
            seat for seat in range(4) if best_projects(state.full_hands[seat], state.trump, rules)
        }
        if not holders:
            continue
        result = par(state)
        declared = {seat for seat, action in result.line if isinstance(action, Declare)}
        assert declared == holders
        assert result.score.awarded  # the comparison gave one team its projects
        checked += 1
    assert checked >= 3


def test_a_node_limit_or_deadline_stops_the_search_with_nothing_partial() -> None:
    state = first_lead(3, RULE_SETS["seeds"])
    position = position_of(state)
    with pytest.raises(SolverBudgetError):
        solve(position, max_nodes=50)
    with pytest.raises(SolverBudgetError):
        solve(position, deadline=time.monotonic() - 1)
    with pytest.raises(SolverBudgetError):
        par(state, max_nodes=50)
    assert solve(position).values  # unbounded, the same position is solved


@pytest.mark.parametrize("engine", ENGINES)
def test_malformed_positions_are_refused(engine: str) -> None:
    position = end_position(1, 3, 0, RULE_SETS["seeds"])
    search = new_search(position.contract, position.rules, 0, engine)  # type: ignore[arg-type]
    hands = position.hands
    if engine == "compiled":
        with pytest.raises(ValueError, match="two places"):  # a card in two hands
            search.value(
                (hands[0] | hands[1], hands[1], hands[2], hands[3]), (), 0, position.played, False
            )
        with pytest.raises(ValueError, match="do not fit"):  # hands of different sizes
            search.value((hands[0], 0, hands[2], hands[3]), (), 0, position.played, False)
    with pytest.raises(ValueError, match="round is over"):
        solve(Position((0, 0, 0, 0), (), 0, 0xFFFFFFFF, False, position.contract, position.rules))


def test_a_finished_round_is_solved_from_its_tricks_with_its_table_facts() -> None:
    # A round played out by BASIC bots: its position rebuilt from the tricks (what a token keeps
    # between rounds) has the par of the live round, scored with the table's declarations.
    rules = RULE_SETS["seeds"]
    for seed in range(4):
        start = first_lead(seed, rules)
        finished = play_on(start, 8, seed)
        score = finished.last_score
        assert score is not None
        assert len(finished.tricks) == 8
        tricks = [(t.leader, t.cards) for t in finished.tricks]
        assert finished.contract is not None
        position = played_out(tricks, finished.contract, rules)
        assert position.hands == start.hands
        assert position.leader == start.leader
        live = par(start)
        table = par_with_facts(position, score.facts)
        answer = answer_played_out(
            tricks, start.dealer, score.facts, finished.contract, rules, 0, now_plus(HANG_GUARD)
        )
        assert answer.par == replace(table, nodes=answer.par.nodes)  # one table serves both
        assert answer.solution == solve(position_of(start))
        assert (table.points, table.tricks) == (live.points, live.tricks)
        expected = score_round(
            replace(score.facts, card_abnat=table.points, tricks_won=table.tricks), rules
        )
        assert table.score == expected
        # Any later card of the round: the solver's value along the recorded play.
        later = played_out(tricks, finished.contract, rules, 13)
        assert later.trick == tricks[3][1][:1]
        assert sum(later.tricks_won) == 3
        assert solve(later).values


def _sun_bought_by_the_dealer_s_right(rng: random.Random, rules: RuleSet) -> list[State]:
    """A round of ``rules`` where the dealer's right buys Sun (the others pass, nobody doubles)
    and every card is played at random: its state at each trick's start, then at its end
    (empty when the bidding ended otherwise)."""
    dealer = rng.randrange(4)
    deck = list(range(32))
    rng.shuffle(deck)
    state, _ = apply(new_match(rules, dealer=dealer), dealer, Deal(tuple(deck)))
    while state.phase in (Phase.BIDDING, Phase.DOUBLING):
        seat = state.turn
        legal = legal_actions(state, seat)
        wanted = (Bid(BidKind.SUN), Bid(BidKind.PASS), Doubling(DoublingCall.DECLINE))
        state, _ = apply(state, seat, next(a for a in wanted if a in legal))
    contract = state.contract
    if state.phase is not Phase.PLAYING or contract is None or not contract.is_sun:
        return []
    states = []
    while state.phase is Phase.PLAYING:
        if not state.trick:
            states.append(state)
        seat = state.turn
        state, _ = apply(state, seat, rng.choice(legal_actions(state, seat)))
    if state.phase is Phase.ROUND_REVIEW:
        state, _ = close_review(state)
    return [*states, state]


def test_the_par_of_a_finished_round_is_a_reverse_kaboot_where_the_rules_core_says() -> None:
    # R43 on: rounds whose buyer, the dealer's right holding an Ace, took no trick. From each of
    # their last trick starts, the par of the round rebuilt from its tricks (the solver decides
    # the reverse kaboot) is the rules core's score of the par's line played from the real
    # state (the core decides it), reverse kaboot or not.
    rules = RULE_SETS["seeds"].replace(reverse_kaboot=True)
    rng = random.Random(43)
    rounds = reversed_pars = 0
    while rounds < 3:
        states = _sun_bought_by_the_dealer_s_right(rng, rules)
        if not states:
            continue
        finished = states[-1]
        score = finished.last_score
        assert score is not None
        assert finished.contract is not None
        if not score.facts.reverse_kaboot:
            continue
        rounds += 1
        tricks = [(t.leader, t.cards) for t in finished.tricks]
        dealer = states[0].dealer
        for index in range(4, 8):
            answer = answer_played_out(
                tricks,
                dealer,
                score.facts,
                finished.contract,
                rules,
                4 * index,
                now_plus(HANG_GUARD),
            )
            replay = states[index]
            for seat, action in answer.par.line:
                replay, _ = apply(replay, seat, action)
            if replay.phase is Phase.ROUND_REVIEW:
                replay, _ = close_review(replay)
            assert replay.last_score == answer.par.score, (rounds, index)
            reversed_pars += answer.par.score.facts.reverse_kaboot
    # From the last trick's start the par is the recorded play: a reverse kaboot each round.
    assert reversed_pars >= 3


def test_a_round_not_played_out_has_no_position() -> None:
    state = first_lead(0, RULE_SETS["seeds"])
    assert state.contract is not None
    with pytest.raises(ValueError, match="eighth trick"):
        played_out([], state.contract, state.rules)


def test_the_work_of_a_search_does_not_depend_on_what_was_solved_before() -> None:
    # A seeded bot counts the solver's nodes as work: the same search tries the same number of
    # cards whatever the process solved before it, other deals or the same cards again (whose
    # entries fill the same buckets of the table).
    rules = RULE_SETS["seeds"]
    position = position_of(first_lead(11, rules))
    first = solve(position).nodes
    for seed in range(3):
        solve(position_of(first_lead(20 + seed, rules)))
        assert solve(position).nodes == first


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10**9), rules_name=st.sampled_from(sorted(RULE_SETS)))
def test_some_actions_and_a_deal_s_value_are_those_of_the_whole_solution(
    seed: int, rules_name: str
) -> None:
    # solve_some values any subset of the legal actions as solve values them all, and
    # deal_value, at a trick's start, is the value of the best of them.
    rules = RULE_SETS[rules_name]
    position = end_position(seed, 5, 0, rules)
    solution = solve(position)
    plays = [v.play for v in solution.values]
    wanted = [i for i in range(len(plays)) if (seed >> i) & 1] or [len(plays) - 1]
    some = solve_some(position, plays, wanted)
    assert sorted(some) == wanted
    assert all(some[i] == solution.values[i] for i in wanted)
    best = solution.best_value
    assert deal_value(position) == (best.points, best.tricks)
    with pytest.raises(ValueError, match="trick's start"):
        deal_value(position.after(best.play))
