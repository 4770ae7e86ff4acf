"""The solver's recorded workload: the searches the engine really makes, replayed and checked.

Bridge's DDS publishes such a benchmark: the calls a real program made to the solver, recorded
to a file, replayed, every result checked against the recorded one. This is the same for the
exact solver. ``record`` plays seeded rounds and records every search of the one solver entry
point every caller goes through (:func:`baloot_engine.solver.new_search`, watched with
:func:`~baloot_engine.solver.watching_searches`):

* ``expert``: the decisions of EXPERT bots (two seats) in seeded matches of bots;
* ``analysis``: ``analyze`` of those matches' records at the QUICK depth (each card's fair loss
  over sampled worlds, and the par of each round);
* ``solve_deal``: ``SolveDeal``'s work (``api.solving.run``: every card of the position, and
  the par) at the first lead and after 2, 4 and 6 tricks of each round of those matches.

Each search is written with what it was made for (trump, closed game, the four rule flags the
search reads, the team counted), then each call with its arguments (the hands, the trick, the
leader, the cards played, the Akka, the node limit, the null window) and its answer and the
cards it tried, in the order they were made. ``replay`` makes them again:

* **warm**: every call in the recorded order on its own search, each search's table carrying
  what its earlier calls stored (as the callers had it), with its node limit;
* **cold**: every call on a fresh search (an empty table), without the node limit (a call the
  limit stopped is left out).

Every answer must say what the recorded one said of the call's null window: at or below
``alpha``, at or above ``beta``, or the exact value between (a bound past the window may be
another bound of the same side: it depends on what the table held). With the search that
recorded the file, the warm replay also tries the recorded number of cards at every call (the
search is deterministic); a changed search may try other numbers (they are counted), and a call
stopped by its node limit, when recorded or now, is replayed but not checked.

It prints CPU per call by caller and by trick depth (the tricks completed before the call's
position), warm and cold, in microseconds and in calibration loops
(``bench_rules.calibration_loops`` on the CPU clock, beside the replay), with the load average;
it exits non-zero when an answer differs.

    python bench/solver_workload.py record [--matches 2] [--rounds 2] [--out FILE]
    python bench/solver_workload.py replay [FILE] [--repeat 3]
"""

from __future__ import annotations

import argparse
import gzip
import json
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_rules import calibration_loops

from baloot_engine.rules.contract import Contract, ContractType, PlayMode
from baloot_engine.rules.ruleset import PRESETS, PartnerWinningRule, Preset, RuleSet
from baloot_engine.solver import DealSearch, new_search, watching_searches

DEFAULT_FILE = Path(__file__).resolve().parent / "data" / "solver_workload.jsonl.gz"
SOURCES = ("expert", "analysis", "solve_deal")


def load() -> str:
    """The machine's load average over the last minute."""
    return Path("/proc/loadavg").read_text().split()[0]


# -- recording ---------------------------------------------------------------------------------


class Recorder:
    """Every search made while it watches, and every call to them, in order."""

    def __init__(self) -> None:
        self.lines: list[dict[str, Any]] = []
        self.source = ""
        self.searches = 0

    def watch(self, search: DealSearch, contract: Contract, rules: RuleSet, team: int) -> Any:
        """Wrap a new search (see :func:`watching_searches`)."""
        index = self.searches
        self.searches += 1
        self.lines.append(
            {
                "search": index,
                "source": self.source,
                "trump": contract.trump,
                "closed": contract.closed,
                "overtrump_partner": rules.overtrump_partner,
                "undertrump_required": rules.undertrump_required,
                "partner_rule": rules.partner_winning_rule.value,
                "akka_declared": rules.akka_requires_declaration,
                "team": team,
            }
        )
        return _Recording(search, index, self.lines)

    @contextmanager
    def recording(self, source: str) -> Iterator[None]:
        """Record the searches made in the block as ``source``'s."""
        self.source = source
        with watching_searches(self.watch):
            yield


class _Recording:
    """A search that records its calls (the :class:`DealSearch` protocol)."""

    def __init__(self, search: DealSearch, index: int, lines: list[dict[str, Any]]) -> None:
        self._search = search
        self._index = index
        self._lines = lines

    @property
    def nodes(self) -> int:
        return self._search.nodes

    def value(
        self,
        hands: tuple[int, int, int, int],
        trick: tuple[int, ...],
        leader: int,
        played: int,
        akka: bool,
        max_nodes: int = 0,
        deadline: float = 0.0,
        alpha: int = -1,
        beta: int = -1,
    ) -> int | None:
        before = self._search.nodes
        found = self._search.value(
            hands, trick, leader, played, akka, max_nodes, deadline, alpha, beta
        )
        tried = self._search.nodes - before
        by_deadline = found is None and not (max_nodes and tried > max_nodes)
        self._lines.append(
            {
                "s": self._index,
                "h": list(hands),
                "t": list(trick),
                "l": leader,
                "p": played,
                "a": int(akka),
                "n": max_nodes,
                "w": [alpha, beta],
                "v": found,
                "k": tried,
                **({"stopped": 1} if by_deadline else {}),
            }
        )
        return found


def record(matches: int, rounds: int, out: Path) -> None:
    """Play and analyse seeded matches, recording every search (see the module's docstring)."""
    from baloot_engine.analysis import Depth, analyze, budget_of
    from baloot_engine.analysis.selfplay import play_record
    from baloot_engine.api.solving import LiveJob, run
    from baloot_engine.bots import Level
    from baloot_engine.rules.record import replay
    from baloot_engine.rules.state import Phase

    recorder = Recorder()
    started = time.monotonic()
    for seed in range(matches):
        levels = [Level.EXPERT, Level.BASIC, Level.EXPERT, Level.BASIC]
        if seed % 2:
            levels = [Level.BASIC, Level.EXPERT, Level.BASIC, Level.EXPERT]
        with recorder.recording("expert"):
            start, played = play_record(levels, 100 + seed, max_rounds=rounds)
        with recorder.recording("analysis"):
            for _ in analyze(start, played, budget=budget_of(Depth.QUICK), seed=seed):
                pass
        with recorder.recording("solve_deal"):
            for step in replay(start, played):
                state = step.state
                if state.phase is not Phase.PLAYING or state.trick or state.turn < 0:
                    continue
                if len(state.tricks) in (0, 2, 4, 6):
                    assert run(LiveJob(state, 60.0)) is not None
        print(
            f"match {seed}: {len(played)} rounds, {recorder.searches} searches, "
            f"{len(recorder.lines)} lines so far, {time.monotonic() - started:.0f} s"
        )
    out.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(out, "wt", encoding="ascii") as handle:
        for line in recorder.lines:
            handle.write(json.dumps(line, separators=(",", ":")) + "\n")
    calls = sum(1 for line in recorder.lines if "s" in line)
    print(f"recorded {recorder.searches} searches and {calls} calls to {out}")


# -- replaying ---------------------------------------------------------------------------------


@dataclass
class Workload:
    """The recorded searches (their constructors' arguments) and calls, in order."""

    searches: dict[int, dict[str, Any]] = field(default_factory=dict)
    calls: list[dict[str, Any]] = field(default_factory=list)


def read(path: Path) -> Workload:
    """A recorded workload file."""
    workload = Workload()
    with gzip.open(path, "rt", encoding="ascii") as handle:
        for text in handle:
            line = json.loads(text)
            if "search" in line:
                workload.searches[line["search"]] = line
            else:
                workload.calls.append(line)
    return workload


def made_for(search: dict[str, Any]) -> tuple[Contract, RuleSet, int]:
    """What a recorded search was made for: a contract and a rule set that give the search the
    same trump, closed game and rule flags, and its team."""
    trump, closed = search["trump"], bool(search["closed"])
    contract = Contract(
        ContractType.SUN if trump < 0 else ContractType.HOKM,
        trump,
        0,
        multiplier=2 if closed else 1,
        mode=PlayMode.CLOSED if closed else PlayMode.OPEN,
    )
    rules = PRESETS[Preset.SEEDS].replace(
        overtrump_partner=search["overtrump_partner"],
        undertrump_required=search["undertrump_required"],
        partner_winning_rule=PartnerWinningRule(search["partner_rule"]),
        akka_requires_declaration=search["akka_declared"],
    )
    return contract, rules, search["team"]


def depth_of(call: dict[str, Any]) -> int:
    """The tricks completed before the call's position."""
    held = sum(int(hand).bit_count() for hand in call["h"])
    return (32 - held - len(call["t"])) // 4


def agrees(call: dict[str, Any], found: int | None) -> bool:
    """Whether an answer says what the recorded one says of the call's window."""
    recorded: int | None = call["v"]
    if recorded is None or found is None:
        return recorded == found
    alpha, beta = call["w"]
    if alpha >= 0 and recorded <= alpha:
        return found <= alpha
    if beta >= 0 and recorded >= beta:
        return found >= beta
    return found == recorded


@dataclass
class Timings:
    """CPU nanoseconds of calls, by (caller, trick depth)."""

    spent: dict[tuple[str, int], list[int]] = field(default_factory=lambda: defaultdict(list))
    wrong: int = 0
    checked: int = 0
    nodes: int = 0
    other_nodes: int = 0  # calls that tried another number of cards than recorded


def replay_warm(workload: Workload) -> Timings:
    """Every call in order on its own search (see the module's docstring). A search's making
    counts in its first call's time."""
    timings = Timings()
    searches: dict[int, DealSearch] = {}
    made = {index: made_for(search) for index, search in workload.searches.items()}
    clock = time.process_time_ns
    for call in workload.calls:
        if call.get("stopped"):
            continue
        index = call["s"]
        alpha, beta = call["w"]
        hands = call["h"]
        args = ((hands[0], hands[1], hands[2], hands[3]), tuple(call["t"]), call["l"])
        started = clock()
        search = searches.get(index)
        if search is None:
            search = searches[index] = new_search(*made[index])
        before = search.nodes
        found = search.value(*args, call["p"], bool(call["a"]), call["n"], 0.0, alpha, beta)
        spent = clock() - started
        tried = search.nodes - before
        timings.spent[(workload.searches[index]["source"], depth_of(call))].append(spent)
        timings.nodes += tried
        timings.other_nodes += tried != call["k"]
        if call["v"] is None or found is None:
            continue  # the node limit stopped it, when recorded or now: nothing to check
        timings.checked += 1
        if not agrees(call, found):
            timings.wrong += 1
    return timings


def replay_cold(workload: Workload) -> Timings:
    """Every call on a fresh search, without a node limit (see the module's docstring)."""
    timings = Timings()
    made = {index: made_for(search) for index, search in workload.searches.items()}
    clock = time.process_time_ns
    for call in workload.calls:
        if call.get("stopped") or call["v"] is None:
            continue
        index = call["s"]
        alpha, beta = call["w"]
        hands = call["h"]
        args = ((hands[0], hands[1], hands[2], hands[3]), tuple(call["t"]), call["l"])
        started = clock()
        search = new_search(*made[index])
        found = search.value(*args, call["p"], bool(call["a"]), 0, 0.0, alpha, beta)
        spent = clock() - started
        timings.spent[(workload.searches[index]["source"], depth_of(call))].append(spent)
        timings.checked += 1
        timings.nodes += search.nodes
        if not agrees(call, found):
            timings.wrong += 1
    return timings


def report(
    name: str, runs: list[Timings], loops_per_second: float, warm: bool
) -> dict[tuple[str, int], int]:
    """Print one replay's figures (each cell the median of the runs' totals); return the
    total nanoseconds of each cell."""
    cells = sorted(runs[0].spent)
    totals: dict[tuple[str, int], int] = {}
    other = runs[0].other_nodes
    print(
        f"{name}: {runs[0].checked:,} answers checked, {runs[0].nodes:,} cards tried"
        + (f" ({other:,} calls tried another number of cards than recorded)" if warm else "")
    )
    heads = ("tricks", "calls", "CPU ms", "us/call", "loops/call")
    print(
        f"  {'caller':<11} "
        + " ".join(f"{h:>{w}}" for h, w in zip(heads, (6, 7, 9, 9, 11), strict=True))
    )
    for source in SOURCES:
        for cell in (c for c in cells if c[0] == source):
            total = int(statistics.median(sum(run.spent[cell]) for run in runs))
            totals[cell] = total
            calls = len(runs[0].spent[cell])
            per_call = total / calls / 1e3
            print(
                f"  {source:<11} {cell[1]:>6} {calls:>7,} {total / 1e6:>9.1f} {per_call:>9.1f}"
                f" {per_call / 1e6 * loops_per_second:>11.2f}"
            )
        shown = [t for c, t in totals.items() if c[0] == source]
        if shown:
            calls = sum(len(runs[0].spent[c]) for c in cells if c[0] == source)
            print(
                f"  {source:<11} {'all':>6} {calls:>7,} {sum(shown) / 1e6:>9.1f}"
                f" {sum(shown) / calls / 1e3:>9.1f}"
                f" {sum(shown) / calls / 1e9 * loops_per_second:>11.2f}"
            )
    total = sum(totals.values())
    calls = sum(len(v) for v in runs[0].spent.values())
    print(
        f"  {'all':<11} {'':>6} {calls:>7,} {total / 1e6:>9.1f} {total / calls / 1e3:>9.1f}"
        f" {total / calls / 1e9 * loops_per_second:>11.2f}"
        f"   = {total / 1e9 * loops_per_second:,.0f} calibration loops in all"
    )
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    recording = commands.add_parser("record", help="play, analyse and solve; record the searches")
    recording.add_argument("--matches", type=int, default=2)
    recording.add_argument("--rounds", type=int, default=2, help="rounds of each match")
    recording.add_argument("--out", type=Path, default=DEFAULT_FILE)
    replaying = commands.add_parser("replay", help="replay a recorded workload, warm and cold")
    replaying.add_argument("file", type=Path, nargs="?", default=DEFAULT_FILE)
    replaying.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if args.command == "record":
        record(args.matches, args.rounds, args.out)
        return
    workload = read(args.file)
    print(
        f"solver workload {args.file.name}: {len(workload.searches):,} searches, "
        f"{len(workload.calls):,} calls; load {load()}"
    )
    loops: list[float] = []
    warm: list[Timings] = []
    cold: list[Timings] = []
    for _ in range(args.repeat):
        loops.append(calibration_loops(0.2, time.process_time))
        warm.append(replay_warm(workload))
        loops.append(calibration_loops(0.2, time.process_time))
        cold.append(replay_cold(workload))
    loops.append(calibration_loops(0.2, time.process_time))
    rate = statistics.median(loops)
    print(
        f"calibration loop beside the replay: median {rate:,.0f} loops per CPU second "
        f"(from {min(loops):,.0f} to {max(loops):,.0f}); load {load()}"
    )
    warm_totals = report("warm (each search's table as its callers had it)", warm, rate, True)
    cold_totals = report("cold (a fresh table for every call)", cold, rate, False)
    ratio = sum(warm_totals.values()) / max(1, sum(cold_totals.values()))
    print(f"warm / cold CPU: {ratio:.2f} (DDS: 0.53-0.57 on its recorded calls)")
    wrong = sum(run.wrong for run in warm + cold)
    if wrong:
        print(f"ANSWERS DIFFER from the recorded ones: {wrong}")
        raise SystemExit(1)
    print("every answer is the recorded one")


if __name__ == "__main__":
    main()
