# Research environments (baloot_engine.research, the `research` extra): the benchmark of
# docs/research.md. Their tests are under tests/research and run with `make pytest`.
#
#   make research-bench   Random deals on the bare rules core, through the PettingZoo
#                         environment and through the OpenSpiel game, in alternating slices
#                         of one run: steps and rounds per second, ratios to the core.
#                         RESEARCH_SECONDS per side (default 20), RESEARCH_PRESET (seeds).
#   make research-baselines
#                         The baseline table of docs/research.md: RANDOM, BASIC, STRONG and
#                         EXPERT teams against BASIC, each deal mirrored (bench/
#                         bench_research_baselines.py; EXPERT is slow: about a second of CPU
#                         a deal), then OpenSpiel's IS-MCTS against BASIC
#                         (bench/bench_research_ismcts.py). BASELINE_DEALS mirrored pairs
#                         (default 1000; EXPERT 300, IS-MCTS 70).

RESEARCH_SECONDS ?= 20
RESEARCH_PRESET ?= seeds
BASELINE_DEALS ?= 1000

.PHONY: research-bench research-baselines

research-bench: $(STAMP) ## Research environments: steps and rounds per second against the rules core.
	$(PY) bench/bench_research.py --seconds $(RESEARCH_SECONDS) --preset $(RESEARCH_PRESET) --openspiel

research-baselines: $(STAMP) ## Research baselines: teams of each bot level, and IS-MCTS, against BASIC.
	$(PY) bench/bench_research_baselines.py --deals $(BASELINE_DEALS) --expert-deals 300
	$(PY) bench/bench_research_baselines.py --levels random --partner basic --deals $(BASELINE_DEALS)
	$(PY) bench/bench_research_ismcts.py --deals 70
