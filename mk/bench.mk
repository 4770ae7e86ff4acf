# The service benchmark's h2load mode (bench/bench_service.py --mode h2load; `make bench` runs
# it after the Python-client mode).
#
#   make bench-h2load   Server CPU per call under h2load: the bare grpc.aio no-op server (on
#                       uvloop, the service's loop: the floor; on asyncio's; parsing), the
#                       health check, PlayCard (seat, host), DealRound, PlaceBid and GetView at
#                       default settings and quiet (log level warning, metrics off), the load
#                       test's match mix, and 1 against 2 workers (one port, Envoy), side by
#                       side in BENCH_ROUNDS rounds of BENCH_SECONDS per run (about 7 minutes
#                       with the defaults). Installs h2load (Debian's nghttp2-client) when it
#                       is missing. BENCH_ARGS adds options, e.g. BENCH_ARGS="--parts cases".
#   make bench-instructions
#                       CPU instructions per call under h2load (valgrind's callgrind, which
#                       the machine's load does not change): the no-op servers (the floor),
#                       the health check and PlayCard (seat, host) at default settings and
#                       quiet, DealRound and GetView, with the ratios health / floor and
#                       PlayCard / health and the share of logging and metrics (about 4
#                       minutes; 7 with --repeat 2 --place-bid). INSTRUCTIONS_ARGS adds
#                       options: INSTRUCTIONS_ARGS="--repeat 2 --place-bid", --cases, --keep.

BENCH_SECONDS ?= 5
BENCH_ROUNDS ?= 3
BENCH_ARGS ?=
INSTRUCTIONS_ARGS ?=

.PHONY: bench-h2load bench-instructions

bench-h2load: $(STAMP) ## Server CPU per call under h2load, side by side (BENCH_SECONDS=5, BENCH_ROUNDS=3).
	$(PY) bench/bench_service.py --mode h2load --seconds $(BENCH_SECONDS) \
	  --rounds $(BENCH_ROUNDS) $(BENCH_ARGS)

bench-instructions: $(STAMP) ## CPU instructions per call under h2load (callgrind): floors, health, RPCs.
	$(PY) bench/instructions.py $(INSTRUCTIONS_ARGS)

# The exact solver (bench/bench_solver.py): CPU per position on one core for SOLVER_DEALS
# random full deals (half Sun, half Hokm) and the positions after 2, 4 and 6 tricks, in
# calibration loops, beside the pure-Python reference on a few deals and the bots' endgame
# solver of release 0.2.0 (about 2 minutes with the defaults). SOLVER_ARGS adds options.
SOLVER_DEALS ?= 1000
SOLVER_ARGS ?= --reference 3 --old-endgame 14e5d92680b5b78bbe50a8b4b2f4251c098b645c

.PHONY: solver-bench

solver-bench: $(STAMP) ## The exact solver: CPU per full deal and later positions, in calibration loops.
	$(PY) bench/bench_solver.py --deals $(SOLVER_DEALS) $(SOLVER_ARGS)

# The fair-play analysis (bench/bench_fairplay.py): a pool of FAIRPLAY_MATCHES seeded matches per
# bot type (honest RANDOM, BASIC, STRONG, EXPERT; the cheaters of bench/fairplay_bots.py) played
# and analysed once, seat 0 measured, kept in bench/fairplay_pool.jsonl (a later run adds to
# it); then the calibration on honest sets, the detection power at 1 % false positives for sets
# of 3, 10 and 30 matches, the CPU per match analysed, and the ROC chart of docs/fairplay.md.
# About 8 CPU seconds a match (EXPERT's own play more); FAIRPLAY_ARGS adds options, e.g.
# FAIRPLAY_ARGS="--minutes 50" or "--report-only".
FAIRPLAY_MATCHES ?= 40
FAIRPLAY_ARGS ?=

.PHONY: fairplay-bench

fairplay-bench: $(STAMP) ## Fair play: calibration, detection power at 1 % FPR, ROC chart (FAIRPLAY_MATCHES=40).
	$(PY) bench/bench_fairplay.py --matches $(FAIRPLAY_MATCHES) $(FAIRPLAY_ARGS)
