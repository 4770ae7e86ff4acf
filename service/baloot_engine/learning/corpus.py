"""The solved-deal corpus: rounds played by the bots, every decision labelled by the exact solver.

A *game* is a short match (``rounds_per_game`` rounds at most) under one preset (SEEDS,
KAMMELNA and FEDERATION in turn), from random match totals and a random first dealer, each
seat played by a bot level drawn from :data:`LEVEL_MIX`, and each decision replaced, with the
chance ``explore``, by a random legal action (so that the corpus also holds positions the bots
would not reach). Everything is drawn from a generator seeded with the corpus seed and the
game's number: game ``g`` is the same game in every run, on every machine.

Two kinds of records are kept:

* **Card play.** At every card decision with a choice, the deciding seat's features
  (:func:`~baloot_engine.bots.features.encode_play`, its observation alone) and, for every
  legal card, its exact value on the true deal: the solver's result of that card when all four
  seats then play perfectly (:func:`~baloot_engine.solver.solve`), scored by the rules core
  (projects every seat would declare, the Baloot, the success test, kaboot) as the game points
  of the seat's team minus the other team's, divided by ``26 × multiplier`` (a Gahwa round:
  +2 won, -2 lost). The value of a card is that of its Akka call where one fits (a perfect
  leader calls it; :mod:`baloot_engine.solver`).
* **Bidding.** At every bid or doubling call with a choice, the seat's features
  (:func:`~baloot_engine.bots.features.encode_bid`) and the deal's *contract table*: for each
  seat as buyer and each contract (Sun, Hokm in each suit), the round's exact result when that
  seat takes the revealed card and buys that contract plain (x1) and the cards are then played
  perfectly, scored as above from the observer's side (20 values, relative seats, canonical
  suits), and, where the seat passes, what the round turned out to be worth to its team: the
  contract the bidding ended in, valued from the same table, or 0 for a redeal (an on-policy
  estimate of a pass; :data:`~baloot_engine.bots.features.BID_OUTPUTS`).

A regression on these labels learns, from what a seat sees, the *expected* value over the
deals it cannot tell apart, weighted as the deals really fall after the bots' bids and play.

Games are grouped in shards of ``games_per_shard`` (``shard-00012.npz`` holds games
``12 × games_per_shard`` on), each written whole (a temporary file renamed), so a run stopped
half-way resumes by skipping the shards already on disk. ``python -m baloot_engine.learning
corpus --help`` runs it.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final

import numpy as np
import numpy.typing as npt

from baloot_engine.bots import Level, suggest
from baloot_engine.bots.features import (
    BID_OUTPUTS,
    BID_SIZE,
    PASS_OUTPUT,
    PLAY_SIZE,
    canonical_card,
    encode_bid,
    encode_play,
    output_index,
    suit_order,
)
from baloot_engine.bots.learned import lawful_cards
from baloot_engine.bots.search import deal_facts
from baloot_engine.rules.actions import Action, Bid, BidKind, ClaimSawa, Deal, Play
from baloot_engine.rules.contract import Contract, ContractType
from baloot_engine.rules.dealing import completion_cards
from baloot_engine.rules.errors import RuleError
from baloot_engine.rules.facts import RoundFacts
from baloot_engine.rules.game import apply, legal_actions, new_match
from baloot_engine.rules.observation import observe
from baloot_engine.rules.ruleset import FEDERATION, KAMMELNA, SEEDS, FirstLeader, RuleSet
from baloot_engine.rules.scoring import score_round
from baloot_engine.rules.state import Phase, State
from baloot_engine.solver import (
    DealSearch,
    Position,
    deal_value,
    pair_of_searches,
    position_of,
    solve,
)

PRESETS: Final[tuple[tuple[str, RuleSet], ...]] = (
    ("seeds", SEEDS),
    ("kammelna", KAMMELNA),
    ("federation", FEDERATION),
)
LEVEL_MIX: Final[tuple[tuple[Level, float], ...]] = (
    (Level.RANDOM, 0.10),
    (Level.BASIC, 0.65),
    (Level.STRONG, 0.25),
)
"""The bot levels a seat of a game is played by, with their chances."""
UNIT: Final = 26
"""Game points in one unit of a label: a plain Sun's card points are 26."""
GAHWA_UNITS: Final = 2.0
"""The label of a Gahwa round's card: +2 when the seat's team wins the match by it, -2 else."""
_MAX_ROUNDS: Final = 40


@dataclass(frozen=True)
class CorpusConfig:
    """What a corpus is made of (the same configuration and seed: the same corpus)."""

    seed: int = 0
    games_per_shard: int = 24
    rounds_per_game: int = 2
    explore: float = 0.08


@dataclass
class Records:
    """The records of some games, in lists (one entry per decision)."""

    play_x: list[npt.NDArray[np.float32]]
    play_y: list[npt.NDArray[np.float32]]
    play_hokm: list[bool]
    play_game: list[int]
    play_preset: list[int]
    bid_x: list[npt.NDArray[np.float32]]
    bid_y: list[npt.NDArray[np.float32]]
    bid_game: list[int]
    bid_preset: list[int]
    rounds: int = 0

    @classmethod
    def empty(cls) -> Records:
        return cls([], [], [], [], [], [], [], [], [])

    def arrays(self) -> dict[str, npt.NDArray[np.generic]]:
        """The records as the arrays of a shard."""
        return {
            "play_x": np.asarray(self.play_x, np.float16).reshape(-1, PLAY_SIZE),
            "play_y": np.asarray(self.play_y, np.float32).reshape(-1, 32),
            "play_hokm": np.asarray(self.play_hokm, np.bool_),
            "play_game": np.asarray(self.play_game, np.int32),
            "play_preset": np.asarray(self.play_preset, np.int8),
            "bid_x": np.asarray(self.bid_x, np.float16).reshape(-1, BID_SIZE),
            "bid_y": np.asarray(self.bid_y, np.float32).reshape(-1, BID_OUTPUTS),
            "bid_game": np.asarray(self.bid_game, np.int32),
            "bid_preset": np.asarray(self.bid_preset, np.int8),
            "rounds": np.asarray(self.rounds, np.int32),
        }


def score_value(
    contract: Contract,
    rules: RuleSet,
    team: int,
    abnat: tuple[int, int],
    tricks: tuple[int, int],
    facts: tuple[tuple[object, ...], tuple[int, ...]],
) -> float:
    """A round's result as a label for ``team``: game points won minus lost, in units of
    ``26 × multiplier`` (a Gahwa round: ±:data:`GAHWA_UNITS`)."""
    projects, baloot = facts
    score = score_round(
        RoundFacts(
            contract=contract.type,
            buyer_team=contract.buyer_team,
            card_abnat=abnat,
            tricks_won=tricks,
            projects=projects,  # type: ignore[arg-type]
            baloot_teams=baloot,
            multiplier=contract.multiplier,
            gahwa=contract.gahwa,
        ),
        rules,
    )
    if score.gahwa_winner is not None:
        return GAHWA_UNITS if score.gahwa_winner == team else -GAHWA_UNITS
    points = score.points
    return (points[team] - points[1 - team]) / (UNIT * max(contract.multiplier, 1))


def _first_leader(rules: RuleSet, dealer: int, buyer: int) -> int:
    return buyer if rules.first_leader is FirstLeader.BUYER else (dealer + 1) & 3


def contract_table(state: State) -> npt.NDArray[np.float32]:
    """The deal's contract table (a state in the bidding, its first five cards dealt): for each
    absolute buyer seat and contract (Sun, Hokm in real suit 0-3) the exact, plainly scored
    result for team 0 (see the module's documentation)."""
    rules = state.rules
    dealer = state.dealer
    revealed = state.buy_card
    table = np.zeros((4, 5), np.float32)
    for buyer in range(4):
        extra = completion_cards(state.stock, dealer, buyer, revealed)
        hands = (
            state.hands[0] | extra[0],
            state.hands[1] | extra[1],
            state.hands[2] | extra[2],
            state.hands[3] | extra[3],
        )
        for column, trump in enumerate((-1, 0, 1, 2, 3)):
            kind = ContractType.SUN if trump < 0 else ContractType.HOKM
            second = trump >= 0 and trump != revealed >> 3
            contract = Contract(kind, trump, buyer, False, 2 if second else 1)
            leader = _first_leader(rules, dealer, buyer)
            position = Position(hands, (), leader, 0, False, contract, rules)
            abnat, tricks = deal_value(position)
            facts = deal_facts(hands, contract, rules, (dealer + 1) & 3)
            table[buyer, column] = score_value(contract, rules, 0, abnat, tricks, facts)
    return table


def seat_table(table: npt.NDArray[np.float32], seat: int, revealed: int) -> npt.NDArray[np.float32]:
    """The contract table from ``seat``'s side: relative buyers, canonical suits (the revealed
    card's suit first), the values of its own team."""
    order = suit_order(revealed >> 3)
    sign = 1.0 if seat & 1 == 0 else -1.0
    out = np.zeros(BID_OUTPUTS, np.float32)
    out[PASS_OUTPUT] = np.nan  # filled once the bidding ends, if the seat passes
    for buyer in range(4):
        rel = (buyer - seat) & 3
        out[output_index(rel, -1)] = sign * table[buyer, 0]
        for canonical, real in enumerate(order):
            out[output_index(rel, canonical)] = sign * table[buyer, real + 1]
    return out


class _Round:
    """What a game keeps for the round in play: its solver tables and scored results."""

    def __init__(self) -> None:
        self.hand_number = -1
        self.table: npt.NDArray[np.float32] | None = None
        self.searches: dict[int, DealSearch] | None = None
        self.facts: tuple[tuple[object, ...], tuple[int, ...]] | None = None
        self.scores: dict[tuple[int, tuple[int, int], tuple[int, int]], float] = {}
        self.passes: list[tuple[int, int]] = []  # (bid record, seat) of passes to value
        self.recorded = -1  # the bid record of the decision in hand, -1 if none

    def settle(self, state: State, records: Records) -> None:
        """Value the passes of the round once its bidding is over: the worth of the contract
        it ended in (plain, from the contract table) to each passing seat's team, or 0 when it
        ended in a redeal."""
        if self.table is None:
            self.passes.clear()
            return
        contract = state.contract if state.hand_number == self.hand_number else None
        for index, seat in self.passes:
            if contract is None:
                value = 0.0
            else:
                column = 0 if contract.trump < 0 else contract.trump + 1
                value = float(self.table[contract.taker, column])
                value = value if seat & 1 == 0 else -value
            records.bid_y[index][PASS_OUTPUT] = value
        self.passes.clear()


def play_game(config: CorpusConfig, game: int, records: Records) -> None:
    """Play game ``game`` of the corpus and append its records."""
    rng = random.Random(f"baloot-corpus-{config.seed}-{game}")
    preset = game % len(PRESETS)
    rules = PRESETS[preset][1]
    target = rules.match_target
    scores = (rng.randrange(0, target * 4 // 5), rng.randrange(0, target * 4 // 5))
    state = new_match(rules, dealer=rng.randrange(4), match_scores=scores)
    levels = [_draw_level(rng) for _ in range(4)]
    kept = _Round()
    rounds = 0
    while state.phase is not Phase.MATCH_OVER and state.hand_number < _MAX_ROUNDS:
        if state.phase in (Phase.AWAITING_DEAL, Phase.ROUND_OVER):
            if rounds >= config.rounds_per_game:
                break
            deck = list(range(32))
            rng.shuffle(deck)
            state, _ = apply(state, state.dealer, Deal(tuple(deck)))
            continue
        if state.phase is Phase.ROUND_REVIEW or state.turn < 0:
            break  # table play's review: the corpus stops the game there
        if state.hand_number != kept.hand_number:
            kept.settle(state, records)
            kept = _Round()
            kept.hand_number = state.hand_number
        seat = state.turn
        legal = legal_actions(state, seat)
        kept.recorded = -1
        if len(legal) > 1:
            _record(state, seat, legal, kept, game, preset, records)
        if rng.random() < config.explore:
            choices = [a for a in legal if not isinstance(a, ClaimSawa)] or legal
            action: Action = rng.choice(choices)
        else:
            action = suggest(state, seat, levels[seat], seed=rng.randrange(1 << 62))
        scored = state.last_score
        try:
            state, _ = apply(state, seat, action)
        except RuleError:
            action = legal[0]
            state, _ = apply(state, seat, action)
        if kept.recorded >= 0 and action == Bid(BidKind.PASS):
            kept.passes.append((kept.recorded, seat))
        if kept.passes and (
            state.phase is not Phase.BIDDING or state.hand_number != kept.hand_number
        ):
            kept.settle(state, records)
        if state.last_score is not None and state.last_score is not scored:
            rounds += 1
    records.rounds += rounds


def _draw_level(rng: random.Random) -> Level:
    draw = rng.random()
    for level, chance in LEVEL_MIX:
        if draw < chance:
            return level
        draw -= chance
    return LEVEL_MIX[-1][0]


def _record(
    state: State,
    seat: int,
    legal: list[Action],
    kept: _Round,
    game: int,
    preset: int,
    records: Records,
) -> None:
    phase = state.phase
    if phase in (Phase.BIDDING, Phase.DOUBLING):
        if state.buy_card < 0:
            return
        if kept.table is None:
            if phase is not Phase.BIDDING:
                return  # the hands are complete: too late for the contract table
            kept.table = contract_table(state)
        obs = observe(state, seat)
        kept.recorded = len(records.bid_y)
        records.bid_x.append(encode_bid(obs))
        records.bid_y.append(seat_table(kept.table, seat, state.buy_card))
        records.bid_game.append(game)
        records.bid_preset.append(preset)
        return
    if phase is not Phase.PLAYING:
        return
    contract = state.contract
    assert contract is not None
    mask = 0
    for action in legal:
        if isinstance(action, Play):
            mask |= 1 << action.card
    obs = observe(state, seat)
    mask &= lawful_cards(obs)
    if mask & (mask - 1) == 0:
        return  # one card (with or without its Akka call): no choice of card
    if kept.searches is None:
        kept.searches = pair_of_searches(contract, state.rules)
        kept.facts = deal_facts(state.full_hands, contract, state.rules, (state.dealer + 1) & 3)
    assert kept.facts is not None
    solution = solve(position_of(state), search=kept.searches[seat & 1])
    team = seat & 1
    order = suit_order(contract.trump)
    values = np.full(32, np.nan, np.float32)
    for action_value in solution.values:
        key = (team, action_value.points, action_value.tricks)
        value = kept.scores.get(key)
        if value is None:
            value = score_value(
                contract, state.rules, team, action_value.points, action_value.tricks, kept.facts
            )
            kept.scores[key] = value
        index = canonical_card(action_value.play.card, order)
        if math.isnan(values[index]) or value > values[index]:
            values[index] = value
    records.play_x.append(encode_play(obs, mask))
    records.play_y.append(values)
    records.play_hokm.append(contract.trump >= 0)
    records.play_game.append(game)
    records.play_preset.append(preset)


def shard_path(directory: Path, shard: int) -> Path:
    """The file of shard ``shard`` of a corpus directory."""
    return directory / f"shard-{shard:05d}.npz"


def make_shard(config: CorpusConfig, shard: int, directory: Path) -> tuple[int, int, int, float]:
    """Play and write one shard; return its (rounds, card records, bid records, CPU seconds)."""
    started = time.process_time()
    records = Records.empty()
    first = shard * config.games_per_shard
    for game in range(first, first + config.games_per_shard):
        play_game(config, game, records)
    arrays = records.arrays()
    arrays["cpu_seconds"] = np.asarray(time.process_time() - started, np.float64)
    directory.mkdir(parents=True, exist_ok=True)
    path = shard_path(directory, shard)
    partial = path.with_suffix(".partial")
    with partial.open("wb") as out:
        np.savez_compressed(out, allow_pickle=False, **arrays)
    partial.replace(path)
    cpu = time.process_time() - started
    return records.rounds, len(records.play_y), len(records.bid_y), cpu


def _make_shard_task(args: tuple[CorpusConfig, int, str]) -> tuple[int, int, int, int, float]:
    config, shard, directory = args
    rounds, plays, bids, cpu = make_shard(config, shard, Path(directory))
    return shard, rounds, plays, bids, cpu


@dataclass
class Summary:
    """What a corpus run did."""

    shards_made: int = 0
    shards_skipped: int = 0
    rounds: int = 0
    play_records: int = 0
    bid_records: int = 0
    cpu_seconds: float = 0.0
    wall_seconds: float = 0.0

    @property
    def decisions_per_cpu_second(self) -> float:
        """Records (card and bid decisions) made per second of CPU time."""
        made = self.play_records + self.bid_records
        return made / self.cpu_seconds if self.cpu_seconds else 0.0

    def closing_note(self) -> str:
        """The one-paragraph note a run ends with."""
        return (
            f"corpus: {self.shards_made} shards made, {self.shards_skipped} already there; "
            f"{self.rounds} rounds, {self.play_records} card records, {self.bid_records} bid "
            f"records in {self.cpu_seconds:.1f} CPU s ({self.wall_seconds:.1f} s wall): "
            f"{self.decisions_per_cpu_second:.1f} decisions per CPU second"
        )


def generate(
    config: CorpusConfig,
    directory: Path,
    shards: int,
    *,
    workers: int = 1,
) -> Summary:
    """Make shards ``0 … shards - 1`` of a corpus in ``directory`` (those already there are
    kept: a stopped run resumes), in ``workers`` processes."""
    directory.mkdir(parents=True, exist_ok=True)
    summary = Summary()
    todo = [s for s in range(shards) if not shard_path(directory, s).exists()]
    summary.shards_skipped = shards - len(todo)
    started = time.perf_counter()
    tasks = [(config, s, str(directory)) for s in todo]
    bar = _progress(len(tasks))
    results: Iterator[tuple[int, int, int, int, float]]
    if workers > 1 and len(tasks) > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(workers) as pool:
            results = pool.imap_unordered(_make_shard_task, tasks)
            _collect(results, summary, bar)
    else:
        _collect(map(_make_shard_task, tasks), summary, bar)
    bar.close()
    summary.wall_seconds = time.perf_counter() - started
    return summary


def _collect(
    results: Iterator[tuple[int, int, int, int, float]], summary: Summary, bar: _Bar
) -> None:
    for _shard, rounds, plays, bids, cpu in results:
        summary.shards_made += 1
        summary.rounds += rounds
        summary.play_records += plays
        summary.bid_records += bids
        summary.cpu_seconds += cpu
        bar.update(summary)


class _Bar:
    """A progress bar (tqdm's where it is installed, else a line per shard on stderr)."""

    def __init__(self, total: int) -> None:
        self.total = total
        self.done = 0
        try:
            from tqdm import tqdm
        except ImportError:
            self._tqdm = None
        else:
            self._tqdm = tqdm(total=total, unit="shard", dynamic_ncols=True)

    def update(self, summary: Summary) -> None:
        self.done += 1
        rate = f"{summary.decisions_per_cpu_second:.0f} dec/CPU-s"
        if self._tqdm is not None:
            self._tqdm.set_postfix_str(rate, refresh=False)
            self._tqdm.update(1)
        else:
            import sys

            print(f"shard {self.done}/{self.total}  {rate}", file=sys.stderr, flush=True)

    def close(self) -> None:
        if self._tqdm is not None:
            self._tqdm.close()


def _progress(total: int) -> _Bar:
    return _Bar(total)


def load(
    directory: Path, shards: Sequence[int] | None = None
) -> dict[str, npt.NDArray[np.generic]]:
    """The records of a corpus's shards (all of them, or ``shards``), concatenated."""
    paths = (
        sorted(directory.glob("shard-*.npz"))
        if shards is None
        else [shard_path(directory, s) for s in shards]
    )
    if not paths:
        raise FileNotFoundError(f"no shard in {directory}")
    parts: dict[str, list[npt.NDArray[np.generic]]] = {}
    rounds = 0
    cpu = 0.0
    for path in paths:
        with np.load(path, allow_pickle=False) as data:
            for key in data.files:
                if key == "rounds":
                    rounds += int(data[key])
                elif key == "cpu_seconds":
                    cpu += float(data[key])
                else:
                    parts.setdefault(key, []).append(data[key])
    out = {key: np.concatenate(values) for key, values in parts.items()}
    out["rounds"] = np.asarray(rounds)
    out["cpu_seconds"] = np.asarray(cpu)
    return out


__all__ = [
    "LEVEL_MIX",
    "PRESETS",
    "CorpusConfig",
    "Records",
    "Summary",
    "contract_table",
    "generate",
    "load",
    "make_shard",
    "play_game",
    "score_value",
    "seat_table",
    "shard_path",
]
