"""Card tracking: where the unseen cards can be, from what a seat knows, and sampling them.

A seat sees its own hand, the cards played and the revealed card. The cards it has not seen
are somewhere in the three other hands (and, before the deal is complete, in the stock). Each
card another seat played also tells what that seat did *not* hold: a player who did not follow
suit is void in it; a player who did not trump, or did not over-trump, holds no trump that the
rules would have forced him to play. These facts are found by asking the rules core itself:
``allowed_cards`` is anti-monotone in the hand (a card allowed from a hand stays allowed from
any smaller hand that still holds it), so if the card played would *not* have been allowed
from the two-card hand {card played, x}, the player cannot have held x. That inference is
sound by construction and follows every rule flag.

In table play (``illegal_moves_allowed``, §A.14) a seat may play any card it holds, so a card
that breaks no rule only from a void proves nothing: a seat that did not follow suit may have
revoked and still hold the suit. There the play tells nothing about the hands (a revoke makes
no void); only the cards seen (the revealed card with its taker, the projects shown) are known.

:func:`sample_hands` then deals the unseen cards to the other seats at random, respecting the
hand sizes, the cards known to be in a hand and the cards known not to be, so that each sample
is a world consistent with everything the seat knows (a determinization).
"""

from __future__ import annotations

import random
from typing import Final, NamedTuple

from baloot_engine.rules.cards import FULL_DECK, SUIT_MASKS
from baloot_engine.rules.declaring import declarable
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.play import allowed_cards
from baloot_engine.rules.state import Phase

_SUBSETS = tuple(range(1, 8))  # non-empty subsets of the three other seats, as 3-bit masks
_WIDTH = tuple(c.bit_count() for c in range(8))
_INSIDE = tuple((subset, tuple(c for c in _SUBSETS if c & ~subset == 0)) for subset in _SUBSETS)
"""Each subset of the other seats, with the classes of cards that can only go to it."""


class Tracker(NamedTuple):
    """Where the unseen cards can be, per seat (masks indexed by seat; the own seat is 0).

    ``unseen`` are the cards the seat has not seen; ``known[s]`` the unseen cards known to be
    in seat ``s``'s hand; ``excluded[s]`` the cards ``s`` cannot hold; ``sizes[s]`` how many
    cards ``s`` holds now (the cards still to come in a delayed deal included). ``own`` is the
    seat's own hand, with the revealed card when it is still to come to the seat, and
    ``own_missing`` the number of unseen cards still to come to it (a delayed deal, R16).
    """

    unseen: int
    known: tuple[int, int, int, int]
    excluded: tuple[int, int, int, int]
    sizes: tuple[int, int, int, int]
    own: int
    own_missing: int


def exclusions(obs: Observation) -> list[int]:
    """Cards each seat is known not to hold, from every card played this hand."""
    excluded = [0, 0, 0, 0]
    contract = obs.contract
    rules = obs.rules
    if contract is None or obs.phase is not Phase.PLAYING or rules.illegal_moves_allowed:
        # In table play a card that breaks a rule is accepted: what was played proves nothing.
        return excluded
    trump = contract.trump
    trump_mask = SUIT_MASKS[trump] if trump >= 0 else 0
    played = 0
    sequences: list[tuple[int, tuple[int, ...], bool]] = [
        (record.leader, record.cards, True) for record in obs.tricks
    ]
    sequences.append((obs.leader, obs.trick, obs.akka))
    for leader, cards, akka in sequences:
        for position, card in enumerate(cards):
            seat = (leader + position) & 3
            if seat == obs.seat:
                continue
            prefix = cards[:position]
            low = 1 << card
            if not prefix:
                # Leading a trump in a closed game: he held nothing else (R22).
                if trump >= 0 and contract.closed and low & trump_mask:
                    excluded[seat] |= FULL_DECK & ~trump_mask
                continue
            led = prefix[0] >> 3
            if card >> 3 != led:
                excluded[seat] |= SUIT_MASKS[led]
                probe = trump_mask
            elif led == trump:
                probe = trump_mask
            else:
                continue
            # Past tricks do not record an Akka call: assume one (fewer inferences, still sound).
            for other in range(32):
                if not probe >> other & 1 or other == card:
                    continue
                hand = low | 1 << other
                allowed = allowed_cards(hand, prefix, leader, seat, played, akka, contract, rules)
                if not allowed & low:
                    excluded[seat] |= 1 << other
        if len(cards) == 4:
            for card in cards:
                played |= 1 << card
    return excluded


def track(obs: Observation) -> Tracker:
    """The tracker of a seat's observation during the doubling or the play."""
    in_trick = 0
    for card in obs.trick:
        in_trick |= 1 << card
    unseen = FULL_DECK & ~obs.hand & ~obs.played & ~in_trick
    known = [0, 0, 0, 0]
    sizes = list(obs.hand_sizes)
    own = obs.hand
    own_missing = 0
    if obs.taker >= 0 and obs.buy_card >= 0:
        # The taker holds (or, in a delayed deal, will hold) the buy card and 8 cards.
        known[obs.taker] |= 1 << obs.buy_card
        if obs.phase is Phase.DOUBLING:
            sizes[obs.taker] = 8
            if obs.taker == obs.seat and not obs.hand >> obs.buy_card & 1:
                own |= 1 << obs.buy_card
                unseen &= ~own
                own_missing = 8 - own.bit_count()
    for declarer, project in obs.shown:
        known[declarer] |= project.cards
    excluded = exclusions(obs)
    sizes[obs.seat] = 0
    known[obs.seat] = 0
    excluded[obs.seat] = FULL_DECK
    for seat in range(4):
        known[seat] &= unseen
    return Tracker(
        unseen,
        (known[0], known[1], known[2], known[3]),
        (excluded[0], excluded[1], excluded[2], excluded[3]),
        (sizes[0], sizes[1], sizes[2], sizes[3]),
        own,
        own_missing,
    )


def _feasible(counts: list[int], capacity: list[int]) -> bool:
    """Hall's condition for dealing cards to three seats: ``counts[c]`` cards may go to the
    seats of the 3-bit class ``c`` (class 0: to none of them); ``capacity[i]`` is what the
    i-th other seat still takes."""
    if counts[0]:
        return False  # a card no seat may hold
    for subset, inside in _INSIDE:
        room = 0
        if subset & 1:
            room += capacity[0]
        if subset & 2:
            room += capacity[1]
        if subset & 4:
            room += capacity[2]
        need = 0
        for cls in inside:
            need += counts[cls]
        if need > room:
            return False
    return True


def sample_hands(
    obs: Observation, tracker: Tracker, rng: random.Random, tries: int = 2
) -> tuple[int, int, int, int]:
    """Deal the unseen cards to the other seats consistently with ``tracker``.

    The own seat keeps its hand. When another seat declared project types that are not shown,
    a few samples are drawn and the first whose hand can make that declaration is kept.
    """
    best = _deal_once(obs, tracker, rng)
    checks = [
        (seat, kinds)
        for seat, kinds in enumerate(obs.declared)
        if kinds is not None and seat != obs.seat and not any(s == seat for s, _ in obs.shown)
    ]
    if not checks or obs.contract is None:
        return best
    trump = obs.contract.trump
    spent = spent_by_seat(obs)
    for _ in range(tries):
        if all(
            kinds in declarable(best[seat] | spent[seat], trump, obs.rules)
            for seat, kinds in checks
        ):
            return best
        best = _deal_once(obs, tracker, rng)
    return best


def spent_by_seat(obs: Observation) -> list[int]:
    """The cards each seat has played this hand (completed tricks and the current one)."""
    spent = [0, 0, 0, 0]
    for record in obs.tricks:
        for position, card in enumerate(record.cards):
            spent[(record.leader + position) & 3] |= 1 << card
    for position, card in enumerate(obs.trick):
        spent[(obs.leader + position) & 3] |= 1 << card
    return spent


class _Plan(NamedTuple):
    """What every world of one decision deals alike: the cards to place and where they may go.

    ``hands`` holds the own hand and the known cards, ``capacity`` what each of ``others`` (the
    other seats, from the left) still takes; ``cards`` the cards left to deal with their
    ``classes`` (3-bit masks of the others that may hold them) and ``counts`` per class;
    ``constrained`` indexes the cards some seat cannot hold, ``free`` holds the others.
    """

    others: tuple[int, int, int]
    hands: tuple[int, int, int, int]
    capacity: tuple[int, int, int]
    cards: tuple[int, ...]
    classes: tuple[int, ...]
    counts: tuple[int, ...]
    constrained: tuple[int, ...]
    widths: tuple[int, ...]
    free: tuple[int, ...]


def _plan(seat: int, tracker: Tracker, hands: list[int], pool: int) -> _Plan:
    others = ((seat + 1) & 3, (seat + 2) & 3, (seat + 3) & 3)
    capacity = []
    for other in others:
        hands[other] = tracker.known[other]
        pool &= ~tracker.known[other]
        capacity.append(tracker.sizes[other] - tracker.known[other].bit_count())
    cards = [c for c in range(32) if pool >> c & 1]
    classes: list[int] = []
    counts = [0] * 8
    for card in cards:
        cls = 0
        for i, other in enumerate(others):
            if not tracker.excluded[other] >> card & 1:
                cls |= 1 << i
        classes.append(cls)
        counts[cls] += 1
    if not _feasible(counts, capacity):
        # The facts contradict each other (impossible with a consistent state): relax them.
        counts = [0] * 8
        classes = [7] * len(cards)
        counts[7] = len(cards)
    constrained = tuple(i for i in range(len(cards)) if classes[i] != 7)
    return _Plan(
        others,
        (hands[0], hands[1], hands[2], hands[3]),
        (capacity[0], capacity[1], capacity[2]),
        tuple(cards),
        tuple(classes),
        tuple(counts),
        constrained,
        tuple(_WIDTH[cls] for cls in classes),
        tuple(cards[i] for i in range(len(cards)) if classes[i] == 7),
    )


_PLANS: dict[tuple[int, Tracker], _Plan] = {}
_MAX_PLANS = 64


def _plan_of(seat: int, tracker: Tracker) -> _Plan:
    """The plan of ``seat``'s worlds under ``tracker`` (the same for every world of a decision)."""
    key = (seat, tracker)
    plan = _PLANS.get(key)
    if plan is None:
        if len(_PLANS) >= _MAX_PLANS:
            _PLANS.clear()
        hands = [0, 0, 0, 0]
        hands[seat] = tracker.own
        plan = _PLANS[key] = _plan(seat, tracker, hands, tracker.unseen)
    return plan


def _deal_once(obs: Observation, tracker: Tracker, rng: random.Random) -> tuple[int, int, int, int]:
    if tracker.own_missing:
        # The seat's own cards still to come (nothing is known about them yet): a plan of its own.
        hands = [0, 0, 0, 0]
        hands[obs.seat] = tracker.own
        pool = tracker.unseen
        for card in rng.sample([c for c in range(32) if pool >> c & 1], tracker.own_missing):
            hands[obs.seat] |= 1 << card
            pool &= ~(1 << card)
        plan = _plan(obs.seat, tracker, hands, pool)
    else:
        plan = _plan_of(obs.seat, tracker)
    others = plan.others
    hands = list(plan.hands)
    capacity = list(plan.capacity)
    if plan.constrained:
        cards = plan.cards
        classes = plan.classes
        counts = list(plan.counts)
        constrained = list(plan.constrained)
        rng.shuffle(constrained)
        # Most constrained cards first: once only unconstrained cards are left, any split works.
        constrained.sort(key=plan.widths.__getitem__)
        for i in constrained:
            cls = classes[i]
            counts[cls] -= 1
            choices = [j for j in range(3) if cls >> j & 1 and capacity[j] > 0]
            while choices:
                if len(choices) == 1:
                    pick = choices[0]
                else:
                    pick = rng.choices(choices, [capacity[j] for j in choices])[0]
                capacity[pick] -= 1
                if len(choices) == 1 or _feasible(counts, capacity):
                    hands[others[pick]] |= 1 << cards[i]
                    break
                capacity[pick] += 1
                choices.remove(pick)
            else:  # pragma: no cover - Hall's condition guarantees a choice
                raise AssertionError("no seat can take an unseen card")
    free = list(plan.free)
    rng.shuffle(free)
    start = 0
    for j in range(3):
        for card in free[start : start + capacity[j]]:
            hands[others[j]] |= 1 << card
        start += capacity[j]
    return hands[0], hands[1], hands[2], hands[3]


ENUMERATED_CARDS = 9
"""The most unseen cards :func:`every_deal` places (three seats of three cards: at most 1,680
deals, and at most 3^9 steps however the cards are constrained)."""


def every_deal(
    obs: Observation, tracker: Tracker, most: int
) -> list[tuple[int, int, int, int]] | None:
    """Every deal of the unseen cards to the other seats that ``tracker`` allows (hand sizes,
    known cards, cards a seat cannot hold), or None when there are more than ``most`` (or
    some of the seat's own cards are still to come).

    What no tracker records (the project types a seat declared but did not show) is not
    checked: the list may hold deals the seat could rule out, never miss one it could not.
    """
    if tracker.own_missing:
        return None
    plan = _plan_of(obs.seat, tracker)
    if len(plan.cards) > ENUMERATED_CARDS:
        return None
    others = plan.others
    cards = plan.cards
    classes = plan.classes
    found: list[tuple[int, int, int, int]] = []
    hands = list(plan.hands)
    capacity = list(plan.capacity)

    def place(i: int) -> bool:
        if i == len(cards):
            if len(found) >= most:
                return False
            found.append((hands[0], hands[1], hands[2], hands[3]))
            return True
        for j in range(3):
            if classes[i] >> j & 1 and capacity[j] > 0:
                capacity[j] -= 1
                hands[others[j]] ^= 1 << cards[i]
                going = place(i + 1)
                hands[others[j]] ^= 1 << cards[i]
                capacity[j] += 1
                if not going:
                    return False
        return True

    return found if place(0) else None


PLANS: Final = (_PLANS, _MAX_PLANS)
"""The deal plans' cache and its bound (``server/caches.py``)."""
