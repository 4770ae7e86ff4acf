# Everyday commands. `make run` serves on localhost; `make test` runs every check CI runs.
# Both set up the virtual environment on first use; a stamp file keeps later runs fast.

PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
PY := $(BIN)/python
STAMP := $(VENV)/.installed
PROTOS := $(shell find proto -name '*.proto')
GENERATED := service/baloot/v1/engine_service_pb2.py
# `make breaking` compares the contract with this git revision (CI: the previous commit).
BREAKING_AGAINST ?= HEAD~1

# Parts of the project with their own tools (the gateway, the TypeScript client…) add their
# targets in mk/*.mk and append the checks `make test` must run to EXTRA_TESTS.
EXTRA_TESTS :=

.DEFAULT_GOAL := help
.PHONY: help install gen gen-check run test lint format typecheck proto-lint breaking pytest clean demo bench

help: ## List the targets.
	@grep -hE '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-11s %s\n", $$1, $$2}'

$(STAMP): pyproject.toml
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet -e '.[dev]'
	@touch $@

install: $(STAMP) ## Create .venv and install the package with its development tools.

$(GENERATED): $(PROTOS) scripts/gen_proto.py | $(STAMP)
	$(PY) scripts/gen_proto.py

gen: $(STAMP) ## Regenerate the Python code of proto/ into service/baloot.
	$(PY) scripts/gen_proto.py

gen-check: $(STAMP) ## Fail if the committed generated code is stale.
	$(PY) scripts/gen_proto.py --check

run: $(STAMP) $(GENERATED) ## Serve on localhost:50051, metrics on localhost:9464.
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

breaking: $(STAMP) ## buf breaking against BREAKING_AGAINST (default HEAD~1), if it has a contract.
	@if git rev-parse --verify --quiet '$(BREAKING_AGAINST)^{commit}' >/dev/null \
	    && git cat-file -e '$(BREAKING_AGAINST):buf.yaml' 2>/dev/null \
	    && git cat-file -e '$(BREAKING_AGAINST):proto' 2>/dev/null; then \
	  echo "buf breaking --against .git#ref=$(BREAKING_AGAINST)"; \
	  $(BIN)/buf breaking --against '.git#ref=$(BREAKING_AGAINST)'; \
	else \
	  echo "buf breaking: skipped, $(BREAKING_AGAINST) has no earlier contract to compare with"; \
	fi

demo: $(STAMP) ## Play a match against the server `make run` started, print the score sheet.
	$(BIN)/baloot-demo

bench: $(STAMP) ## Benchmarks: the rules core in-process, then one server process over gRPC.
	$(PY) bench/bench_rules.py
	$(PY) bench/bench_service.py
	$(PY) bench/bench_records.py

pytest: $(STAMP) ## Run the test suite.
	$(BIN)/pytest

# Read the parts' targets first: a rule's prerequisites are expanded when it is read.
-include mk/*.mk

test: lint typecheck proto-lint gen-check pytest $(EXTRA_TESTS) ## Every check: lint, types, buf, stub drift, tests.

clean: ## Remove caches (keeps .venv).
	rm -rf .mypy_cache .ruff_cache .pytest_cache .hypothesis
	find . -name __pycache__ -type d -not -path './.venv/*' -prune -exec rm -rf {} +

