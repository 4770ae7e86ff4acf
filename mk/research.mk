# Research environments (baloot_engine.research, the `research` extra): the benchmark of
# docs/research.md. Their tests are under tests/research and run with `make pytest`.
#
#   make research-bench   Random deals on the bare rules core, through the PettingZoo
#                         environment and through the OpenSpiel game, in alternating slices
#                         of one run: steps and rounds per second, ratios to the core.
#                         RESEARCH_SECONDS per side (default 20), RESEARCH_PRESET (seeds).

RESEARCH_SECONDS ?= 20
RESEARCH_PRESET ?= seeds

.PHONY: research-bench

research-bench: $(STAMP) ## Research environments: steps and rounds per second against the rules core.
	$(PY) bench/bench_research.py --seconds $(RESEARCH_SECONDS) --preset $(RESEARCH_PRESET) --openspiel
