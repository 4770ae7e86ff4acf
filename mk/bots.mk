# Bots: matches between bot levels and their benchmark.
#
#   make bots-demo    Plays matches between two bot levels in-process and prints the score sheet.
#                     BOTS_LEVELS=strong:basic (team 0 : team 1), BOTS_MATCHES=2, BOTS_SEED=1.
#   make bots-bench   The measured figures of docs/bots.md: BOTS_DEALS deal sequences per pair
#                     (each played twice, teams swapped), win rates with 95 % intervals, decision
#                     times, legality of every decision. The full run (500) takes about an hour
#                     on 2 shared cores, an EXPERT pair at 96 worlds about as long again on 2
#                     worker processes; BOTS_DEALS=50 is a quick look.
#                     BOTS_PAIRS chooses the pairs (expert:strong,strong:basic for the EXPERT
#                     figures); a seeded EXPERT samples BOTS_EXPERT_WORLDS worlds and solves the
#                     last BOTS_EXPERT_SOLVE_AT cards of each hand exactly; BOTS_TIMING=M adds M unseeded matches per pair
#                     timed in one process, where EXPERT searches for BOTS_EXPERT_MS. BOTS_RAW=f
#                     appends every match to f; BOTS_FIRST_SEED=n starts at deal sequence n, and
#                     bench/bench_bots.py --merge f ... sums runs in parts.

BOTS_LEVELS ?= strong:basic
BOTS_MATCHES ?= 2
BOTS_SEED ?= 1
BOTS_DEALS ?= 500
BOTS_WORKERS ?= 2
BOTS_PAIRS ?= basic:random,strong:basic
BOTS_EXPERT_WORLDS ?= 96
BOTS_EXPERT_SOLVE_AT ?= 3
BOTS_EXPERT_MS ?= 500
BOTS_TIMING ?= 0
BOTS_RAW ?=
BOTS_FIRST_SEED ?= 0

.PHONY: bots-demo bots-bench

bots-demo: $(STAMP) ## Bots play matches between levels (BOTS_LEVELS=strong:basic); prints the score sheet.
	$(PY) -m baloot_engine.bots.demo --levels $(BOTS_LEVELS) --matches $(BOTS_MATCHES) --seed $(BOTS_SEED)

bots-bench: $(STAMP) ## Bot win rates, decision times and legality (BOTS_DEALS=500 deal sequences per pair).
	$(PY) bench/bench_bots.py --deals $(BOTS_DEALS) --first-seed $(BOTS_FIRST_SEED) \
		--workers $(BOTS_WORKERS) --pairs $(BOTS_PAIRS) \
		--expert-worlds $(BOTS_EXPERT_WORLDS) --expert-solve-at $(BOTS_EXPERT_SOLVE_AT) \
		--expert-ms $(BOTS_EXPERT_MS) --timing-matches $(BOTS_TIMING) $(if $(BOTS_RAW),--raw $(BOTS_RAW))
