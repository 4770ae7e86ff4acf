# The gateway, worker processes, the load test and the deploy files.
#
#   make gateway      Envoy on 127.0.0.1:8080 in front of the service of `make run` (127.0.0.1:50051):
#                     native gRPC (HTTP/2) and gRPC-Web with CORS for local pages on the same port,
#                     JSON access log on stdout, admin on http://127.0.0.1:9901 (loopback only).
#                     Another upstream, other ports, several upstreams (space-separated):
#                       make gateway UPSTREAM=127.0.0.1:50061 GATEWAY_PORT=8081 GATEWAY_ADMIN_PORT=9902
#                       make gateway UPSTREAM="127.0.0.1:50051 127.0.0.1:50052"
#                     Pages of other origins besides localhost (regexes, space-separated):
#                       make gateway CORS_ORIGIN='https://play\.example\.com'
#                     Without make: .venv/bin/python scripts/gateway.py run --listen 127.0.0.1:8081 \
#                       --upstream 127.0.0.1:50061 --admin 127.0.0.1:9902   (--help for the rest)
#   make run-workers  The service with WORKERS processes (default auto = one per CPU) on one port.
#   make load         After `make run`: plays complete matches through Envoy (the one of
#                     `make gateway`, or one started for the run), then prints throughput,
#                     latencies, errors by status code and the cross-check against the metrics.
#   make deploy-check Envoy configurations (envoy --mode validate, drift of the rendered variants),
#                     Kubernetes manifests (offline schemas, strict), docker-compose.yml (Compose
#                     schema), the Dockerfile and the Grafana dashboard.
#   make load-smoke   CI: starts a service with 2 workers and a gateway, plays matches for a short
#                     bounded time through the gateway, fails on any error.
#   make load-model   The card-game load model (loadtest/tables.py): tables of people acting
#                     every 2-5 s, bots, spectators, Sawa and Qayd, a reconnect storm, through
#                     Envoy; p50/p99 per RPC against concurrent tables on one server core and the
#                     most tables at p99 <= 100 ms for each bot mix (docs/performance.md). Starts
#                     its own service and gateway per mix on free loopback ports; bounded steps
#                     (MODEL_ARGS="--mixes none,strong:3 --duration 60 --json x.json --svg x.svg").
#   make load-model-smoke  CI: one step of a dozen tables at twenty times the pace, a few
#                     seconds; fails on any error or a kind of call that never came.

GATEWAY_HOST ?= 127.0.0.1
GATEWAY_PORT ?= 8080
GATEWAY_ADMIN_PORT ?= 9901
UPSTREAM ?= 127.0.0.1:50051
# Regexes of page origins allowed besides localhost (space-separated), e.g.
# CORS_ORIGIN='https://play\.example\.com'.
CORS_ORIGIN ?=
WORKERS ?= auto

.PHONY: gateway run-workers deploy-check

gateway: $(STAMP) ## Envoy gateway on :8080 in front of UPSTREAM (default 127.0.0.1:50051).
	$(PY) scripts/gateway.py run --listen $(GATEWAY_HOST):$(GATEWAY_PORT) \
	  --admin 127.0.0.1:$(GATEWAY_ADMIN_PORT) $(foreach up,$(UPSTREAM),--upstream $(up)) \
	  $(foreach origin,$(CORS_ORIGIN),--cors-origin '$(origin)')

run-workers: $(RUN_DEPS) ## Serve like `make run` with WORKERS processes (default auto).
	$(BIN)/baloot-server --workers $(WORKERS)

deploy-check: $(STAMP) ## Validate Envoy configs, Kubernetes manifests, compose, Dockerfile, dashboard.
	$(PY) scripts/gateway.py check
	$(PY) scripts/deploy_check.py

# `make load`: through the gateway of `make gateway` if one runs on GATEWAY_PORT, else through
# an Envoy started for the run in front of UPSTREAM (the service of `make run`). Add options
# with LOAD_ARGS, e.g. LOAD_ARGS=--direct (no gateway) or LOAD_ARGS="--json var/load.json".
LOAD_DURATION ?= 60
LOAD_MATCHES ?= 200
LOAD_CONCURRENCY ?= 32
LOAD_ARGS ?=
# The service's metrics endpoint, for the cross-check (the port of `make run`'s metrics).
LOAD_METRICS ?= http://127.0.0.1:$(or $(BALOOT_METRICS_PORT),9464)/metrics

.PHONY: load load-smoke load-typecheck scaling

load: $(STAMP) ## Play complete matches through Envoy against the service of `make run`.
	$(PY) -m loadtest --gateway $(GATEWAY_HOST):$(GATEWAY_PORT) --upstream $(UPSTREAM) \
	  --envoy-admin http://127.0.0.1:$(GATEWAY_ADMIN_PORT) --duration $(LOAD_DURATION) \
	  --matches $(LOAD_MATCHES) --concurrency $(LOAD_CONCURRENCY) \
	  $(foreach url,$(LOAD_METRICS),--metrics $(url)) $(LOAD_ARGS)

load-typecheck: $(STAMP)
	$(BIN)/mypy --strict loadtest

load-smoke: $(STAMP) load-typecheck ## CI: a 2-worker service and Envoy on free ports, 20 s of matches.
	$(PY) -m loadtest.smoke --duration 20

scaling: $(STAMP) ## Measure RPC/s direct and through Envoy with 1 and 2 workers (docs/performance.md).
	$(PY) -m loadtest.scaling

MODEL_ARGS ?=

.PHONY: load-model load-model-smoke

load-model: $(STAMP) ## The card-game load model: p99 per RPC against tables, per bot mix (MODEL_ARGS).
	$(PY) -m loadtest.tables $(MODEL_ARGS)

load-model-smoke: $(STAMP) load-typecheck ## CI: the load model for a few seconds (12 tables, fast pace).
	$(PY) -m loadtest.tables --smoke

# The checks `make test` runs after pytest.
EXTRA_TESTS += deploy-check load-smoke load-model-smoke
