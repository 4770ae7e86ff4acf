# Bots: matches between bot levels and their benchmark.
#
#   make bots-demo    Plays matches between two bot levels in-process and prints the score sheet.
#                     BOTS_LEVELS=strong:basic (team 0 : team 1), BOTS_MATCHES=2, BOTS_SEED=1.
#   make bots-bench   The measured figures of docs/bots.md: BOTS_DEALS deal sequences per pair
#                     (each played twice, teams swapped), win rates with 95 % intervals, game
#                     points per round, decision times, legality of every decision. EXPERT
#                     solving whole worlds makes a match with it about a minute of one loaded
#                     core (30 against STRONG in 32 minutes at load 6-9), so the full run (500
#                     a pair) takes a day on 2 shared cores; BOTS_DEALS=50 is a quick look.
#                     BOTS_PAIRS chooses the pairs (expert_baseline: EXPERT before it solved
#                     whole worlds); a seeded EXPERT samples at most BOTS_EXPERT_WORLDS worlds
#                     (96 when empty) and solves each to the end once BOTS_EXPERT_SOLVE_AT cards
#                     or fewer are in its hand (8 when empty); BOTS_TIMING=M adds M unseeded matches per
#                     pair timed in one process, where EXPERT searches for BOTS_EXPERT_MS.
#                     BOTS_RAW=f appends every match to f; BOTS_FIRST_SEED=n starts at deal
#                     sequence n, and bench/bench_bots.py --merge f ... sums runs in parts.
#   make bots-bench-bidding
#                     The worth of every bid of BIDDING_MATCHES seeded STRONG matches, played on
#                     from the real deal, against the bid each bidding rule chose (thresholds,
#                     the simulation over them by a margin, the simulation alone). About 10
#                     minutes for 60 matches on one core.
#   make bots-bench-reading
#                     How close each reading of the hidden hands (alike, the calls, the
#                     heuristic play model, a solved play model) brings the worlds of a level's
#                     decisions to the real deal: READING_LEVEL=expert, READING_SEEDS=1-12 (three
#                     hands each). About 9 minutes of one core.

BOTS_LEVELS ?= strong:basic
BOTS_MATCHES ?= 2
BOTS_SEED ?= 1
BOTS_DEALS ?= 500
BOTS_WORKERS ?= 2
BOTS_PAIRS ?= expert:expert_baseline,expert:strong,strong:basic
BOTS_EXPERT_WORLDS ?=
BOTS_EXPERT_SOLVE_AT ?=
BOTS_EXPERT_MS ?= 500
BOTS_TIMING ?= 0
BOTS_RAW ?=
BOTS_FIRST_SEED ?= 0
BIDDING_MATCHES ?= 60
READING_LEVEL ?= expert
READING_SEEDS ?= 1-12

.PHONY: bots-demo bots-bench bots-bench-bidding bots-bench-reading

bots-demo: $(STAMP) ## Bots play matches between levels (BOTS_LEVELS=strong:basic); prints the score sheet.
	$(PY) -m baloot_engine.bots.demo --levels $(BOTS_LEVELS) --matches $(BOTS_MATCHES) --seed $(BOTS_SEED)

bots-bench: $(STAMP) ## Bot win rates, decision times and legality (BOTS_DEALS=500 deal sequences per pair).
	$(PY) bench/bench_bots.py --deals $(BOTS_DEALS) --first-seed $(BOTS_FIRST_SEED) \
		--workers $(BOTS_WORKERS) --pairs $(BOTS_PAIRS) \
		$(if $(BOTS_EXPERT_WORLDS),--expert-worlds $(BOTS_EXPERT_WORLDS)) \
		$(if $(BOTS_EXPERT_SOLVE_AT),--expert-solve-at $(BOTS_EXPERT_SOLVE_AT)) \
		--expert-ms $(BOTS_EXPERT_MS) --timing-matches $(BOTS_TIMING) $(if $(BOTS_RAW),--raw $(BOTS_RAW))

bots-bench-bidding: $(STAMP) ## The worth of the bids each bidding rule chose, played on from the real deals.
	$(PY) bench/bench_bidding.py --matches $(BIDDING_MATCHES)

bots-bench-reading: $(STAMP) ## How close each reading of the hidden hands brings the worlds to the real deal.
	$(PY) bench/bench_reading.py --level $(READING_LEVEL) --seeds $(READING_SEEDS)
