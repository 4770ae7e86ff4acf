# Bots: matches between bot levels and their benchmark.
#
#   make bots-demo    Plays matches between two bot levels in-process and prints the score sheet.
#                     BOTS_LEVELS=strong:basic (team 0 : team 1), BOTS_MATCHES=2, BOTS_SEED=1.
#   make bots-bench   The measured figures of docs/bots.md: BOTS_DEALS deal sequences per pair
#                     (each played twice, teams swapped), win rates with 95 % intervals, decision
#                     times, legality of every decision. The full run (500) takes about an hour
#                     on 2 shared cores; BOTS_DEALS=50 gives a quick look.

BOTS_LEVELS ?= strong:basic
BOTS_MATCHES ?= 2
BOTS_SEED ?= 1
BOTS_DEALS ?= 500
BOTS_WORKERS ?= 2

.PHONY: bots-demo bots-bench

bots-demo: $(STAMP) ## Bots play matches between levels (BOTS_LEVELS=strong:basic); prints the score sheet.
	$(PY) -m baloot_engine.bots.demo --levels $(BOTS_LEVELS) --matches $(BOTS_MATCHES) --seed $(BOTS_SEED)

bots-bench: $(STAMP) ## Bot win rates, decision times and legality (BOTS_DEALS=500 deal sequences per pair).
	$(PY) bench/bench_bots.py --deals $(BOTS_DEALS) --workers $(BOTS_WORKERS)
