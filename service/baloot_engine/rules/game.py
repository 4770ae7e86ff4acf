"""The two entry points of the rules core: ``legal_actions`` and ``apply``.

``legal_actions(state, seat)`` is the one definition of legality; ``apply(state, seat,
action)`` returns the next state and the events the action caused, or raises a
:class:`RuleError` with a stable reason and leaves nothing changed (states are immutable).
This module owns the phase machine: one table from each phase to its legal/apply pair,
and the transitions between phases (bidding → completion and doubling → play → scoring,
in table play through the review of the round, where Qayd calls are judged);
each phase's own rules live in its module (bidding, doubling, play, declaring, sawa,
qayd, match), and those modules never call one another (only Sawa's proof asks play which cards
may be played).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Final

from baloot_engine.rules import errors
from baloot_engine.rules.actions import (
    Action,
    Bid,
    CallQayd,
    ClaimSawa,
    Deal,
    Declare,
    Doubling,
    Event,
    EventKind,
    Play,
    QaydVerdict,
)
from baloot_engine.rules.bidding import apply_bid, legal_bids, start_bidding
from baloot_engine.rules.dealing import REVEALED_INDEX, check_deck, initial_hands
from baloot_engine.rules.declaring import (
    apply_declare,
    declare_automatically,
    legal_declarations,
    reveal_projects,
)
from baloot_engine.rules.doubling import apply_call, begin_contract, legal_calls
from baloot_engine.rules.errors import RuleError, malformed, not_your_turn
from baloot_engine.rules.match import finish_round, finish_scored
from baloot_engine.rules.members import (
    AWAITING_DEAL,
    BIDDING,
    DOUBLING,
    DOUBLING_STEP_NONE,
    MATCH_OVER,
    PLAYING,
    ROUND_OVER,
    ROUND_REVIEW,
)
from baloot_engine.rules.play import apply_play, legal_plays, start_play
from baloot_engine.rules.qayd import false_sawa_verdict, judge, penalty_facts, penalty_score
from baloot_engine.rules.ruleset import SEEDS, RuleSet
from baloot_engine.rules.sawa import apply_sawa, false_claim_of, sawa_possible
from baloot_engine.rules.state import Phase, State

BETWEEN_ROUNDS: Final = (Phase.AWAITING_DEAL, Phase.ROUND_OVER)
"""The phases between two rounds, where the dealer deals the next one."""
_CLAIM_SAWA = ClaimSawa()


def new_match(
    rules: RuleSet = SEEDS,
    dealer: int = 0,
    match_scores: tuple[int, int] = (0, 0),
) -> State:
    """Start a match: nothing dealt yet; ``dealer`` deals first.

    ``match_scores`` continues a match begun elsewhere (a recorded table game, a
    tournament stage); they must be below the target.
    """
    if not 0 <= dealer <= 3:
        raise malformed(errors.INVALID_SEAT, f"the first dealer must be a seat 0-3, got {dealer}")
    if any(score < 0 or score >= rules.match_target for score in match_scores):
        raise malformed(
            errors.INVALID_ACTION,
            f"starting match scores must be between 0 and {rules.match_target - 1}",
        )
    return State(rules=rules, dealer=dealer, match_scores=match_scores, turn=dealer)


def legal_actions(state: State, seat: int) -> list[Action]:
    """Every action ``seat`` may take now, sorted in the documented action order.

    Order: deal, bids, doubling calls, declarations, cards (ascending card index, each
    card followed by its Akka call where one fits), Sawa.
    """
    return _LEGAL[state.phase](state, seat)


def apply(state: State, seat: int, action: Action) -> tuple[State, tuple[Event, ...]]:
    """Apply ``action`` for ``seat`` and return the new state and the events it caused."""
    checked: object = seat
    if not isinstance(checked, int) or not 0 <= seat <= 3:
        raise malformed(errors.INVALID_SEAT, f"a seat is 0-3, got {seat!r}")
    phase = state.phase
    if phase is MATCH_OVER:
        raise RuleError(errors.MATCH_OVER, "the match is over")
    kind = type(action)
    step = _STEPS[phase].get(kind)
    if step is None:
        # An action of another phase: its own module refuses it with its own reason.
        step = _OUT_OF_PHASE.get(kind)
        if step is None:
            raise malformed(errors.INVALID_ACTION, f"not an action: {action!r}")
    new, events = step(state, seat, action)
    return new, tuple(events)


# ---------------------------------------------------------------------------------------
# The phase machine: each phase's legal/apply pair, and the transitions between phases.


def _legal_deal(state: State, seat: int) -> list[Action]:
    return [Deal(())] if seat == state.dealer else []


def _legal_bidding(state: State, seat: int) -> list[Action]:
    return list(legal_bids(state, seat))


def _legal_doubling(state: State, seat: int) -> list[Action]:
    return list(legal_calls(state, seat))


def _legal_playing(state: State, seat: int) -> list[Action]:
    actions = legal_plays(state, seat)
    if not state.tricks:
        actions[:0] = legal_declarations(state, seat)
    if not state.trick and sawa_possible(state, seat):
        actions.append(_CLAIM_SAWA)
    return actions


def _legal_nothing(_state: State, _seat: int) -> list[Action]:
    return []


def _apply_deal(state: State, seat: int, action: Deal) -> tuple[State, list[Event]]:
    return deal(state, seat, action.deck)


def _apply_bid(state: State, seat: int, bid: Bid) -> tuple[State, list[Event]]:
    """A bid; one that fixes the contract completes the deal and opens the doubling."""
    state, events = apply_bid(state, seat, bid)
    if state.phase is BIDDING and state.contract is not None:
        state, events = begin_contract(state, events)
        return _after_doubling_step(state, events)
    return state, events


def _apply_call(state: State, seat: int, call: Doubling) -> tuple[State, list[Event]]:
    state, events = apply_call(state, seat, call)
    return _after_doubling_step(state, events)


def _after_doubling_step(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """The doubling chain is over (or never opened): play starts, declarations with it."""
    if state.doubling_step is not DOUBLING_STEP_NONE:
        return state, events
    state, events = start_play(state, events)
    if state.rules.auto_declare_projects:
        state = declare_automatically(state, events)
    return state, events


def _before_comparison(state: State) -> bool:
    """Are the declarations still to be compared (R28: at the first card of trick 2)?

    A state in which they were already shown (``project_team`` set, as a state sealed by an
    earlier version at the end of trick 1 may be) is never compared twice.
    """
    if state.project_team >= 0:
        return False
    return not state.tricks or (len(state.tricks) == 1 and not state.trick)


def _apply_play(state: State, seat: int, play: Play) -> tuple[State, list[Event]]:
    """A card; the first card of trick 2 reveals the projects (R28, R29), the eighth trick
    ends the round."""
    compare = len(state.tricks) == 1 and _before_comparison(state)  # the first card of trick 2
    state, events = apply_play(state, seat, play)
    if compare:
        state = reveal_projects(state, events)
    elif not state.trick and len(state.tricks) == 8:  # the card completed the last trick
        return _end_of_play(state, events)
    return state, events


def _end_of_play(state: State, events: list[Event]) -> tuple[State, list[Event]]:
    """The round is played out: scored at once, or in table play reviewed first (§A.14)."""
    if not state.rules.illegal_moves_allowed:
        sawa_tricks = 8 - len(state.tricks) if state.sawa_seat >= 0 else 0
        return finish_round(state, events, sawa_tricks=sawa_tricks)
    events.append(Event(EventKind.REVIEW_OPENED))
    return state._replace(phase=ROUND_REVIEW, turn=-1), events


def _apply_sawa(state: State, seat: int, claim: ClaimSawa) -> tuple[State, list[Event]]:
    """An accepted Sawa ends the round: its remaining tricks go to the claiming team."""
    compare = _before_comparison(state)
    state, events = apply_sawa(state, seat, claim)
    if compare:
        # The round ends before the first card of trick 2: compare the declarations now (R29).
        state = reveal_projects(state, events)
    false_claim = false_claim_of(state)
    if false_claim is not None:
        # false_sawa = loses_hand outside table play: judged at once, in public.
        verdict = false_sawa_verdict(seat, false_claim.trick, false_claim.evidence)
        return _penalty(state, events, verdict)
    return _end_of_play(state, events)


def _apply_qayd(state: State, seat: int, call: CallQayd) -> tuple[State, list[Event]]:
    """A Qayd call (R45, §A.14): judged at once; a verdict with a winner ends the round."""
    verdict = judge(state, seat, call)  # under qayd_false_call = no_penalty a wrong call is refused
    if _before_comparison(state) and state.phase is PLAYING:
        # The round ends before the first card of trick 2: compare the declarations first (R29).
        events: list[Event] = []
        state = reveal_projects(state, events)
        return _penalty(state, events, verdict)
    return _penalty(state, [], verdict)


def _verdict_event(verdict: QaydVerdict) -> Event:
    return Event(
        EventKind.QAYD_JUDGED,
        seat=verdict.caller,
        team=verdict.winner_team,
        card=verdict.card,
        qayd=verdict,
    )


def _penalty(state: State, events: list[Event], verdict: QaydVerdict) -> tuple[State, list[Event]]:
    """The verdict ends the round: its winner scores as a failed contract's defenders (§A.14)."""
    events.append(_verdict_event(verdict))
    score = penalty_score(penalty_facts(state, verdict), state.rules, verdict)
    return finish_scored(state, events, score, verdict)


def close_review(state: State) -> tuple[State, list[Event]]:
    """End the review of a table-play round (the host's call, e.g. on a timeout): score it."""
    if state.phase is not ROUND_REVIEW:
        raise RuleError(
            errors.REVIEW_NOT_OPEN,
            f"no round is under review in phase {state.phase.value}",
        )
    sawa_tricks = 8 - len(state.tricks) if state.sawa_seat >= 0 else 0
    return finish_round(state, [], sawa_tricks=sawa_tricks)


_Legal = Callable[[State, int], list[Action]]
_Step = Callable[[State, int, Any], tuple[State, list[Event]]]

_DEALING: tuple[_Legal, dict[type, _Step]] = (_legal_deal, {Deal: _apply_deal})
_PHASES: dict[Phase, tuple[_Legal, dict[type, _Step]]] = {
    AWAITING_DEAL: _DEALING,
    BIDDING: (_legal_bidding, {Bid: _apply_bid}),
    DOUBLING: (_legal_doubling, {Doubling: _apply_call}),
    PLAYING: (
        _legal_playing,
        {Play: _apply_play, Declare: apply_declare, ClaimSawa: _apply_sawa, CallQayd: _apply_qayd},
    ),
    ROUND_OVER: _DEALING,
    MATCH_OVER: (_legal_nothing, {}),
    ROUND_REVIEW: (_legal_nothing, {CallQayd: _apply_qayd}),
}
"""Each phase: who may do what (``legal_actions``), and the step of each action it takes."""
# The two halves of the table, for one dictionary lookup per call.
_LEGAL = {phase: legal for phase, (legal, _) in _PHASES.items()}
_STEPS = {phase: steps for phase, (_, steps) in _PHASES.items()}

# The actions of the other phases: each one's module refuses it outside its phase.
_OUT_OF_PHASE: dict[type, _Step] = {
    Deal: _apply_deal,
    Bid: apply_bid,
    Doubling: apply_call,
    Play: apply_play,
    Declare: apply_declare,
    ClaimSawa: apply_sawa,
    CallQayd: _apply_qayd,
}


def deal(state: State, seat: int, deck: Sequence[int]) -> tuple[State, list[Event]]:
    """Deal a round (R4a-b) from a deck order and open the bidding.

    Only the dealer deals; the API layer lets the host deal on his behalf.
    """
    if state.phase not in BETWEEN_ROUNDS:
        raise RuleError(errors.WRONG_PHASE, f"cannot deal in phase {state.phase.value}")
    if seat != state.dealer:
        raise not_your_turn(state.dealer, seat, "deal")
    cards = check_deck(deck)
    revealed = cards[REVEALED_INDEX]
    dealt = start_bidding(
        state, initial_hands(cards, state.dealer), cards[REVEALED_INDEX + 1 :], revealed
    )
    events = [Event(EventKind.CARDS_DEALT, cards=(5, 5, 5, 5), card=revealed, seat=state.dealer)]
    return dealt, events


def bot_turn(state: State, seat: int) -> bool:
    """Check that ``seat`` is the one whose action the match waits for (the dealer between
    rounds, else the seat on turn; once the match is over the action itself is refused);
    True between rounds, where that seat deals."""
    between = state.phase in BETWEEN_ROUNDS
    on_turn = state.dealer if between else state.turn
    if state.phase is ROUND_REVIEW:
        raise errors.under_review(seat)
    if state.phase is not MATCH_OVER and seat != on_turn:
        raise not_your_turn(on_turn, seat)
    return between
