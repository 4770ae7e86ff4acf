"""Every way a state is impossible: :func:`validate`, over the whole :class:`State`.

A decoded token is checked here before anything reads it (``api/state_codec.py``), so a
forged state is refused as STATE_INVALID, never met by the rules as a crash.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from baloot_engine.rules.actions import DoublingCall
from baloot_engine.rules.cards import (
    FULL_DECK,
    KING_QUEEN,
    LAST_TRICK_BONUS,
    POINTS,
    format_card,
    trick_winner_index,
)
from baloot_engine.rules.contract import Contract, team_of
from baloot_engine.rules.members import (
    AWAITING_DEAL,
    BIDDING,
    CONTRACT_HOKM,
    CONTRACT_SUN,
    DOUBLING,
    DOUBLING_STEP_NONE,
    MATCH_OVER,
    PLAYING,
    ROUND_OVER,
    ROUND_REVIEW,
)
from baloot_engine.rules.projects import compare_declarations
from baloot_engine.rules.ruleset import ClosedChooser
from baloot_engine.rules.state import (
    EMPTY_DECLARATIONS,
    LIVE_PHASES,
    BidStage,
    DoublingStep,
    Phase,
    State,
    declared_projects,
)


def _seat_problems(name: str, seat: int, allow_none: bool) -> list[str]:
    if allow_none and seat == -1:
        return []
    if not 0 <= seat <= 3:
        return [f"{name} must be a seat 0-3, got {seat}"]
    return []


MAX_HAND_NUMBER: Final = 2**31 - 1
"""The most hands a match can have dealt (a bound far beyond any real match)."""

MAX_MATCH_SCORE: Final = 100_000
"""The highest match score a team can hold: a target is at most 10 000 and a round adds a few
hundred points at most."""

MAX_BIDS: Final = 32
"""The most bids a round can hold (two laps of four, a confirmation, the «قبلك» questions)."""

MAX_DOUBLING_CALLS: Final = 16
"""The most doubling calls a round can hold (Double, Triple, Four, Gahwa, declines, the mode)."""


def validate(state: State) -> list[str]:
    """List every way ``state`` is impossible (empty when it is consistent).

    Like python-chess's ``status()``, every violation is reported at once so that a
    corrupted or forged state can be refused with a complete explanation. The checks are
    the functions of :data:`CHECKS`, one concern each: the range of every field first, then
    what each phase leaves empty or requires, then the cards, the contract and the play. A
    new field gets its range in :func:`_field_problems` and its place in
    :func:`_phase_problems`.
    """
    problems = _field_problems(state)
    if problems:
        # The other checks index tables with these fields: out of range, they stop here.
        return problems
    for check in CHECKS:
        problems += check(state)
    return problems


def _field_problems(state: State) -> list[str]:
    """The range of every field on its own, whatever the phase.

    ``validate`` runs on every call of the service, so the common case (every field in range)
    is written to cost little: each seat is one chained comparison before its message is
    built, and a tuple's values are bounded by its ``min`` and ``max`` rather than a generator.
    """
    problems: list[str] = []
    if not isinstance(state.phase, Phase):
        return [f"unknown phase {state.phase!r}"]
    if not 0 <= state.dealer <= 3:
        problems += _seat_problems("dealer", state.dealer, False)
    if not -1 <= state.turn <= 3:
        problems += _seat_problems("turn", state.turn, True)
    if not 0 <= state.hand_number <= MAX_HAND_NUMBER:
        problems.append(f"hand_number must be 0-{MAX_HAND_NUMBER}, got {state.hand_number}")
    match_scores = state.match_scores
    if len(match_scores) != 2:
        problems.append("match scores must be two numbers")
    elif min(match_scores) < 0:
        problems.append("match scores must not be negative")
    elif max(match_scores) > MAX_MATCH_SCORE:
        problems.append(f"match scores must be at most {MAX_MATCH_SCORE}")
    hands = state.hands
    if len(hands) != 4 or min(hands) < 0 or max(hands) > FULL_DECK:
        problems.append("hands must be four card masks")
    stock = state.stock
    if len(stock) > 32 or (stock and (min(stock) < 0 or max(stock) >= 32)):
        problems.append("the stock holds a card out of range")
    if not -1 <= state.revealed < 32:
        problems.append(f"revealed card out of range: {state.revealed}")
    if not -1 <= state.buy_card < 32:
        problems.append(f"buy card out of range: {state.buy_card}")
    if state.bidding_round not in (0, 1, 2):
        problems.append(f"bidding_round must be 0-2, got {state.bidding_round}")
    to_ask = state.to_ask
    if len(to_ask) > 4 or len(set(to_ask)) != len(to_ask):
        problems.append("the seats to ask must be distinct, four at most")
    elif to_ask and (min(to_ask) < 0 or max(to_ask) > 3):
        problems.append("the seats to ask must be seats 0-3")
    if len(state.bids) > MAX_BIDS:
        problems.append(f"a hand holds at most {MAX_BIDS} bids")
    for record in state.bids:
        if not (0 <= record.seat <= 3 and record.bidding_round in (1, 2)):
            problems.append("a bid has a seat or bidding round out of range")
        if not -1 <= record.bid.suit <= 3:
            problems.append("a bid names a suit out of range")
    if not -1 <= state.pending_seat <= 3:
        problems += _seat_problems("pending_seat", state.pending_seat, True)
    if not -1 <= state.pending_suit <= 3:
        problems.append(f"pending_suit must be -1-3, got {state.pending_suit}")
    if len(state.doubling_calls) > MAX_DOUBLING_CALLS:
        problems.append(f"a hand holds at most {MAX_DOUBLING_CALLS} doubling calls")
    for call in state.doubling_calls:
        if not 0 <= call.seat <= 3:
            problems += _seat_problems("a doubling call's seat", call.seat, False)
    full_hands = state.full_hands
    if len(full_hands) != 4 or min(full_hands) < 0 or max(full_hands) > FULL_DECK:
        problems.append("full hands must be four card masks")
    if not -1 <= state.leader <= 3:
        problems += _seat_problems("leader", state.leader, True)
    trick = state.trick
    if len(trick) > 3:
        problems.append("a trick in progress holds at most 3 cards")
    if trick and (min(trick) < 0 or max(trick) >= 32):
        problems.append("the trick holds a card out of range")
    if len(state.tricks) > 8:
        problems.append("a round has at most 8 tricks")
    for completed in state.tricks:
        if not 0 <= completed.leader <= 3 or not 0 <= completed.winner <= 3:
            problems.append("a completed trick has a seat out of range")
        cards = completed.cards
        if len(cards) != 4 or min(cards) < 0 or max(cards) >= 32:
            problems.append("a completed trick needs four cards 0-31")
    if not 0 <= state.played <= FULL_DECK:
        problems.append("the played cards are not a card mask")
    abnat = state.abnat
    if len(abnat) != 2 or min(abnat) < 0 or sum(abnat) > 162:
        problems.append("abnat must be two numbers within the deck's 162")
    if len(state.declarations) != 4:
        problems.append("declarations must have one entry per seat")
    if state.project_team not in (-1, 0, 1):
        problems.append(f"project_team must be -1, 0 or 1, got {state.project_team}")
    if not -1 <= state.baloot_seat <= 3:
        problems += _seat_problems("baloot_seat", state.baloot_seat, True)
    if not -1 <= state.sawa_seat <= 3:
        problems += _seat_problems("sawa_seat", state.sawa_seat, True)
    if state.winner not in (-1, 0, 1):
        problems.append(f"winner must be -1, 0 or 1, got {state.winner}")
    return problems


def _phase_problems(state: State) -> list[str]:
    """What each phase requires, and the fields it leaves at their empty values."""
    problems: list[str] = []
    phase = state.phase
    live = phase in LIVE_PHASES
    if phase is not AWAITING_DEAL and state.hand_number < 1:
        problems.append(f"phase {phase.value} needs a dealt hand")
    if phase is not BIDDING:
        # The buyer's last cards wait while doubling (R16 variant): the buy card with them.
        if state.revealed != -1 and (phase is not DOUBLING or state.buyer_completed):
            problems.append(f"no card lies face up in phase {phase.value}")
        if state.bid_stage is not BidStage.NONE:
            problems.append(f"no bidding stage in phase {phase.value}")
        if state.pending_seat != -1 or state.pending_suit != -1 or state.pending_ashkal:
            problems.append(f"no pending bid in phase {phase.value}")
    elif state.revealed != state.buy_card or state.revealed < 0:
        problems.append("the face-up card is the hand's buy card while bidding")
    elif state.bid_stage is BidStage.NONE:
        problems.append("bidding needs a stage")
    if phase is not DOUBLING and state.doubling_step is not DOUBLING_STEP_NONE:
        problems.append(f"no doubling step in phase {phase.value}")
    if phase is DOUBLING:
        if state.doubling_step is DOUBLING_STEP_NONE:
            problems.append("doubling needs a step")
        if not state.to_ask or state.turn != state.to_ask[0]:
            problems.append("the seat on turn must be the first seat to ask")
    elif phase is not BIDDING and state.to_ask:
        problems.append(f"no seat is asked in phase {phase.value}")
    review = phase is ROUND_REVIEW
    if phase is not PLAYING and not review:
        if state.leader != -1 or state.trick or state.akka:
            problems.append(f"no trick is in progress in phase {phase.value}")
        if state.declarations != EMPTY_DECLARATIONS or state.project_team != -1:
            problems.append(f"no projects are declared in phase {phase.value}")
        if state.baloot_announced or state.baloot_seat != -1:
            problems.append(f"no Baloot is held in phase {phase.value}")
        if state.full_hands != (0, 0, 0, 0):
            problems.append(f"no hands are in play in phase {phase.value}")
    elif phase is PLAYING and state.sawa_seat != -1:
        problems.append("a Sawa claim ends the round")
    if review:
        # The hand's bids and cards stay for the review; _review_problems checks the rest.
        if state.bidding_round not in (1, 2) or state.buy_card < 0 or not state.buyer_completed:
            problems.append("a round under review keeps its bidding round and buy card")
    elif live:
        if state.bidding_round not in (1, 2):
            problems.append(f"bidding_round must be 1 or 2 in phase {phase.value}")
        if state.buy_card < 0:
            problems.append(f"phase {phase.value} needs the hand's buy card")
        if state.turn == -1:
            problems.append(f"a seat is on turn in phase {phase.value}")
        if not state.buyer_completed and phase is not DOUBLING:
            problems.append("the buyer waits for his last cards only while doubling")
    else:
        if state.bidding_round != 0 or state.bids or state.doubling_calls:
            problems.append(f"no bids or doubling calls are kept in phase {phase.value}")
        if not state.buyer_completed:
            problems.append(f"no buyer waits for cards in phase {phase.value}")
        expected_turn = -1 if phase is MATCH_OVER else state.dealer
        if state.turn != expected_turn:
            problems.append(f"the seat on turn must be {expected_turn} in phase {phase.value}")
    if (phase is AWAITING_DEAL or phase is BIDDING or phase is DOUBLING) and (
        state.tricks or state.played or state.abnat != (0, 0)
    ):
        problems.append(f"no trick has been played in phase {phase.value}")
    if phase is AWAITING_DEAL:
        if state.contract is not None or state.buy_card != -1 or state.sawa_seat != -1:
            problems.append("nothing of a round is kept while awaiting the deal")
    elif phase is ROUND_OVER or phase is MATCH_OVER:
        if state.contract is None or state.last_score is None:
            problems.append(f"phase {phase.value} keeps the contract and score of the round")
        played = 0
        for record in state.tricks:
            for card in record.cards:
                played |= 1 << card
        if played != state.played:
            problems.append("the played cards are not the cards of the tricks")
    elif phase is BIDDING and state.contract is not None:
        problems.append("no contract is fixed while bidding")
    if phase is MATCH_OVER:
        if state.winner not in (0, 1):
            problems.append("a finished match needs a winning team")
    elif state.winner != -1:
        problems.append("only a finished match has a winner")
    return problems


def _score_problems(state: State) -> list[str]:
    """The match score against the target: a match goes on only while nobody has won."""
    if state.phase is MATCH_OVER:
        return []
    if state.rules.match_goes_on(state.match_scores):
        return []
    return ["a team at or over the target has won the match"]


def _cards_and_contract_problems(state: State) -> list[str]:
    problems: list[str] = []
    phase = state.phase
    hands = state.hands
    contract = state.contract
    review = phase is ROUND_REVIEW
    if phase is PLAYING or phase is BIDDING or phase is DOUBLING or review:
        problems += _card_problems(state)
    elif hands != (0, 0, 0, 0) or state.stock or state.trick:
        problems.append(f"no cards may be out in phase {phase.value}")
    if contract is None:
        if phase is PLAYING or phase is DOUBLING or review:
            problems.append(f"phase {phase.value} needs a contract")
    else:
        problems += _contract_problems(contract)
        if phase is PLAYING or phase is DOUBLING:
            problems += _contract_in_hand_problems(state, contract)
        if phase is DOUBLING:
            problems += _doubling_problems(state, contract)
    if phase is PLAYING:
        problems += _play_problems(state)
    elif review:
        problems += _review_problems(state)
        problems += _baloot_problems(state)
    elif phase is BIDDING:
        if any(h.bit_count() != 5 for h in hands):
            problems.append("every hand holds 5 cards while bidding")
        if not state.to_ask:
            problems.append("bidding needs a seat to ask")
        elif state.turn != state.to_ask[0]:
            problems.append("the seat on turn must be the first seat to ask")
    elif phase is DOUBLING:
        sizes = sorted(h.bit_count() for h in hands)
        if sizes != ([5, 8, 8, 8] if not state.buyer_completed else [8, 8, 8, 8]):
            problems.append("every hand holds 8 cards while doubling (the buyer 5 if waiting)")
    if state.violations and not state.rules.illegal_moves_allowed:
        problems.append("only table play records violations")
    return problems


def _review_problems(state: State) -> list[str]:
    """A round under review (§A.14): eight tricks played, or a Sawa claimed, and nobody on turn."""
    problems: list[str] = []
    if not state.rules.illegal_moves_allowed:
        problems.append("only table play reviews a round")
    if state.trick or state.turn != -1:
        problems.append("a round under review has no trick in progress and nobody on turn")
    if state.sawa_seat < 0 and (len(state.tricks) != 8 or any(state.hands)):
        problems.append("a round under review has eight tricks or a Sawa claim")
        return problems
    problems += _project_team_problems(state, compared=True)
    # The abnat the review scores: the tricks', and the 10 of the last trick (R33) to its
    # winner, or to a Sawa claim's team with every card left in the hands.
    abnat, follows = _tricks_problems(state, problems)
    if state.sawa_seat >= 0:
        contract = state.contract
        table = POINTS[(-1 if contract is None else contract.trump) + 1]
        rest = state.hands[0] | state.hands[1] | state.hands[2] | state.hands[3]
        abnat[state.sawa_seat & 1] += sum(table[c] for c in range(32) if rest >> c & 1)
        abnat[state.sawa_seat & 1] += LAST_TRICK_BONUS
    else:
        abnat[follows & 1] += LAST_TRICK_BONUS
    if (abnat[0], abnat[1]) != state.abnat:
        problems.append("the abnat won are not the points of the tricks won")
    return problems


CHECKS: Final[tuple[Callable[[State], list[str]], ...]] = (
    _phase_problems,
    _score_problems,
    _cards_and_contract_problems,
)
"""The checks of :func:`validate` after the field ranges, in order."""


def _card_problems(state: State) -> list[str]:
    problems: list[str] = []
    seen = 0
    overlap = 0
    pieces = [*state.hands, state.played]
    for card in (*state.stock, *state.trick):
        if not 0 <= card < 32:
            problems.append(f"card index out of range: {card}")
            return problems
        pieces.append(1 << card)
    revealed = state.revealed
    if revealed != -1:
        if not 0 <= revealed < 32:
            return [*problems, f"revealed card out of range: {revealed}"]
        pieces.append(1 << revealed)
    for piece in pieces:
        if piece < 0 or piece > FULL_DECK:
            problems.append("a card mask is out of range")
            return problems
        overlap |= seen & piece
        seen |= piece
    if overlap:
        cards = " ".join(format_card(c) for c in range(32) if overlap >> c & 1)
        problems.append(f"cards in two places: {cards}")
    if seen != FULL_DECK:
        missing = " ".join(format_card(c) for c in range(32) if not seen >> c & 1)
        problems.append(f"cards missing: {missing}")
    return problems


def _contract_problems(contract: Contract) -> list[str]:
    problems = _seat_problems("buyer", contract.buyer, False)
    if contract.type is CONTRACT_SUN:
        if contract.trump != -1:
            problems.append("a Sun contract has no trump")
        if contract.multiplier not in (1, 2) or contract.gahwa:
            problems.append("a Sun contract can only be doubled once")
    else:
        if not 0 <= contract.trump <= 3:
            problems.append("a Hokm contract needs a trump suit 0-3")
        if contract.multiplier not in (1, 2, 3, 4):
            problems.append("multiplier must be 1-4")
        if contract.gahwa and contract.multiplier != 4:
            problems.append("Gahwa follows Four")
    return problems


def _contract_in_hand_problems(state: State, contract: Contract) -> list[str]:
    """What the bidding and doubling of this hand could not have produced."""
    problems: list[str] = []
    rules = state.rules
    if contract.ashkal and contract.buyer not in (state.dealer, (state.dealer + 3) & 3):
        problems.append("only the dealer or the dealer's left can call Ashkal")
    kind = contract.type
    if kind is CONTRACT_HOKM and state.buy_card >= 0:
        revealed_suit = state.buy_card >> 3
        if contract.bidding_round == 1 and contract.trump != revealed_suit:
            problems.append("a first-round Hokm is in the revealed card's suit")
        if contract.bidding_round == 2 and contract.trump == revealed_suit:
            problems.append("a second-round Hokm is not in the revealed card's suit")
    closed = contract.closed
    if closed and (kind is CONTRACT_SUN or contract.multiplier < 2):
        problems.append("only a doubled Hokm can be closed")
    if contract.gahwa and closed and rules.gahwa_forces_open:
        problems.append("a Gahwa is played open")
    if (
        kind is CONTRACT_SUN
        and contract.multiplier == 2
        and not rules.sun_double_allowed(state.match_scores, contract.buyer_team)
    ):
        problems.append("this Sun could not be doubled at these match scores")
    return problems


_STEP_LEVEL: Final = {
    DoublingStep.DOUBLE: 1,
    DoublingStep.TRIPLE: 2,
    DoublingStep.FOUR: 3,
    DoublingStep.GAHWA: 4,
}
"""The multiplier a contract has while each raise of the chain is asked (R13)."""
_RAISES: Final = (DoublingCall.DOUBLE, DoublingCall.TRIPLE, DoublingCall.FOUR)


def _doubling_problems(state: State, contract: Contract) -> list[str]:
    """The step asked, the seats asked and the calls made must be the chain's (R13-R16)."""
    problems: list[str] = []
    step = state.doubling_step
    asked = state.to_ask
    if len(set(asked)) != len(asked):
        problems.append("a seat is asked once")
    if step is DoublingStep.CHOOSE_MODE:
        if (
            state.rules.closed_chooser is not ClosedChooser.BUYER
            or contract.is_sun
            or contract.multiplier < 2
            or asked != (contract.buyer,)
        ):
            problems.append("only the buyer of a doubled Hokm names its mode, as the rules say")
        return problems
    level = _STEP_LEVEL.get(step)
    if level is None:
        return problems  # DOUBLING_STEP_NONE: _phase_problems refuses it
    if contract.multiplier != level or contract.gahwa:
        problems.append(f"the {step.value} step is asked of a contract at x{level}")
    if contract.is_sun and step is not DoublingStep.DOUBLE:
        problems.append("a Sun can only be doubled")
    if contract.is_sun and not state.rules.sun_double_allowed(
        state.match_scores, contract.buyer_team
    ):
        problems.append("this Sun could not be doubled at these match scores")
    buyers = step is DoublingStep.TRIPLE or step is DoublingStep.GAHWA
    team = contract.buyer_team if buyers else 1 - contract.buyer_team
    if any(team_of(seat) != team for seat in asked):
        side = "buying" if buyers else "defending"
        problems.append(f"the {step.value} step is asked of the {side} team")
    raises = [r for r in state.doubling_calls if r.call.call in _RAISES]
    if [r.call.call for r in raises] != list(_RAISES[: level - 1]):
        problems.append(f"the raises made do not lead to the {step.value} step")
    elif any(
        team_of(r.seat) != (contract.buyer_team if i % 2 else 1 - contract.buyer_team)
        for i, r in enumerate(raises)
    ):
        problems.append("each raise is made by the team whose step it is")
    elif (
        step is DoublingStep.FOUR
        and state.rules.four_by_doubler_only
        and asked != (raises[0].seat,)
    ):
        problems.append("Four is asked of the player who doubled")
    return problems


def _tricks_problems(state: State, problems: list[str]) -> tuple[list[int], int]:
    """Check the completed tricks (distinct cards, each led by the winner of the one before,
    each naming its winner, together the played cards) into ``problems``; the abnat each team
    took in them and the seat the last one leaves on lead."""
    tricks = state.tricks
    contract = state.contract
    trump = -1 if contract is None else contract.trump
    table = POINTS[trump + 1]
    abnat = [0, 0]
    played = 0
    follows = tricks[0].leader if tricks else state.leader
    for record in tricks:
        # Four cards 0-31 (checked by _field_problems): distinct when their mask has 4 bits.
        cards = record.cards
        first, second, third, fourth = cards
        mask = 1 << first | 1 << second | 1 << third | 1 << fourth
        if mask.bit_count() != 4:
            problems.append("a completed trick needs four distinct cards")
            continue
        if record.leader != follows:
            problems.append("each trick is led by the winner of the one before")
        winner = (record.leader + trick_winner_index(cards, trump)) & 3
        if record.winner != winner:
            problems.append("a completed trick names the wrong winner")
        follows = winner
        played |= mask
        abnat[winner & 1] += table[first] + table[second] + table[third] + table[fourth]
    if played != state.played:
        problems.append("the played cards are not the cards of the tricks")
    return abnat, follows


def _play_problems(state: State) -> list[str]:
    problems: list[str] = []
    tricks = state.tricks
    n_tricks = len(tricks)
    in_trick = len(state.trick)
    leader = state.leader
    if n_tricks > 7:
        problems.append("a round has at most 8 tricks")
    if not 0 <= leader <= 3:
        problems.append("play needs a leader")
        return problems
    if state.turn != (leader + in_trick) & 3:
        problems.append("the seat on turn does not follow the trick order")
    if state.stock:
        problems.append("no card is left in the stock during play")
    if state.buyer_completed:
        for seat, hand in enumerate(state.hands):
            size = hand.bit_count()
            expected = 8 - n_tricks - ((seat - leader) & 3 < in_trick)
            if size != expected:
                problems.append(f"seat {seat} holds {size} cards, expected {expected}")
    abnat, follows = _tricks_problems(state, problems)
    if tricks and leader != follows:
        problems.append("the winner of the last trick leads the next")
    if (abnat[0], abnat[1]) != state.abnat:
        problems.append("the abnat won are not the points of the tricks won")
    if state.akka and not state.trick:
        problems.append("an Akka is called on a led card")
    if state.project_team >= 0 and not tricks:
        problems.append("projects are compared once the first trick is over")
    else:
        # R28: compared at the first card of trick 2.
        compared = len(tricks) > 1 or (len(tricks) == 1 and bool(state.trick))
        problems += _project_team_problems(state, compared=compared)
    problems += _baloot_problems(state)
    return problems


def _project_team_problems(state: State, *, compared: bool) -> list[str]:
    """The team whose projects score is the one the declarations' comparison names (R29), once
    they were compared (R28; a state sealed at the end of trick 1, as an earlier version did,
    may hold it before)."""
    declared = declared_projects(state)
    winner = compare_declarations(declared, (state.dealer + 1) & 3) if any(declared) else None
    expected = -1 if winner is None else winner
    if state.project_team != expected and (compared or state.project_team >= 0):
        return ["the team whose projects score is not the one their comparison names"]
    return []


def _baloot_problems(state: State) -> list[str]:
    """The Baloot's holder and announcement, in play and under review: a Baloot is held only
    in Hokm, by the seat dealt the trump K and Q, and announced once both are played."""
    problems: list[str] = []
    trump = state.trump
    holder = -1
    if trump >= 0 and state.full_hands[0]:
        for seat in range(4):
            kq = KING_QUEEN[trump] & state.full_hands[seat]
            if kq.bit_count() == 2:
                holder = seat
        if holder != state.baloot_seat:
            problems.append("the Baloot holder does not match the hands")
    elif state.baloot_seat != -1:
        problems.append("a Baloot is held only in Hokm, by the seat with the trump K and Q")
    if holder >= 0:
        announced = not state.hands[holder] & KING_QUEEN[trump]
        if state.baloot_announced != announced:
            problems.append("Baloot is announced when its holder has played both its cards")
    elif state.baloot_announced:
        problems.append("Baloot is announced only by the holder of the trump K and Q")
    return problems
