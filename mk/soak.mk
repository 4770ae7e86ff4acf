# Hardening runs of one server on 127.0.0.1 (docs/performance.md, "Memory over time";
# docs/server.md, "Bad input").
#
#   make soak    One server for SOAK_MINUTES (30) under a realistic mix of every RPC at
#                SOAK_RATE calls a second at most (40, one client): its RSS and its caches'
#                fill every SOAK_SAMPLE seconds (30), then the summary (RSS at the start,
#                after SOAK_WARMUP minutes (5) and at the end, the slope over the last third)
#                and each cache's bound in bytes from the server's SIGUSR2 memory dump.
#                SOAK_ARGS adds options: SOAK_ARGS="--tracemalloc 1 --dump-every 2" lists
#                what grows by file:line (tracemalloc inflates the RSS: not for the curve).
#   make forge   The forged-state campaign: FORGE_REQUESTS (30,000) requests carrying tokens
#                sealed with the server's own key over impossible states (every field of the
#                state, table play, the review, Qayd, a Baloot in a Sun), at most FORGE_RATE
#                (150) a second; status codes by RPC and by forgery. Fails on any INTERNAL,
#                UNKNOWN or DATA_LOSS, written with its plaintext to forge-faults.jsonl.

SOAK_MINUTES ?= 30
SOAK_RATE ?= 40
SOAK_SAMPLE ?= 30
SOAK_WARMUP ?= 5
SOAK_ARGS ?=
FORGE_REQUESTS ?= 30000
FORGE_RATE ?= 150
FORGE_ARGS ?=

.PHONY: soak forge

soak: $(STAMP) ## One server for SOAK_MINUTES (30) under a bounded mix: RSS curve, cache fill and bound.
	$(PY) -m loadtest.soak --minutes $(SOAK_MINUTES) --rate $(SOAK_RATE) \
	  --sample $(SOAK_SAMPLE) --warmup $(SOAK_WARMUP) $(SOAK_ARGS)

forge: $(STAMP) ## Forged-state campaign: FORGE_REQUESTS tokens sealed with the server's key; no INTERNAL.
	$(PY) -m loadtest.forge --requests $(FORGE_REQUESTS) --rate $(FORGE_RATE) $(FORGE_ARGS)
