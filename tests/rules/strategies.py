"""Hypothesis strategies and random-play drivers: every strategy of the rules tests is here."""

from __future__ import annotations

import random

from hypothesis import strategies as st

from baloot_engine.rules import errors
from baloot_engine.rules.actions import Action, CallQayd, ClaimSawa, Deal, Event, Play, QaydCategory
from baloot_engine.rules.cards import CLUBS, DIAMONDS, HEARTS, SPADES, mask_of
from baloot_engine.rules.contract import NO_TRUMP, ContractType
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.facts import AwardedProject, RoundFacts
from baloot_engine.rules.game import apply, close_review, legal_actions, new_match
from baloot_engine.rules.projects import ProjectKind
from baloot_engine.rules.record import CLOSE_REVIEW, Entry, RecordedRound
from baloot_engine.rules.ruleset import (
    FEDERATION,
    KAMMELNA,
    SEEDS,
    BalootOnFailure,
    CardConversion,
    ClosedChooser,
    DoubledAllocation,
    DoubledTieRule,
    DoublingWindow,
    ExactTieRule,
    FirstLeader,
    HokmRounding,
    KabootDoubling,
    KabootProjects,
    Kawesh,
    PartnerWinningRule,
    ProjectMultiplier,
    RuleSet,
    SuccessMetric,
    SunPriorityClaim,
)
from baloot_engine.rules.state import Phase, State

decks = st.permutations(list(range(32))).map(tuple)
presets = st.sampled_from([SEEDS, KAMMELNA, FEDERATION])
seats = st.integers(min_value=0, max_value=3)

SIRA = ProjectKind.SIRA
FIFTY = ProjectKind.FIFTY
HUNDRED = ProjectKind.HUNDRED
FOUR_HUNDRED = ProjectKind.FOUR_HUNDRED

PLAYING_PHASES = (Phase.BIDDING, Phase.DOUBLING, Phase.PLAYING)


def random_deck(rng: random.Random) -> tuple[int, ...]:
    """A deck shuffled by a seeded RNG (tests only; the service uses the CSPRNG)."""
    deck = list(range(32))
    rng.shuffle(deck)
    return tuple(deck)


def choose(rng: random.Random, state: State) -> tuple[int, Action]:
    """Pick a random legal action of the seat on turn (a Sawa claim is not random play)."""
    seat = state.turn
    options = [a for a in legal_actions(state, seat) if not isinstance(a, ClaimSawa)]
    assert options, f"no legal action for seat {seat} in {state.phase}"
    return seat, rng.choice(options)


def play_match(rng: random.Random, rules: RuleSet, max_rounds: int = 200) -> list[State]:
    """Play a whole match with random legal actions; return every state passed through."""
    state = new_match(rules, dealer=rng.randrange(4))
    states = [state]
    dealt = 0
    while state.phase is not Phase.MATCH_OVER:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            dealt += 1
            assert dealt <= max_rounds, "the match does not end"
            state, _ = apply(state, state.dealer, Deal(random_deck(rng)))
        else:
            seat, action = choose(rng, state)
            state, _ = apply(state, seat, action)
        states.append(state)
    return states


def recorded_match(
    rng: random.Random, rules: RuleSet, max_rounds: int = 200
) -> tuple[State, list[RecordedRound], State]:
    """Play a whole match with random legal actions (Sawa claims now and then, kept when they
    hold) and return its start, its record (deck and actions per round) and its last state."""
    start = new_match(rules, dealer=rng.randrange(4))
    state = start
    rounds: list[RecordedRound] = []
    deck: tuple[int, ...] = ()
    actions: list[tuple[int, Action | RuleError]] = []
    while state.phase is not Phase.MATCH_OVER:
        assert len(rounds) <= max_rounds, "the match does not end"
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            if actions:
                rounds.append(RecordedRound(deck, tuple(actions)))
            deck, actions = random_deck(rng), []
            seat, action = state.dealer, Deal(())
            state, _ = apply(state, seat, Deal(deck))
            actions.append((seat, action))
            continue
        seat = state.turn
        options = legal_actions(state, seat)
        claims = [a for a in options if isinstance(a, ClaimSawa)]
        if claims and rng.random() < 0.3:
            try:
                state, _ = apply(state, seat, claims[0])
            except RuleError:
                pass
            else:
                actions.append((seat, claims[0]))
                continue
        seat, action = choose(rng, state)
        state, _ = apply(state, seat, action)
        actions.append((seat, action))
    rounds.append(RecordedRound(deck, tuple(actions)))
    return start, rounds, state


# --- rule sets varying the flags each part of the rules consults ---

bidding_rules = st.builds(
    SEEDS.replace,
    round1_hokm_reopens_to_all=st.booleans(),
    sun_priority_claim=st.sampled_from(SunPriorityClaim),
    ashkal_in_round2=st.booleans(),
    ashkal_forbidden_on_ace=st.booleans(),
    second_hokm_suit_at_confirm=st.booleans(),
    kawesh=st.sampled_from(Kawesh),
    kawesh_keeps_dealer=st.booleans(),
    ashkal_requires_pending_hokm=st.booleans(),
    ace_switch_dealer_right_only=st.booleans(),
    double_open_by_default=st.booleans(),
)


def _chain_rules(**flags: object) -> RuleSet:
    """SEEDS with doubling flags; triple_opens only where the doubler names the mode."""
    if flags.get("closed_chooser") is ClosedChooser.BUYER:
        flags["triple_opens"] = False
    return SEEDS.replace(**flags)


doubling_rules = st.builds(
    _chain_rules,
    buyer_steps_by_buyer_only=st.booleans(),
    closed_chooser=st.sampled_from(ClosedChooser),
    gahwa_forces_open=st.booleans(),
    doubling_window=st.sampled_from(DoublingWindow),
    four_by_doubler_only=st.booleans(),
    triple_opens=st.booleans(),
)


play_rules = st.builds(
    SEEDS.replace,
    undertrump_required=st.booleans(),
    partner_winning_rule=st.sampled_from(PartnerWinningRule),
    akka_requires_declaration=st.booleans(),
    overtrump_partner=st.booleans(),
    first_leader=st.sampled_from(FirstLeader),
    closed_chooser=st.sampled_from(ClosedChooser),
    gahwa_forces_open=st.booleans(),
    doubling_window=st.sampled_from(DoublingWindow),
    buyer_steps_by_buyer_only=st.booleans(),
)


hand_masks = st.lists(st.integers(0, 31), min_size=8, max_size=8, unique=True).map(mask_of)


trumps = st.sampled_from([NO_TRUMP, SPADES, HEARTS, DIAMONDS, CLUBS])


rule_sets = st.builds(
    lambda base, **flags: base.replace(**flags),
    base=st.sampled_from([SEEDS, KAMMELNA, FEDERATION]),
    card_conversion=st.sampled_from(CardConversion),
    doubled_tie_rule=st.sampled_from(DoubledTieRule),
    hokm_rounding=st.sampled_from(HokmRounding),
    exact_tie_rule=st.sampled_from(ExactTieRule),
    success_metric=st.sampled_from(SuccessMetric),
    doubled_allocation=st.sampled_from(DoubledAllocation),
    project_multiplier=st.sampled_from(ProjectMultiplier),
    baloot_on_failure=st.sampled_from(BalootOnFailure),
    baloot_in_success_test=st.booleans(),
    kaboot_doubling=st.sampled_from(KabootDoubling),
    kaboot_projects=st.sampled_from(KabootProjects),
    reverse_kaboot=st.booleans(),
)


@st.composite
def played_rounds(draw: st.DrawFn) -> RoundFacts:
    contract = draw(st.sampled_from(ContractType))
    sun = contract is ContractType.SUN
    trump = NO_TRUMP if sun else draw(st.integers(0, 3))
    deck = draw(st.permutations(range(32)))
    sweep = draw(st.sampled_from([None, None, None, 0, 1]))
    if sweep is None:
        winners = draw(st.lists(st.integers(0, 3), min_size=8, max_size=8))
    else:
        winners = draw(st.lists(st.sampled_from([sweep, sweep + 2]), min_size=8, max_size=8))
    tricks = [(deck[4 * i : 4 * i + 4], winners[i]) for i in range(8)]
    buyer = draw(st.integers(0, 1))
    kinds = [SIRA, FIFTY, HUNDRED, FOUR_HUNDRED] if sun else [SIRA, FIFTY, HUNDRED]
    owner = draw(st.integers(0, 1))
    drawn = draw(st.lists(st.sampled_from(kinds), max_size=4))
    if drawn.count(FOUR_HUNDRED) > 1:  # there are only four Aces
        drawn = [k for k in drawn if k is not FOUR_HUNDRED] + [FOUR_HUNDRED]
    projects = tuple(AwardedProject(owner, kind) for kind in drawn)
    baloot = () if sun else draw(st.sampled_from([(), (0,), (1,)]))
    multiplier = draw(st.integers(1, 2 if sun else 4))
    gahwa = not sun and multiplier == 4 and draw(st.booleans())
    buyer_tricks = sum(1 for seat in winners if seat & 1 == buyer)
    reverse = sun and buyer_tricks == 0 and draw(st.booleans())
    return RoundFacts.from_tricks(
        contract,
        trump,
        buyer,
        tricks,
        projects=projects,
        baloot_teams=baloot,
        multiplier=multiplier,
        gahwa=gahwa,
        reverse_kaboot=reverse,
    )


# --- table play (§A.14): seats that sometimes break a rule, opponents that call Qayd ---

TABLE_PRESETS = (SEEDS, KAMMELNA, FEDERATION)
"""The presets table play is tested under; a new preset goes here."""
TABLE_PRESET_NAMES = ("seeds", "kammelna", "federation")


def table_rules(base: RuleSet) -> RuleSet:
    """``base`` in table play, with Sawa claims allowed."""
    return base.replace(illegal_moves_allowed=True, sawa=True)


def table_step(
    rng: random.Random, state: State, *, cheat: float = 0.2, call: float = 0.05
) -> tuple[int, Action] | None:
    """One random step of a table-play round, or None for the host closing the review.

    The seat on turn plays any card it holds with probability ``cheat`` (else a legal
    action, Sawa claims included now and then); with probability ``call`` a random seat
    first calls Qayd on a random card of the other team played this round (right or wrong,
    with or without a category).
    """
    if state.phase is Phase.ROUND_REVIEW:
        if rng.random() < 0.5:
            return None
        qayd = _random_qayd(rng, state)
        return qayd if qayd is not None else None
    if state.phase is Phase.PLAYING and rng.random() < call:
        qayd = _random_qayd(rng, state)
        if qayd is not None:
            return qayd
    seat = state.turn
    options = legal_actions(state, seat)
    if state.phase is Phase.PLAYING and rng.random() < cheat:
        held = [c for c in range(32) if state.hands[seat] >> c & 1]
        card = rng.choice(held)
        # A false Akka only where an Akka is a call at all: a Hokm lead of a plain non-Ace.
        akka = (
            state.rules.akka_requires_declaration
            and not state.trick
            and 0 <= state.trump != card >> 3
            and card & 7 != 7
            and rng.random() < 0.3
        )
        return seat, Play(card, akka=akka)
    sawa = [a for a in options if isinstance(a, ClaimSawa)]
    if sawa and rng.random() < 0.1:
        return seat, sawa[0]
    return seat, rng.choice([a for a in options if not isinstance(a, ClaimSawa)])


def _random_qayd(rng: random.Random, state: State) -> tuple[int, Action] | None:
    played: list[tuple[int, int, int]] = []  # (seat, trick, card)
    for number, record in enumerate(state.tricks, start=1):
        for position, card in enumerate(record.cards):
            played.append(((record.leader + position) & 3, number, card))
    for position, card in enumerate(state.trick):
        played.append(((state.leader + position) & 3, len(state.tricks) + 1, card))
    if state.phase is Phase.ROUND_REVIEW and state.sawa_seat >= 0 and rng.random() < 0.3:
        accused = state.sawa_seat
        caller = (accused + rng.choice((1, 3))) & 3
        return caller, CallQayd(accused, len(state.tricks) + 1, -1, QaydCategory.FALSE_SAWA)
    if not played:
        return None
    # Prefer the cards that did break a rule half the time, so that right calls happen.
    broken = [(v.seat, v.trick, v.card) for v in state.violations if v.card >= 0]
    accused, trick, card = rng.choice(broken if broken and rng.random() < 0.5 else played)
    caller = (accused + rng.choice((1, 3))) & 3
    category = rng.choice([None, *QaydCategory]) if rng.random() < 0.5 else None
    if category is QaydCategory.FALSE_SAWA:
        category = None
    return caller, CallQayd(accused, trick, card, category)


def play_table_match(
    rng: random.Random,
    rules: RuleSet,
    max_rounds: int = 200,
    *,
    cheat: float = 0.2,
    call: float = 0.05,
) -> list[tuple[State, tuple[Event, ...]]]:
    """A whole table-play match of random steps (``cheat`` and ``call`` as in
    :func:`table_step`); every state with the events that led to it (a refused call leads to
    no state)."""
    state = new_match(rules, dealer=rng.randrange(4))
    steps: list[tuple[State, tuple[Event, ...]]] = [(state, ())]
    dealt = 0
    while state.phase is not Phase.MATCH_OVER:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            dealt += 1
            assert dealt <= max_rounds, "the match does not end"
            state, events = apply(state, state.dealer, Deal(random_deck(rng)))
        else:
            step = table_step(rng, state, cheat=cheat, call=call)
            if step is None:
                state, events = close_review(state)
            else:
                try:
                    state, events = apply(state, *step)
                except RuleError as error:
                    # qayd_false_call = no_penalty: a wrong call is refused, play goes on (§A.15).
                    assert error.reason == errors.QAYD_WRONG, error
                    continue
        steps.append((state, events))
    return steps


def recorded_table_match(
    rng: random.Random, rules: RuleSet, max_rounds: int = 200
) -> tuple[State, list[RecordedRound], State]:
    """A whole table-play match of random steps (see :func:`table_step`), as a record: its
    start, its rounds (the closes of reviews included) and its last state."""
    start = new_match(rules, dealer=rng.randrange(4))
    state = start
    rounds: list[RecordedRound] = []
    deck: tuple[int, ...] = ()
    actions: list[tuple[int, Entry | RuleError]] = []
    while state.phase is not Phase.MATCH_OVER:
        assert len(rounds) <= max_rounds, "the match does not end"
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            if actions:
                rounds.append(RecordedRound(deck, tuple(actions)))
            deck, actions = random_deck(rng), [(state.dealer, Deal(()))]
            state, _ = apply(state, state.dealer, Deal(deck))
            continue
        step = table_step(rng, state)
        if step is None:
            state, _ = close_review(state)
            actions.append((0, CLOSE_REVIEW))
        else:
            state, _ = apply(state, *step)
            actions.append(step)
    rounds.append(RecordedRound(deck, tuple(actions)))
    return start, rounds, state
