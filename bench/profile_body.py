"""The servicer's body alone, in this process: what a call costs without gRPC and the network.

The requests are the real ones of ``h2load_replay.prepare_replays`` (a match played against a
server started for the purpose, which shares this script's key). Each is parsed once, then
sent ``--calls`` times straight to the RPC's body (``BalootEngineServicer.<RPC>.__wrapped__``:
the size checks, the credential, the token's opening, decoding and ``validate``, the rules,
the events, the next token's encoding and sealing, the views), with no ledger, as the server
runs by default. It prints, per request:

- the CPU time per call (``time.process_time``; noisy on a shared machine);
- with ``--instructions``: the instructions per call, counted by callgrind. The script runs
  itself again under ``valgrind --tool=callgrind --instr-atstart=no`` and switches counting
  on and off around the loop with ``callgrind_control`` (on its own process id), so only the
  calls are counted;
- with ``--profile N``: cProfile's N costliest functions by their own time.

    python bench/profile_body.py [--calls 2000] [--instructions] [--profile 25] [--only NAME]
"""

from __future__ import annotations

import argparse
import cProfile
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import h2load_replay as h2
from loadtest.stack import new_state_key

from baloot.v1 import engine_service_pb2 as pb
from baloot_engine.api import inbound
from baloot_engine.api.sealing import KeyRing
from baloot_engine.api.servicer import BalootEngineServicer
from baloot_engine.lanes import Lanes, LanesConfig
from baloot_engine.telemetry.metrics import Metrics

CASES = ("PlayCard seat", "PlayCard host", "DealRound", "GetView", "PlaceBid")
_REQUESTS = {
    "PlayCard": pb.PlayCardRequest,
    "DealRound": pb.DealRoundRequest,
    "GetView": pb.GetViewRequest,
    "PlaceBid": pb.PlaceBidRequest,
}
_MARK = "profile_body:"


def _replays(key: str) -> dict[str, h2.Replay]:
    with tempfile.TemporaryDirectory(prefix="profile-body-") as tmp:
        server = h2.start_engine(Path(tmp), "replays", key, quiet=True)
        try:
            return h2.prepare_replays(server.target)
        finally:
            server.stop()


def _control(*args: str) -> None:
    subprocess.run(  # noqa: S603 - callgrind_control on this very process
        [shutil.which("callgrind_control") or "callgrind_control", *args, str(os.getpid())],
        capture_output=True,
        check=True,
        timeout=120,
    )


def run_inline(coroutine: Any) -> Any:
    """Run an RPC body that awaits nothing pending (a table's action, inline) to its end,
    without an event loop; its result."""
    try:
        coroutine.send(None)
    except StopIteration as done:
        return done.value
    coroutine.close()
    raise RuntimeError("the body awaited work of another lane")


def _loop(servicer: BalootEngineServicer, method: str, request: Any, calls: int) -> None:
    body = getattr(BalootEngineServicer, method).__wrapped__
    for _ in range(calls):
        inbound.check_sizes(request)
        run_inline(body(servicer, request, None))


def measure(key: str, replays: dict[str, tuple[str, bytes]], args: argparse.Namespace) -> None:
    """Loop over each request's body; print what it costs (run in the measuring process)."""
    servicer = BalootEngineServicer(
        KeyRing.from_texts((key,)),
        Metrics(),
        allow_preset_deck=False,
        lanes=Lanes(LanesConfig().inline()),
    )
    for name, (method, message) in replays.items():
        request = _REQUESTS[method].FromString(message)
        _loop(servicer, method, request, 50)  # warm-up
        if args.counting:
            out = Path(args.counting)
            before = set(out.parent.glob(out.name + "*"))
            _control("--zero")
            _control("--instr=on")
            _loop(servicer, method, request, args.calls)
            _control("--instr=off")
            _control("--dump=" + name.replace(" ", "-"))
            dumps = sorted(set(out.parent.glob(out.name + "*")) - before)
            totals = [
                line for line in dumps[-1].read_text().splitlines() if line.startswith("totals:")
            ]
            per_call = int(totals[0].split()[1]) / args.calls
            print(f"{_MARK}{name}:{per_call:.0f}", flush=True)
            continue
        start = time.process_time()
        _loop(servicer, method, request, args.calls)
        us = (time.process_time() - start) * 1e6 / args.calls
        print(f"  {name:<14} {us:8.1f} µs per call (CPU)", flush=True)
        if args.profile:
            profiler = cProfile.Profile()
            profiler.enable()
            _loop(servicer, method, request, args.calls)
            profiler.disable()
            stats = pstats.Stats(profiler)
            stats.sort_stats(args.sort).print_stats(args.profile)


def main(argv: list[str] | None = None) -> int:
    """Prepare the requests, then measure here or in a child under callgrind."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--calls", type=int, default=2000)
    parser.add_argument("--instructions", action="store_true", help="count with callgrind")
    parser.add_argument("--profile", type=int, default=0, help="cProfile's N costliest")
    parser.add_argument("--only", nargs="*", default=None, help="only these requests")
    parser.add_argument("--sort", default="tottime", help="cProfile order (tottime, cumtime)")
    parser.add_argument("--counting", default="", help=argparse.SUPPRESS)
    parser.add_argument("--replays", default="", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.counting:  # the child under callgrind
        key, _, path = args.replays.partition(":")
        loaded: dict[str, tuple[str, bytes]] = {}
        for line in Path(path).read_text().splitlines():
            name, method, hex_message = line.split("\t")
            loaded[name] = (method, bytes.fromhex(hex_message))
        measure(key, loaded, args)
        return 0
    key = new_state_key()
    replays = {
        name: (replay.method.rsplit("/", 1)[1], replay.message)
        for name, replay in _replays(key).items()
        if args.only is None or name in args.only
    }
    if not args.instructions:
        measure(key, replays, args)
        return 0
    with tempfile.TemporaryDirectory(prefix="profile-body-") as tmp:
        listing = Path(tmp) / "replays.tsv"
        listing.write_text(
            "".join(f"{n}\t{m}\t{b.hex()}\n" for n, (m, b) in replays.items()), encoding="ascii"
        )
        out = Path(tmp) / "callgrind.out"
        argv2 = [
            shutil.which("valgrind") or "valgrind",
            "--tool=callgrind",
            "--instr-atstart=no",
            f"--callgrind-out-file={out}",
            sys.executable,
            __file__,
            "--calls",
            str(args.calls),
            "--counting",
            str(out),
            "--replays",
            f"{key}:{listing}",
        ]
        done = subprocess.run(argv2, capture_output=True, text=True, check=False)  # noqa: S603
        if done.returncode != 0:
            print(done.stdout, done.stderr, file=sys.stderr)
            return 1
        print(f"instructions per call of the body, {args.calls} calls after 50:")
        for line in done.stdout.splitlines():
            if line.startswith(_MARK):
                name, per_call = line[len(_MARK) :].rsplit(":", 1)
                print(f"  {name:<14} {int(per_call):>10,}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
