"""CPU instructions per call of the servers under h2load, counted by valgrind's callgrind.

CPU time read from ``/proc`` moves by ±15 % from run to run on a shared machine; the number of
instructions a call executes does not depend on what else runs, so these figures compare
across runs where the CPU times of ``bench_service.py --mode h2load`` do not.

The servers, each under ``valgrind --tool=callgrind --instr-atstart=no`` (nothing instrumented,
nor counted, until asked, so each starts in seconds):

- the floors: the bare no-op server of ``noop_server.py`` on asyncio's loop and on uvloop's
  (the service's loop: **the floor**), and the same on uvloop parsing the request and
  serializing the reply with the health messages (what a health check must do at least);
- ``baloot-server`` (one process, the settings of ``h2load_replay.start_engine``) at its default
  settings (log level info, JSON lines, metrics on) and quiet (log level warning, metrics off).

The cases (``--cases``, comma-separated; all but ``PlaceBid`` by default, ``--place-bid`` adds
it): the three floors, the health check and ``PlayCard`` with the seat's and the host's
credential at default settings and quiet, ``DealRound`` and ``GetView`` at default settings,
``PlaceBid``. Each server is started once and counts each of its cases ``--repeat`` times:

1. h2load sends ``--warm-up`` calls (default 300) uncounted: caches, the first call's imports
   and allocations, the method's metric children;
2. ``callgrind_control --instr=on`` starts instrumenting; 50 more calls, still not counted,
   run on the instrumented code;
3. ``callgrind_control --zero`` clears the counters, h2load sends ``--calls`` calls (default
   1,000) and ``callgrind_control --dump`` writes the counters: the dump's ``totals`` line is
   the instructions (``Ir``) executed by every thread of the process in between (the event
   loop, grpc's core), which divided by the number of calls is the figure printed. A dump that
   counted nothing (seen once) is taken again;
4. ``callgrind_control --instr=off`` stops instrumenting.

By default h2load uses one connection and one stream (``-c 1 -m 1``): each call is read, run
and written on its own, so the count does not depend on how calls happen to be batched.
``--connections`` and ``--streams`` load it as ``bench_service.py --mode h2load`` does (8 × 4),
which moved the figures by 2-4 % when tried. Every h2load run must have every call succeed.

Only the server process is counted (no ``--trace-children``; the lanes' processes are not
used by these calls). The counters are switched on and off between h2load runs, while the
server waits in ``epoll``: vgdb (which ``callgrind_control`` uses) interrupts that wait, so what
is counted is the calls and the loop's idle turns between them, nothing of the start-up.

The requests are those of ``h2load_replay.prepare_replays``: a real match is played against a
server started normally (valgrind makes Python 20-50 times slower), and the callgrind servers
share its key, so every replay is valid there; each one is sent once with grpc first and must
end OK. Each run plays a new match for its requests (the decks are random), so a replay is not
the same position from run to run: the figures move by a few per cent between runs (up to 4 %
for the health check, whose request is always the same; more for ``PlaceBid``, whose bid may be
another). Compare two runs of each side, or more.

The table gives each case's instructions per call (the median of its counts, and their range
when there are several) and its ratio to the health check; below it, the health check against
the floor, ``PlayCard`` (seat) against the health check, and the share of logging and metrics
(default − quiet, as a share of default). It prints numbers; it is not a pass/fail test.
``--keep DIR`` keeps the last dump of each case for ``callgrind_annotate``. Takes about 4
minutes with the defaults on the shared 2-core machine, 7 with ``--repeat 2 --place-bid``.

    python bench/instructions.py [--cases "health Check,PlayCard seat"] [--repeat 2]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import h2load_replay as h2
from loadtest.stack import new_state_key


@dataclass(frozen=True)
class Case:
    """One counted case: the server it runs on and the request it replays."""

    name: str
    server: str  # a key of SERVERS
    replay: str  # a replay's name


SERVERS = ("no-op asyncio", "no-op uvloop", "no-op uvloop parsed", "default", "quiet")
FLOOR = "no-op uvloop"
CASES = (
    Case("no-op asyncio", "no-op asyncio", "health Check"),
    Case("no-op uvloop", "no-op uvloop", "health Check"),
    Case("no-op uvloop parsed", "no-op uvloop parsed", "health Check"),
    Case("health Check", "default", "health Check"),
    Case("health Check quiet", "quiet", "health Check"),
    Case("PlayCard seat", "default", "PlayCard seat"),
    Case("PlayCard seat quiet", "quiet", "PlayCard seat"),
    Case("PlayCard host", "default", "PlayCard host"),
    Case("PlayCard host quiet", "quiet", "PlayCard host"),
    Case("DealRound", "default", "DealRound"),
    Case("GetView", "default", "GetView"),
    Case("PlaceBid", "default", "PlaceBid"),
)
OPTIONAL = ("PlaceBid",)
BY_NAME = {case.name: case for case in CASES}
_TOTALS = re.compile(rb"^(?:totals|summary):\s+(\d+)", re.MULTILINE)
_SETTLE = 50  # calls on the instrumented code before the counters are zeroed


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise h2.BenchError(
            f"{name} is missing: install valgrind (Debian: apt-get install valgrind)"
        )
    return found


def valgrind_prefix(out_dir: Path) -> list[str]:
    """The command that runs a server under callgrind, instrumentation off until asked."""
    return [
        _tool("valgrind"),
        "--tool=callgrind",
        "--instr-atstart=no",
        "--trace-children=no",
        f"--callgrind-out-file={out_dir}/callgrind.out.%p",
    ]


def _control(pid: int, *args: str) -> None:
    done = subprocess.run(  # noqa: S603 - callgrind_control, with our arguments
        [_tool("callgrind_control"), *args, str(pid)],
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    if done.returncode != 0:
        raise h2.BenchError(
            f"callgrind_control {' '.join(args)} failed:\n{done.stdout}{done.stderr}"
        )


@dataclass(frozen=True)
class Load:
    """What h2load sends to one server."""

    h2load: str
    connections: int
    streams: int

    def send(self, server: h2.Server, replay: h2.Replay, body: Path, calls: int) -> None:
        """``calls`` calls of ``replay``; raise unless every one succeeded."""
        run = h2.run_h2load(
            self.h2load,
            server.url(replay.method),
            body,
            requests=calls,
            connections=self.connections,
            streams=self.streams,
        )
        expected = max(calls, self.connections)
        if run.succeeded != expected or run.status_2xx != expected:
            raise h2.BenchError(
                f"{server.name}, {replay.name}: {run.succeeded} of {expected} calls succeeded"
            )


def count(
    load: Load,
    server: h2.Server,
    replay: h2.Replay,
    body: Path,
    *,
    calls: int,
    warm_up: int,
    keep: Path | None = None,
) -> float:
    """Instructions per call of ``server`` answering ``replay`` ``calls`` times."""
    pid = server.popen.pid
    load.send(server, replay, body, warm_up)
    _control(pid, "--instr=on")
    try:
        load.send(server, replay, body, _SETTLE)
        for _ in range(2):  # a dump that counted nothing (seen once) is taken again
            total = _counted(load, server, replay, body, calls, keep)
            if total:
                return total / calls
    finally:
        _control(pid, "--instr=off")
    raise h2.BenchError(f"{server.name}: callgrind counted nothing twice")


def _counted(
    load: Load,
    server: h2.Server,
    replay: h2.Replay,
    body: Path,
    calls: int,
    keep: Path | None,
) -> int:
    """Zero the counters, send ``calls`` calls, dump: the instructions of those calls."""
    pid = server.popen.pid
    out = server.log_path.parent
    before = set(out.glob(f"callgrind.out.{pid}.*"))
    _control(pid, "--zero")
    load.send(server, replay, body, calls)
    _control(pid, "--dump")
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        dumped = sorted(set(out.glob(f"callgrind.out.{pid}.*")) - before)
        if dumped:
            time.sleep(0.5)  # let callgrind finish writing the file
            match = _TOTALS.search(dumped[-1].read_bytes())
            if match:
                if keep is not None:
                    keep.mkdir(parents=True, exist_ok=True)
                    name = f"{server.name}.{replay.name.replace(' ', '-')}"
                    shutil.copy(dumped[-1], keep / f"callgrind.out.{name}")
                for path in dumped:
                    path.unlink()
                return int(match.group(1))
        time.sleep(0.2)
    raise h2.BenchError(f"no callgrind dump from {server.name}")


def start(server: str, scratch: Path, key: str) -> h2.Server:
    """The server ``server`` (a key of SERVERS), under callgrind."""
    prefix = valgrind_prefix(scratch)
    if server.startswith("no-op"):
        loop = "asyncio" if "asyncio" in server else "uvloop"
        extra = ("--parse",) if "parsed" in server else ()
        return h2.start_floor(scratch, loop, prefix=prefix, extra=extra, timeout=300)
    return h2.start_engine(
        scratch, f"callgrind-{server}", key, quiet=server == "quiet", prefix=prefix, timeout=300
    )


def _selected(text: str | None, place_bid: bool) -> list[Case]:
    if text is None:
        names = [c.name for c in CASES if c.name not in OPTIONAL or place_bid]
    else:
        names = [n.strip() for n in text.split(",") if n.strip()]
        unknown = [n for n in names if n not in BY_NAME]
        if unknown:
            raise SystemExit(f"--cases: unknown {unknown}; choose from {', '.join(BY_NAME)}")
        if place_bid and "PlaceBid" not in names:
            names.append("PlaceBid")
    return [case for case in CASES if case.name in names]  # in the table's order


def report(results: dict[str, list[float]], header: str) -> None:
    """Print the table: each case's median and range, its ratio, the ratios below."""
    medians = {name: statistics.median(counts) for name, counts in results.items()}
    health = medians.get("health Check")
    print(f"\n{header}")
    print(f"  {'case':<22}{'per call':>12}  {'range':<21}{'x health':>9}")
    for name, counts in results.items():
        spread = f"{min(counts):,.0f}-{max(counts):,.0f}" if len(counts) > 1 else ""
        ratio = f"{medians[name] / health:.2f}x" if health else ""
        print(f"  {name:<22}{medians[name]:>12,.0f}  {spread:<21}{ratio:>9}")
    print()
    for top, bottom, label in (
        ("health Check", FLOOR, "health Check / the floor (no-op uvloop)"),
        ("health Check", "no-op uvloop parsed", "health Check / no-op uvloop parsed"),
        ("health Check", "no-op asyncio", "health Check / no-op asyncio"),
        ("PlayCard seat", "health Check", "PlayCard seat / health Check"),
        ("PlayCard host", "health Check", "PlayCard host / health Check"),
    ):
        if top in medians and bottom in medians and medians[bottom]:
            print(f"  {label:<54}{medians[top] / medians[bottom]:.2f}x")
    for call in ("PlayCard seat", "PlayCard host", "health Check"):
        default, quiet = medians.get(call), medians.get(f"{call} quiet")
        if default and quiet is not None:
            print(
                f"  {'logging + metrics of ' + call + ' (default - quiet)':<54}"
                f"{default - quiet:,.0f} ({(default - quiet) / default:.1%} of default)"
            )


def main(argv: list[str] | None = None) -> int:
    """Count every selected case; print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls counted per case")
    parser.add_argument("--warm-up", type=int, default=300, help="uncounted calls first")
    parser.add_argument("--repeat", type=int, default=1, help="counts per case (median)")
    parser.add_argument(
        "--cases", default=None, help=f"comma-separated, from: {', '.join(BY_NAME)}"
    )
    parser.add_argument("--place-bid", action="store_true", help="count PlaceBid too")
    parser.add_argument("--connections", type=int, default=1, help="h2load -c (default 1)")
    parser.add_argument("--streams", type=int, default=1, help="h2load -m (default 1)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the dumps in this folder")
    args = parser.parse_args(argv)
    cases = _selected(args.cases, args.place_bid)
    load = Load(h2.ensure_h2load(), args.connections, args.streams)
    key = new_state_key()
    results: dict[str, list[float]] = {}
    began = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="baloot-instructions-") as scratch_name:
        scratch = Path(scratch_name)
        replays = {"health Check": h2.health_replay()}
        if any(case.replay != "health Check" for case in cases):
            plain = h2.start_engine(scratch, "replays", key, quiet=True)
            try:
                replays.update(h2.prepare_replays(plain.target))
            finally:
                plain.stop()
        bodies = {name: replay.write_body(scratch) for name, replay in replays.items()}
        for name in SERVERS:
            mine = [case for case in cases if case.server == name]
            if not mine:
                continue
            started = time.monotonic()
            server = start(name, scratch, key)
            print(f"{name}: up under callgrind in {time.monotonic() - started:.0f} s", flush=True)
            try:
                for case in mine:
                    replay = replays[case.replay]
                    if not name.startswith("no-op"):
                        h2.check_replay(server.target, replay)
                    results[case.name] = [
                        count(
                            load,
                            server,
                            replay,
                            bodies[case.replay],
                            calls=args.calls,
                            warm_up=args.warm_up,
                            keep=args.keep,
                        )
                        for _ in range(args.repeat)
                    ]
                    counted = ", ".join(f"{n:,.0f}" for n in results[case.name])
                    print(f"  {case.name:<22}{counted} instructions per call", flush=True)
            finally:
                server.stop()
    ordered = {case.name: results[case.name] for case in cases}
    report(
        ordered,
        f"instructions per call (median of {args.repeat}), h2load -c {args.connections} "
        f"-m {args.streams}, {args.calls} calls after {args.warm_up} of warm-up "
        f"({time.monotonic() - began:.0f} s in all):",
    )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
