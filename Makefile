# Everyday commands. `make run` serves on localhost; `make test` runs every check CI runs.
# Both set up the virtual environment on first use; a stamp file keeps later runs fast.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
RUN_STAMP := $(VENV)/.installed-run
PROTOS := $(shell find proto -name '*.proto')
GENERATED := service/baloot/v1/engine_service_pb2.py
# `make breaking` compares the contract with this git revision (CI: the previous commit), and with
# the last release: the nearest tag v<major>.<minor>.<patch> reachable from HEAD (CHANGELOG.md),
# else the commit released last, named here (a clone without tags still compares with it).
BREAKING_AGAINST ?= HEAD~1
LAST_RELEASE_COMMIT := 14e5d92680b5b78bbe50a8b4b2f4251c098b645c# 0.2.0
RELEASE_TAG ?= $(or $(shell git describe --tags --abbrev=0 --match 'v[0-9]*.[0-9]*.[0-9]*' HEAD 2>/dev/null),$(shell git cat-file -e $(LAST_RELEASE_COMMIT)^{commit} 2>/dev/null && echo $(LAST_RELEASE_COMMIT)))
# A contract from before the file options (go_package, java_package…) and the RPCs'
# idempotency_level were set: setting them the first time is not a break, every other FILE rule
# still applies (the rest is the same as buf.yaml).
FIRST_OPTION_RULES := RPC_SAME_IDEMPOTENCY_LEVEL FILE_SAME_GO_PACKAGE FILE_SAME_JAVA_PACKAGE FILE_SAME_JAVA_MULTIPLE_FILES \
  FILE_SAME_JAVA_OUTER_CLASSNAME FILE_SAME_CSHARP_NAMESPACE FILE_SAME_OBJC_CLASS_PREFIX \
  FILE_SAME_PHP_NAMESPACE FILE_SAME_RUBY_PACKAGE FILE_SAME_SWIFT_PREFIX
comma := ,
BREAKING_BEFORE_OPTIONS := {"version":"v2","modules":[{"path":"proto"}],"breaking":{"use":["FILE"],\
  "except":[$(subst $(eval) ,$(comma),$(patsubst %,"%",$(FIRST_OPTION_RULES)))],"ignore":["proto/baloot/internal"]}}

# Parts of the project with their own tools (the gateway, the TypeScript client…) add their
# targets in mk/*.mk and append the checks `make test` must run to EXTRA_TESTS.
EXTRA_TESTS :=

.DEFAULT_GOAL := help
.PHONY: help install gen gen-check run test check check-rules check-api lint format typecheck proto-lint \
  breaking pytest clean demo bench fuzz

help: ## List the targets.
	@grep -hE '^[a-z0-9-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-23s %s\n", $$1, $$2}'

# The solver's compiled search is built by the package's install: a change to it reinstalls.
SOLVER_C := service/baloot_engine/solver/_search.c

$(STAMP): pyproject.toml $(SOLVER_C)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@ $(RUN_STAMP)

# Serving needs only the package and its runtime dependencies: the generated code is committed,
# so `make run` and `make demo` on a fresh clone install no linter, generator or gateway.
$(RUN_STAMP): pyproject.toml $(SOLVER_C)
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e .
	@touch $@

install: $(STAMP) ## Create .venv and install the package with its development tools.

$(GENERATED): $(PROTOS) scripts/gen_proto.py | $(STAMP)
	$(PY) scripts/gen_proto.py

gen: $(STAMP) ## Regenerate the Python code of proto/ into service/baloot.
	$(PY) scripts/gen_proto.py

gen-check: $(STAMP) ## Fail if the committed generated code is stale.
	$(PY) scripts/gen_proto.py --check

# What serving needs: the runtime install, and fresh generated code once the development tools
# are there (a changed proto file is regenerated; a fresh clone's committed code is used as is).
RUN_DEPS = $(RUN_STAMP) $(if $(wildcard $(STAMP)),$(GENERATED))

# `make run` passes every BALOOT_* variable to the server, from the environment or the command
# line (make run BALOOT_PORT=50052 BALOOT_LOG_FORMAT=json); README.md lists them.
run: $(RUN_DEPS) ## Serve on localhost:50051 (BALOOT_* settings), metrics on localhost:9464.
	$(BIN)/baloot-server

lint: $(STAMP) ## ruff check and ruff format --check.
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

format: $(STAMP) ## Format the Python code in place.
	$(BIN)/ruff format .
	$(BIN)/ruff check --fix .

typecheck: $(STAMP) ## mypy --strict on the package (generated code excluded).
	$(BIN)/mypy --strict

proto-lint: $(STAMP) ## buf lint on proto/.
	$(BIN)/buf lint

# One `buf breaking` run against git revision $(1), named $(2) in what it prints: skipped when that
# revision has no contract, with the first-options configuration when its contract predates them.
define breaking_against
	@if git rev-parse --verify --quiet '$(1)^{commit}' >/dev/null \
	    && git cat-file -e '$(1):buf.yaml' 2>/dev/null \
	    && git cat-file -e '$(1):proto' 2>/dev/null; then \
	  if git grep -q 'option go_package' '$(1)' -- proto/baloot/v1; then \
	    echo "buf breaking --against .git#ref=$(1) ($(2))"; \
	    $(BIN)/buf breaking --against '.git#ref=$(1)'; \
	  else \
	    echo "buf breaking --against .git#ref=$(1) ($(2), a contract from before the file and RPC options: their first setting is not a change)"; \
	    $(BIN)/buf breaking --against '.git#ref=$(1)' --config '$(BREAKING_BEFORE_OPTIONS)'; \
	  fi; \
	else \
	  echo "buf breaking: skipped against $(2) $(1), which has no earlier contract to compare with"; \
	fi
endef

breaking: $(STAMP) ## buf breaking against the previous commit (BREAKING_AGAINST) and the last release tag (RELEASE_TAG).
	$(call breaking_against,$(BREAKING_AGAINST),the previous commit)
	@if [ -z '$(RELEASE_TAG)' ]; then \
	  echo "buf breaking: skipped against the last release: no tag v<major>.<minor>.<patch> is reachable from HEAD (CHANGELOG.md lists the releases)"; \
	fi
	$(if $(RELEASE_TAG),$(call breaking_against,$(RELEASE_TAG),the last release))

# `make demo` plays against the server of `make run` on BALOOT_PORT (default 50051); DEMO_ARGS
# adds options: DEMO_ARGS="--matches 3 --preset kammelna --seed 7" (or another --target).
DEMO_TARGET ?= localhost:$(or $(BALOOT_PORT),50051)
DEMO_ARGS ?=

demo: $(RUN_STAMP) ## Play a match against the server of `make run` (BALOOT_PORT, DEMO_ARGS); score sheet.
	$(BIN)/baloot-demo --target $(DEMO_TARGET) $(DEMO_ARGS)

bench: $(STAMP) ## Benchmarks: the rules core, then one server (Python-client latency, h2load CPU).
	$(PY) bench/bench_rules.py
	$(PY) bench/bench_service.py --mode both
	$(PY) bench/bench_records.py

fuzz: $(STAMP) ## 20,000 random and mutated requests on every RPC of one server; statuses by code.
	$(PY) bench/fuzz_requests.py --requests 20000

pytest: $(STAMP) ## Run the test suite.
	$(BIN)/pytest

# `make check`: the quick check before a commit (about a minute and a half of CPU; well under two
# minutes of wall time on two idle cores): lint first, then the types, the rules tests and the
# API and client-contract tests side by side, one job per core. No server subprocess, gateway,
# browser or other language: `make test` runs those.
check: lint ## Quick check: lint, then types, rules and API tests in parallel (README: how long).
	@$(MAKE) --no-print-directory -j2 --output-sync=target typecheck check-rules check-api

check-rules: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider tests/rules

check-api: $(STAMP)
	$(BIN)/pytest -q -p no:cacheprovider -m "not slow" tests/api tests/clients

# Read the parts' targets first: a rule's prerequisites are expanded when it is read.
-include mk/*.mk

test: lint typecheck proto-lint gen-check pytest $(EXTRA_TESTS) ## Every check: lint, types, buf, stub drift, tests.

clean: ## Remove caches (keeps .venv).
	rm -rf .mypy_cache .ruff_cache .pytest_cache .hypothesis
	find . -name __pycache__ -type d -not -path './.venv/*' -prune -exec rm -rf {} +

