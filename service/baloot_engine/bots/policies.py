"""The four levels of play, each a function of a seat's observation and a random generator.

* RANDOM plays any legal action (never a Sawa claim, which could be false).
* BASIC evaluates its hand to buy (Sun with aces and tens, Hokm with the jack and nine of a
  suit, Ashkal when the revealed card is worth giving to the partner), doubles on a strong
  hand, always declares its projects, claims Sawa only when it cannot fail, and plays cards by
  the rules of thumb of :mod:`baloot_engine.bots.cardplay`.
* STRONG bids like BASIC with its own thresholds, decides doubling calls by played-out sampled
  worlds, and chooses its cards by the determinized search of :mod:`baloot_engine.bots.search`.
* EXPERT bids like STRONG but for the chance to win the match rather than the round's points
  (``ExpertBudget.match_aware_calls``), doubles with more sampled worlds (for the match too),
  and chooses its cards by the deeper search of :mod:`baloot_engine.bots.expert` (many more
  worlds within a time budget, for the match as well, each world solved exactly from the
  decision to the end of the round).
* LEARNED bids, doubles and plays its cards by the networks trained on the solved-deal corpus
  (:mod:`baloot_engine.bots.learned`): one forward pass a decision, no search; it declares and
  claims Sawa like STRONG.

No function here sees a match state: they receive the seat's
:class:`~baloot_engine.rules.observation.Observation`.
"""

from __future__ import annotations

import random
from enum import Enum
from typing import Final

from baloot_engine.bots.bidding_eval import evaluate_bids, over_default, threshold_hokm
from baloot_engine.bots.cardplay import choose_card
from baloot_engine.bots.expert import (
    DEFAULT_EXPERT_BUDGET,
    ExpertBudget,
    expert_card,
    solved_finisher,
)
from baloot_engine.bots.handeval import BASIC_STYLE, Style, hokm_value, sun_value
from baloot_engine.bots.inference import sample_weighted
from baloot_engine.bots.search import (
    DEFAULT_BUDGET,
    Budget,
    Finisher,
    Sampler,
    in_score_units,
    play_whole,
    search_card,
    search_doubling,
)
from baloot_engine.bots.tracking import every_deal, sample_hands, track
from baloot_engine.rules.actions import (
    Action,
    Bid,
    BidKind,
    ClaimSawa,
    Declare,
    Doubling,
    DoublingCall,
    Play,
)
from baloot_engine.rules.cards import ACE, FULL_DECK, HIGHER, SUIT_MASKS, TEN
from baloot_engine.rules.contract import PlayMode
from baloot_engine.rules.observation import Observation
from baloot_engine.rules.projects import RAW_VALUES, best_projects
from baloot_engine.rules.sawa import claim_holds
from baloot_engine.rules.state import BidStage, DoublingStep, Phase


class Level(Enum):
    """How well a bot plays."""

    RANDOM = "random"
    BASIC = "basic"
    STRONG = "strong"
    EXPERT = "expert"
    LEARNED = "learned"


STRONG_STYLE = BASIC_STYLE
DOUBLING_SAMPLES = 24
EXPERT_DOUBLING_SAMPLES = 64
EVALUATED_BIDDING: frozenset[Level] = frozenset({Level.STRONG, Level.EXPERT})
"""The levels that bid by simulated play-outs (bots/bidding_eval.py)."""
BIDDING_SAMPLES = {Level.STRONG: 48, Level.EXPERT: 64}
BIDDING_MARGIN = 4.0
"""Points a round by which a bid must beat the thresholds' bid in the play-outs to replace it."""
DOUBLING_MARGIN = 1.0


def decide(
    obs: Observation,
    level: Level,
    rng: random.Random,
    *,
    budget: Budget = DEFAULT_BUDGET,
    deadline: float | None = None,
    expert: ExpertBudget = DEFAULT_EXPERT_BUDGET,
    sampler: Sampler | None = None,
) -> Action:
    """One legal action for the seat of ``obs`` (which must have at least one).

    ``budget`` bounds a STRONG search, ``expert`` an EXPERT one; ``deadline`` (a
    ``time.perf_counter`` value) also stops either search when the decision is not seeded.
    ``sampler`` (None: the one ``expert`` names) deals the worlds of EXPERT's card play.
    """
    legal = obs.legal_actions
    if not legal:
        raise ValueError("the seat has no legal action")
    if level is Level.RANDOM:
        choices: list[Action] = [a for a in legal if not isinstance(a, ClaimSawa)] or list(legal)
        return rng.choice(choices)
    if len(legal) == 1:
        return legal[0]
    phase = obs.phase
    if level is Level.LEARNED:
        return _learned(obs)
    style = BASIC_STYLE if level is Level.BASIC else STRONG_STYLE
    if phase is Phase.BIDDING:
        bids = [a for a in legal if isinstance(a, Bid)]
        if level in EVALUATED_BIDDING:
            return choose_bid_evaluated(
                obs,
                bids,
                style,
                rng,
                (level is Level.EXPERT and expert.call_samples) or BIDDING_SAMPLES[level],
                BIDDING_MARGIN,
                match_aware=level is Level.EXPERT and expert.match_aware_calls,
                finish=_finisher(level, expert),
            )
        return choose_bid(obs, bids, style)
    if phase is Phase.DOUBLING:
        calls = [a for a in legal if isinstance(a, Doubling)]
        if obs.doubling_step is not DoublingStep.CHOOSE_MODE:
            if level is Level.STRONG:
                return search_doubling(obs, calls, rng, DOUBLING_SAMPLES, DOUBLING_MARGIN)
            if level is Level.EXPERT:
                return search_doubling(
                    obs,
                    calls,
                    rng,
                    expert.call_samples or EXPERT_DOUBLING_SAMPLES,
                    DOUBLING_MARGIN,
                    match_aware=expert.match_aware_calls,
                    finish=_finisher(level, expert),
                )
        return choose_call(obs, calls, style)
    declarations = [a for a in legal if isinstance(a, Declare)]
    if declarations:
        return choose_declaration(obs, declarations)
    if any(isinstance(a, ClaimSawa) for a in legal) and (
        sawa_certain(obs) or (level is Level.EXPERT and sawa_proved(obs))
    ):
        return ClaimSawa()
    plays = [a for a in legal if isinstance(a, Play)]
    if not plays:
        return legal[0]
    options = 0
    for play in plays:
        options |= 1 << play.card
    contract = obs.contract
    assert contract is not None
    if level is Level.STRONG:
        card = search_card(obs, options, rng, budget, deadline=deadline)
    elif level is Level.EXPERT:
        if sampler is None:
            sampler = sample_weighted if expert.weighted_sampling else sample_hands
        card = expert_card(obs, options, rng, expert, deadline=deadline, sampler=sampler)
    else:
        gone = obs.played
        for played in obs.trick:
            gone |= 1 << played
        partner = (obs.seat + 2) & 3
        partner_suits = 0
        for record in obs.tricks:
            if record.leader == partner:
                partner_suits |= 1 << (record.cards[0] >> 3)
        card = choose_card(
            options,
            obs.hand,
            obs.trick,
            gone,
            contract.trump,
            obs.team == contract.buyer_team,
            partner_suits,
        )
    akka = Play(card, True)
    return akka if akka in plays else Play(card)


def _learned(obs: Observation) -> Action:
    """The learned level's action (the networks are read on first use)."""
    from baloot_engine.bots.learned import learned_bid, learned_call, learned_card

    legal = obs.legal_actions
    phase = obs.phase
    if phase is Phase.BIDDING:
        return learned_bid([a for a in legal if isinstance(a, Bid)], obs)
    if phase is Phase.DOUBLING:
        return learned_call([a for a in legal if isinstance(a, Doubling)], obs)
    declarations = [a for a in legal if isinstance(a, Declare)]
    if declarations:
        return choose_declaration(obs, declarations)
    if any(isinstance(a, ClaimSawa) for a in legal) and sawa_certain(obs):
        return ClaimSawa()
    plays = [a for a in legal if isinstance(a, Play)]
    if not plays:
        return legal[0]
    return learned_card(plays, obs)


def _finisher(level: Level, expert: ExpertBudget) -> Finisher:
    """How the calls' simulations of ``level`` play a deal out: EXPERT's solve the end when
    ``expert.calls_solve_at`` says so; every other one by the play-out policy."""
    if level is Level.EXPERT and expert.calls_solve_at > 0:
        return solved_finisher(expert.calls_solve_at)
    return play_whole


def choose_bid(obs: Observation, bids: list[Bid], style: Style) -> Bid:
    """A bid from hand evaluation (the buyer's hand would hold the revealed card)."""
    kinds = {b.kind for b in bids}
    passing = Bid(BidKind.PASS)
    if BidKind.KAWESH in kinds:
        return Bid(BidKind.KAWESH)
    revealed = obs.buy_card
    with_card = obs.hand | (1 << revealed if revealed >= 0 else 0)
    sun = sun_value(with_card)
    stage = obs.bid_stage
    if stage is BidStage.CONFIRM:
        confirms = [b for b in bids if b.kind is BidKind.CONFIRM_HOKM]
        best = max(confirms, key=lambda b: hokm_value(with_card, b.suit))
        hokm = hokm_value(with_card, best.suit)
        if BidKind.SWITCH_TO_SUN in kinds and sun >= style.sun and sun > hokm + style.switch_margin:
            return Bid(BidKind.SWITCH_TO_SUN)
        return best
    if stage is BidStage.PRIORITY:
        return (
            Bid(BidKind.CLAIM_SUN) if sun >= style.sun and BidKind.CLAIM_SUN in kinds else passing
        )
    if BidKind.SUN in kinds and sun >= style.sun:
        return Bid(BidKind.SUN)
    if (
        BidKind.ASHKAL in kinds
        and revealed >= 0
        and revealed & 7 in (ACE, TEN)
        and sun_value(obs.hand) >= style.ashkal
    ):
        return Bid(BidKind.ASHKAL)
    hokms = [b for b in bids if b.kind is BidKind.HOKM]
    if hokms and revealed >= 0:
        suit = threshold_hokm(obs.hand, revealed, obs.bidding_round, style)
        if suit >= 0:
            named = [b for b in hokms if b.suit == suit]
            return named[0] if named else hokms[0]
    return passing if passing in bids else bids[0]


def choose_bid_evaluated(
    obs: Observation,
    bids: list[Bid],
    style: Style,
    rng: random.Random,
    samples: int,
    margin: float = 0.0,
    *,
    match_aware: bool = False,
    finish: Finisher = play_whole,
) -> Bid:
    """A bid by simulation (:mod:`baloot_engine.bots.bidding_eval`), the thresholds' bid as
    the default it must beat.

    The seat's thresholds propose a bid; every bid, a pass included, is then played out in the
    same sampled deals. The proposal stands unless another bid scores more than ``margin``
    points a round better than it: a pass the thresholds would make gives way to the best buy
    that beats passing by that much, a buy gives way to a pass or to another contract that
    does. Where a contract must be named (the Hokm confirmation) the best-scoring one is said.
    With ``match_aware`` the bids are valued by the chance to win the match after the round,
    and the margin by what ``margin`` points are worth at the match's totals.
    """
    if any(b.kind is BidKind.KAWESH for b in bids):
        return Bid(BidKind.KAWESH)
    base = choose_bid(obs, bids, style)
    values = evaluate_bids(obs, bids, rng, samples, style, match_aware=match_aware, finish=finish)
    if base not in values:
        return base
    if match_aware:
        margin = in_score_units(margin, obs.match_scores, obs.team, obs.rules)
    return over_default(base, values, margin, may_pass=Bid(BidKind.PASS) in values)


def choose_call(obs: Observation, calls: list[Doubling], style: Style) -> Doubling:
    """A doubling call from hand evaluation."""
    contract = obs.contract
    assert contract is not None
    step = obs.doubling_step
    if step is DoublingStep.CHOOSE_MODE:
        wanted = PlayMode.OPEN if obs.team == contract.buyer_team else PlayMode.CLOSED
        return _pick(calls, DoublingCall.CHOOSE_MODE, wanted)
    hand = obs.hand
    value = sun_value(hand) if contract.is_sun else hokm_value(hand, contract.trump)
    if step is DoublingStep.DOUBLE:
        threshold = style.double_sun if contract.is_sun else style.double_hokm
        if value >= threshold:
            return _pick(calls, DoublingCall.DOUBLE, PlayMode.CLOSED)
    elif step is DoublingStep.TRIPLE and value >= style.triple:
        return _pick(calls, DoublingCall.TRIPLE, None)
    elif step is DoublingStep.FOUR and value >= style.four:
        return _pick(calls, DoublingCall.FOUR, PlayMode.CLOSED)
    elif step is DoublingStep.GAHWA and value >= style.gahwa:
        return _pick(calls, DoublingCall.GAHWA, None)
    return _pick(calls, DoublingCall.DECLINE, None)


def _pick(calls: list[Doubling], call: DoublingCall, mode: PlayMode | None) -> Doubling:
    """The legal call ``call``, in ``mode`` when that is one of its forms; else the first call."""
    same = [c for c in calls if c.call is call]
    for candidate in same:
        if candidate.mode is mode:
            return candidate
    if same:
        return same[0]
    declines = [c for c in calls if c.call is DoublingCall.DECLINE]
    return declines[0] if declines else calls[0]


def choose_declaration(obs: Observation, declarations: list[Declare]) -> Declare:
    """Declare the projects the hand scores best (§A.13 item 6)."""
    contract = obs.contract
    trump = -1 if contract is None else contract.trump
    wanted = sorted(p.kind.value for p in best_projects(obs.full_hand, trump, obs.rules))
    for declaration in declarations:
        if sorted(kind.value for kind in declaration.kinds) == wanted:
            return declaration
    return max(declarations, key=lambda d: sum(RAW_VALUES[kind] for kind in d.kinds))


SAWA_DEALS: Final = 1680
"""The most deals EXPERT checks a Sawa claim in (three cards in each other hand)."""


def sawa_proved(obs: Observation) -> bool:
    """A Sawa claim that holds in every deal the seat cannot rule out: the rules core's own
    verdict (:func:`~baloot_engine.rules.sawa.claim_holds`, exact) in each, late in the round
    when they are few enough to check them all (:func:`~baloot_engine.bots.tracking.every_deal`).
    Sound from the observation alone: a claim is made only when no layout of the unseen cards
    can beat it."""
    contract = obs.contract
    if contract is None or obs.trick:
        return False
    deals = every_deal(obs, track(obs), SAWA_DEALS)
    if not deals:
        return False
    return all(claim_holds(hands, obs.seat, contract, obs.rules) for hands in deals)


def sawa_certain(obs: Observation) -> bool:
    """A Sawa claim the seat can prove from its own hand: it holds the top card of every suit it
    holds and, in Hokm, draws every trump still out (the rules core's plain proof, R46)."""
    contract = obs.contract
    if contract is None or obs.trick:
        return False
    trump = contract.trump
    mine = obs.hand
    out = FULL_DECK & ~mine & ~obs.played
    higher = HIGHER[trump + 1]
    for card in range(32):
        if mine >> card & 1 and higher[card] & out:
            return False
    if trump < 0:
        return True
    trump_mask = SUIT_MASKS[trump]
    trumps_out = (out & trump_mask).bit_count()
    if not trumps_out:
        return True
    if contract.closed and mine & ~trump_mask:
        return False
    return (mine & trump_mask).bit_count() >= trumps_out
