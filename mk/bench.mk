# The service benchmark's h2load mode (bench/bench_service.py --mode h2load; `make bench` runs
# it after the Python-client mode).
#
#   make bench-h2load   Server CPU per call under h2load: a bare grpc.aio no-op server, the
#                       health check, PlayCard (seat, host), DealRound, PlaceBid and GetView at
#                       default settings and quiet (log level warning, metrics off), the load
#                       test's match mix, and 1 against 2 workers (one port, Envoy), side by
#                       side in BENCH_ROUNDS rounds of BENCH_SECONDS per run (about 7 minutes
#                       with the defaults). Installs h2load (Debian's nghttp2-client) when it
#                       is missing. BENCH_ARGS adds options, e.g. BENCH_ARGS="--parts cases".

BENCH_SECONDS ?= 5
BENCH_ROUNDS ?= 3
BENCH_ARGS ?=

.PHONY: bench-h2load

bench-h2load: $(STAMP) ## Server CPU per call under h2load, side by side (BENCH_SECONDS=5, BENCH_ROUNDS=3).
	$(PY) bench/bench_service.py --mode h2load --seconds $(BENCH_SECONDS) \
	  --rounds $(BENCH_ROUNDS) $(BENCH_ARGS)

# Instructions per call, counted by valgrind's callgrind on the server under h2load
# (bench/instructions.py): the health check, PlayCard (seat, host), DealRound and GetView, and
# each one's ratio to the health check; the machine's load does not change them. About 2-3
# minutes. INSTR_ARGS adds options, e.g. INSTR_ARGS="--quiet --calls 2000".

INSTR_ARGS ?=

.PHONY: bench-instructions

bench-instructions: $(STAMP) ## Instructions per call under callgrind and h2load (INSTR_ARGS).
	$(PY) bench/instructions.py $(INSTR_ARGS)
