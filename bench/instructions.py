"""Instructions per call of the real server under h2load, counted by valgrind's callgrind.

CPU time read from ``/proc`` moves by ±15 % from run to run on a shared machine; the number of
instructions a call executes does not depend on what else runs. This benchmark starts
``baloot-server`` (one process, the settings of ``h2load_replay.start_engine``: default, or
quiet with ``--quiet``) under ``valgrind --tool=callgrind --instr-atstart=no``, so that nothing
is instrumented (nor counted) until asked, and for each replayed request (health check,
``PlayCard`` with the seat's and the host's credential, ``DealRound``, ``GetView``, optionally
``PlaceBid``):

1. h2load sends ``--warm-up`` calls (default 300) uncounted: caches, the first call's imports
   and allocations, the method's metric children;
2. ``callgrind_control --zero`` clears the counters, ``--instr=on`` starts counting;
3. h2load sends ``--calls`` calls (default 1,000), by default over one connection, one
   stream at a time (``-c 1 -m 1``): each call is read, run and written on its own, so the
   count does not depend on how calls happen to be batched. ``--connections`` and
   ``--streams`` load it as ``bench_service.py --mode h2load`` does (8 × 4), which moved the
   figures by 2-4 % when tried;
4. ``--instr=off`` stops counting and ``--dump`` writes the counters; the dump's ``totals``
   line is the instructions (``Ir``) executed by every thread of the process in between,
   which divided by the number of calls is the figure printed.

Only the server process is counted (no ``--trace-children``; the bot pool's processes are
not used by these calls). The counters are switched on and off between h2load runs, while
the server waits in ``epoll``: vgdb (which ``callgrind_control`` uses) interrupts that wait,
so what is counted is the calls and the loop's idle turns between them (its timers while
h2load starts and ends), nothing of the start-up.

Each run plays a new match for its requests (the decks are random), so a replay is not the
same position from run to run: the figures move by a few per cent between runs (up to 4 % for
the health check, whose request is always the same; more for ``PlaceBid``, whose bid may be
another). Compare two runs of each side, or more.

The requests are those of ``h2load_replay.prepare_replays``: a real match is played against a
server started normally (valgrind makes Python 20-50 times slower), and the callgrind server
shares its key, so every replay is valid there; each one is sent once with grpc first and must
end OK, and every h2load run must have every call succeed.

The script prints numbers (and the ratios of each call to the health check); it is not a
pass/fail test. ``--keep DIR`` keeps the callgrind dumps (one per case) for
``callgrind_annotate``. Takes 2-3 minutes with the defaults (``--place-bid``: PlaceBid too).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import grpc
import h2load_replay as h2
from loadtest.stack import new_state_key

CASES = ("health Check", "PlayCard seat", "PlayCard host", "DealRound", "GetView")
OPTIONAL = ("PlaceBid",)
_TOTALS = re.compile(r"^totals: (\d+)", re.MULTILINE)


@dataclass(frozen=True)
class Count:
    """One counted run: the calls and the instructions they took."""

    name: str
    calls: int
    instructions: int

    @property
    def per_call(self) -> float:
        """Instructions per call."""
        return self.instructions / self.calls


def _tool(name: str) -> str:
    found = shutil.which(name)
    if found is None:
        raise h2.BenchError(
            f"{name} is missing: install valgrind (Debian: apt-get install valgrind)"
        )
    return found


def _control(pid: int, *args: str) -> str:
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
    return done.stdout


def start_under_callgrind(scratch: Path, key: str, *, quiet: bool) -> h2.Server:
    """``baloot-server`` as ``h2load_replay.start_engine`` starts it, under callgrind."""
    port = h2.free_port()
    metrics_port = None if quiet else h2.free_port()
    env = {k: v for k, v in os.environ.items() if not k.startswith("BALOOT_")}
    env.pop("PROMETHEUS_MULTIPROC_DIR", None)
    env.update(
        BALOOT_HOST="127.0.0.1",
        BALOOT_PORT=str(port),
        BALOOT_WORKERS="1",
        BALOOT_STATE_KEYS=key,
        BALOOT_LOG_FORMAT="json",
        BALOOT_LOG_LEVEL="warning" if quiet else "info",
        BALOOT_METRICS_ENABLED="false" if quiet else "true",
        BALOOT_GRACE_SECONDS="2",
    )
    if metrics_port is not None:
        env["BALOOT_METRICS_PORT"] = str(metrics_port)
    argv = [
        _tool("valgrind"),
        "--tool=callgrind",
        "--instr-atstart=no",
        f"--callgrind-out-file={scratch}/callgrind.out.%p",
        sys.executable,
        "-m",
        "baloot_engine",
    ]
    log_path = scratch / "server.log"
    log = log_path.open("wb")
    popen = subprocess.Popen(  # noqa: S603 - valgrind on our own interpreter
        argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=env
    )
    server = h2.Server("callgrind", popen, port, metrics_port, log_path, log)
    check = h2.health_replay()
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and popen.poll() is None:
        if h2.call_raw(server.target, check.method, check.message)[0] == grpc.StatusCode.OK:
            return server
        time.sleep(1)
    server.stop()
    raise h2.BenchError(
        f"the server did not start under callgrind:\n{log_path.read_text()[-3000:]}"
    )


def _h2load(
    h2load: str, server: h2.Server, replay: h2.Replay, body: Path, calls: int, load: tuple[int, int]
) -> None:
    connections, streams = load
    run = h2.run_h2load(
        h2load,
        server.url(replay.method),
        body,
        requests=calls,
        connections=connections,
        streams=streams,
    )
    if run.succeeded != calls or run.status_2xx != calls:
        raise h2.BenchError(f"{replay.name}: {run.succeeded} of {calls} calls succeeded")


def count(
    h2load: str,
    server: h2.Server,
    replay: h2.Replay,
    body: Path,
    *,
    warm_up: int,
    calls: int,
    scratch: Path,
    load: tuple[int, int] = (1, 1),
) -> tuple[Count, Path]:
    """Warm up uncounted, then count ``calls`` calls; return the count and the dump."""
    pid = server.popen.pid
    _h2load(h2load, server, replay, body, warm_up, load)
    before = set(scratch.glob("callgrind.out.*"))
    _control(pid, "--zero")
    _control(pid, "--instr=on")
    _h2load(h2load, server, replay, body, calls, load)
    _control(pid, "--instr=off")
    _control(pid, "--dump=" + replay.name.replace(" ", "-"))
    dumps = sorted(set(scratch.glob("callgrind.out.*")) - before)
    if not dumps:
        raise h2.BenchError("callgrind wrote no dump")
    found = _TOTALS.search(dumps[-1].read_text(errors="replace"))
    if found is None:
        raise h2.BenchError(f"no totals in {dumps[-1]}")
    return Count(replay.name, calls, int(found.group(1))), dumps[-1]


def main(argv: list[str] | None = None) -> int:
    """Count, print the table."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls counted per case")
    parser.add_argument("--warm-up", type=int, default=300, help="uncounted calls first")
    parser.add_argument("--quiet", action="store_true", help="log level warning, metrics off")
    parser.add_argument("--place-bid", action="store_true", help="count PlaceBid too")
    parser.add_argument("--only", nargs="*", default=None, help="only these cases (names)")
    parser.add_argument("--connections", type=int, default=1, help="h2load -c (default 1)")
    parser.add_argument("--streams", type=int, default=1, help="h2load -m (default 1)")
    parser.add_argument("--keep", type=Path, default=None, help="keep the dumps in this folder")
    args = parser.parse_args(argv)
    h2load = h2.ensure_h2load()
    cases = [*CASES, *(OPTIONAL if args.place_bid else ())]
    if args.only:
        cases = [c for c in cases if c in args.only]
    key = new_state_key()
    with tempfile.TemporaryDirectory(prefix="bench-instr-") as tmp:
        scratch = Path(tmp)
        plain = h2.start_engine(scratch, "replays", key, quiet=True)
        try:
            replays = {"health Check": h2.health_replay(), **h2.prepare_replays(plain.target)}
        finally:
            plain.stop()
        started = time.monotonic()
        server = start_under_callgrind(scratch, key, quiet=args.quiet)
        print(f"server up under callgrind in {time.monotonic() - started:.0f} s", flush=True)
        counts: dict[str, Count] = {}
        try:
            for name in cases:
                replay = replays[name]
                h2.check_replay(server.target, replay)
                body = replay.write_body(scratch)
                result, dump = count(
                    h2load,
                    server,
                    replay,
                    body,
                    warm_up=args.warm_up,
                    calls=args.calls,
                    scratch=scratch,
                    load=(args.connections, args.streams),
                )
                counts[name] = result
                print(f"  {name:<14} {result.per_call:>12,.0f} instructions per call", flush=True)
                if args.keep is not None:
                    args.keep.mkdir(parents=True, exist_ok=True)
                    shutil.copy(dump, args.keep / f"callgrind.out.{name.replace(' ', '-')}")
        finally:
            server.stop()
    settings = "quiet (log level warning, metrics off)" if args.quiet else "default settings"
    load = f"h2load -c {args.connections} -m {args.streams}"
    print(f"\ninstructions per call, {settings}, {load}, {args.calls} calls after {args.warm_up}:")
    health = counts.get("health Check")
    for name, result in counts.items():
        ratio = f"  {result.per_call / health.per_call:.2f}x health" if health else ""
        print(f"  {name:<14} {result.per_call:>12,.0f}{ratio}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
