# The TypeScript client in clients/typescript (see its README): Node packages from the committed
# lockfile, code generated from proto/, and tests that play matches against the real server.

TS_DIR := clients/typescript
TS_STAMP := $(TS_DIR)/node_modules/.installed
NPM ?= npm

.PHONY: ts-install ts-gen ts-gen-check ts-format ts-build ts-test ts-demo

$(TS_STAMP): $(TS_DIR)/package.json $(TS_DIR)/package-lock.json
	@command -v $(NPM) >/dev/null 2>&1 || { echo "ts: npm not found: install Node.js 20 or newer with npm"; exit 1; }
	cd $(TS_DIR) && $(NPM) ci --no-audit --no-fund
	@touch $@

ts-install: $(TS_STAMP) ## TypeScript client: npm ci from the committed lockfile.

ts-gen: $(TS_STAMP) ## TypeScript client: regenerate src/gen from proto/.
	cd $(TS_DIR) && $(NPM) run --silent gen

ts-gen-check: $(TS_STAMP) ## TypeScript client: fail if the committed src/gen is stale.
	cd $(TS_DIR) && $(NPM) run --silent gen:check

ts-format: $(TS_STAMP) ## TypeScript client: format the code in place (prettier).
	cd $(TS_DIR) && $(NPM) run --silent format

ts-build: $(TS_STAMP) ## TypeScript client: compile (strict) into dist/.
	cd $(TS_DIR) && $(NPM) run --silent build

ts-test: ts-gen-check $(STAMP) ## TypeScript client: format check, strict tsc, tests against a real server.
	cd $(TS_DIR) && $(NPM) run --silent format:check
	cd $(TS_DIR) && $(NPM) test

# Like `make demo`: the server of `make run` on BALOOT_PORT (DEMO_TARGET), options in DEMO_ARGS.
ts-demo: $(TS_STAMP) ## TypeScript client: play a match against the server `make run` started.
	cd $(TS_DIR) && $(NPM) run --silent demo -- --target $(DEMO_TARGET) $(DEMO_ARGS)

# `make test` runs ts-test after pytest (the Makefile reads mk/*.mk before its test rule).
EXTRA_TESTS += ts-test
