"""CPU instructions per call of the server, under h2load: the floor, the health check, PlayCard.

Each server runs under ``valgrind --tool=callgrind`` with instrumentation off at start (so it
starts in seconds); h2load sends the warm-up calls, then instrumentation is switched on, the
counters are zeroed, h2load sends ``--calls`` calls and the counters are dumped. The count is
every instruction of the server process (all its threads: the event loop, grpc's core) over
those calls, divided by their number. Instructions do not depend on what else the machine
runs, so these figures compare across runs where the CPU times of ``--mode h2load`` do not.

The servers: the bare no-op server of ``noop_server.py`` on asyncio's loop and on uvloop's
(the service's loop), the same on uvloop parsing the request and serializing the reply with
the health messages (what a health check must do at least), and ``baloot-server`` at its
default settings (log level info, JSON lines, metrics on) and quiet (log level warning,
metrics off), on uvloop.

    python bench/instructions_telemetry.py [--calls 1000] [--warm-up 300] [--cases ...]
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
from pathlib import Path

import h2load_replay as h2
from loadtest.stack import new_state_key

CASES = (
    "no-op asyncio",
    "no-op uvloop",
    "no-op uvloop parsed",
    "health Check",
    "health Check quiet",
    "PlayCard seat",
    "PlayCard seat quiet",
)
_TOTALS = re.compile(rb"^(?:totals|summary):\s+(\d+)", re.MULTILINE)


def valgrind_prefix(out_dir: Path) -> list[str]:
    """The command that runs a server under callgrind, instrumentation off until asked."""
    valgrind = shutil.which("valgrind")
    if valgrind is None:
        raise h2.BenchError("valgrind is missing (Debian: apt-get install valgrind)")
    return [
        valgrind,
        "--tool=callgrind",
        "--instr-atstart=no",
        "--trace-children=no",
        f"--callgrind-out-file={out_dir}/callgrind.out.%p",
    ]


def _control(*argv: str) -> None:
    control = shutil.which("callgrind_control")
    if control is None:
        raise h2.BenchError("callgrind_control is missing (it comes with valgrind)")
    subprocess.run(  # noqa: S603 - callgrind_control, with our arguments
        [control, *argv], check=True, capture_output=True, timeout=120
    )


def count(
    h2load: str, server: h2.Server, replay: h2.Replay, body: Path, calls: int, warm_up: int
) -> float:
    """Instructions per call of ``server`` answering ``replay`` ``calls`` times."""
    url = server.url(replay.method)
    pid = str(server.popen.pid)
    h2.run_h2load(h2load, url, body, requests=warm_up, connections=4, streams=8)
    _control("-i", "on", pid)
    h2.run_h2load(h2load, url, body, requests=50, connections=4, streams=8)
    try:
        for _ in range(2):  # a dump that counted nothing (seen once) is taken again
            total = _counted(h2load, server, url, body, calls)
            if total:
                return total / calls
    finally:
        _control("-i", "off", pid)
    raise h2.BenchError(f"{server.name}: callgrind counted nothing twice")


def _counted(h2load: str, server: h2.Server, url: str, body: Path, calls: int) -> int:
    """Zero the counters, send ``calls`` calls, dump: the instructions of those calls."""
    pid = str(server.popen.pid)
    out = server.log_path.parent
    before = set(out.glob(f"callgrind.out.{pid}.*"))
    _control("-z", pid)
    h2.run_h2load(h2load, url, body, requests=calls, connections=4, streams=8)
    _control("-d", pid)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        dumped = sorted(set(out.glob(f"callgrind.out.{pid}.*")) - before)
        if dumped:
            time.sleep(0.5)  # let callgrind finish writing the file
            match = _TOTALS.search(dumped[-1].read_bytes())
            if match:
                for path in dumped:
                    path.unlink()
                return int(match.group(1))
        time.sleep(0.2)
    raise h2.BenchError(f"no callgrind dump from {server.name}")


def start(case: str, scratch: Path, key: str) -> h2.Server:
    """The server of ``case``, under callgrind."""
    prefix = valgrind_prefix(scratch)
    if case.startswith("no-op"):
        loop = "asyncio" if "asyncio" in case else "uvloop"
        extra = ("--parse",) if "parsed" in case else ()
        return h2.start_floor(scratch, loop, prefix=prefix, extra=extra, timeout=300)
    quiet = case.endswith("quiet")
    name = case.replace(" ", "-")
    return h2.start_engine(scratch, name, key, quiet=quiet, prefix=prefix, timeout=300)


def main() -> int:
    """Count every case; print a table (median of ``--repeat`` counts per case)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=1000, help="calls counted per case")
    parser.add_argument("--warm-up", type=int, default=300, help="calls before counting")
    parser.add_argument("--repeat", type=int, default=1, help="counts per case (median)")
    parser.add_argument("--cases", default=",".join(CASES), help="comma-separated")
    args = parser.parse_args()
    cases = [c.strip() for c in args.cases.split(",") if c.strip()]
    unknown = set(cases) - set(CASES)
    if unknown:
        raise SystemExit(f"--cases: unknown {sorted(unknown)}; choose from {', '.join(CASES)}")
    h2load = h2.ensure_h2load()
    key = new_state_key()
    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory(prefix="baloot-instructions-") as scratch_name:
        scratch = Path(scratch_name)
        replays = {"health Check": h2.health_replay()}
        if any(c.startswith("PlayCard") for c in cases):
            plain = h2.start_engine(scratch, "prepare", key)
            try:
                replays.update(h2.prepare_replays(plain.target))
            finally:
                plain.stop()
        bodies = {name: replay.write_body(scratch) for name, replay in replays.items()}
        for case in cases:
            rpc = "PlayCard seat" if case.startswith("PlayCard") else "health Check"
            server = start(case, scratch, key)
            try:
                counts = [
                    count(h2load, server, replays[rpc], bodies[rpc], args.calls, args.warm_up)
                    for _ in range(args.repeat)
                ]
            finally:
                server.stop()
            results[case] = statistics.median(counts)
            print(f"  {case:<24}{results[case]:>12,.0f} instructions per call", flush=True)
    print()
    print(f"instructions per call, {args.calls} calls after {args.warm_up} of warm-up:")
    for case, value in results.items():
        print(f"  {case:<24}{value:>12,.0f}")
    for top, bottom in (
        ("health Check", "no-op uvloop"),
        ("health Check", "no-op uvloop parsed"),
        ("health Check", "no-op asyncio"),
    ):
        if top in results and bottom in results:
            print(f"  {top} / {bottom}: {results[top] / results[bottom]:.2f}x")
    for rpc in ("health Check", "PlayCard seat"):
        if rpc in results and f"{rpc} quiet" in results:
            default, quiet = results[rpc], results[f"{rpc} quiet"]
            if not default:
                continue
            print(
                f"  logging + metrics of {rpc}: {default - quiet:,.0f} "
                f"({(default - quiet) / default:.1%})"
            )
    return 0


if __name__ == "__main__":
    os.environ.setdefault("PYTHONHASHSEED", "0")
    sys.exit(main())
