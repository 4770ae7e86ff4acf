# The match ledger (BALOOT_LEDGER, docs/security.md): its cost per call, measured.
#
#   make ledger-bench   One server without the ledger and one with it (and a redis-server on a
#                       free loopback port), side by side: µs per PlayCard and GetView call.

LEDGER_BENCH_ARGS ?=

.PHONY: ledger-bench

ledger-bench: $(STAMP) ## The match ledger's cost per call, with and without it (needs redis-server).
	$(PY) bench/bench_ledger.py $(LEDGER_BENCH_ARGS)
