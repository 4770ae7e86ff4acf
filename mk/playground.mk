# The browser playground in playground/ (docs/playground.md): a static page, built with esbuild
# from TypeScript and the project's client, that plays a match over gRPC-Web through Envoy.
#
#   make playground        Builds the page, then uses the service of `make run` (UPSTREAM,
#                          default 127.0.0.1:50051) and the gateway of `make gateway`
#                          (127.0.0.1:GATEWAY_PORT, default 8080) when they answer and starts
#                          whichever is missing, serves the page on
#                          http://127.0.0.1:PLAYGROUND_PORT/ (default 8000) and prints the URL;
#                          Ctrl-C stops what it started. Logs in var/playground/.
#   make playground-build  npm ci (from playground/package-lock.json), type check, bundle into
#                          playground/dist/.
#   make playground-test   CI: the unit tests (playground/test/, Node), then the end-to-end test
#                          in headless Chromium (Debian's chromium,
#                          installed by scripts/install_chromium.sh when missing) against a
#                          service, a gateway and a static server of its own on free loopback
#                          ports; the screenshots go to var/artifacts/playground*.png.
#   make playground-screenshots  Writes docs/images/playground-en.png and playground-ar.png.

PG_DIR := playground
PG_STAMP := $(PG_DIR)/node_modules/.installed
PLAYGROUND_PORT ?= 8000
PLAYGROUND_TIMEOUT ?= 300

.PHONY: playground playground-install playground-build playground-browser playground-test \
	playground-screenshots playground-format

# The client is a file: dependency (typescript.mk's ts-install and ts-build prepare it).
$(PG_STAMP): $(PG_DIR)/package.json $(PG_DIR)/package-lock.json
	@command -v $(NPM) >/dev/null 2>&1 || { echo "playground: npm not found: install Node.js 20 or newer with npm"; exit 1; }
	cd $(PG_DIR) && $(NPM) ci --no-audit --no-fund
	@touch $@

playground-install: ts-install $(PG_STAMP) ## Playground: npm ci from the committed lockfile.

playground-build: ts-build playground-install ## Playground: type check and bundle the page into playground/dist/.
	cd $(PG_DIR) && $(NPM) run --silent typecheck
	cd $(PG_DIR) && $(NPM) run --silent build

playground: $(STAMP) $(GENERATED) playground-build ## The browser playground: service, Envoy and the page; prints the URL.
	$(PY) scripts/playground.py serve --port $(PLAYGROUND_PORT) \
	  --gateway $(GATEWAY_HOST):$(GATEWAY_PORT) --admin 127.0.0.1:$(GATEWAY_ADMIN_PORT) \
	  --upstream $(firstword $(UPSTREAM))

playground-browser: ## Playground: install Debian's chromium for the end-to-end test if missing.
	bash scripts/install_chromium.sh

playground-format: playground-install ## Playground: format the code in place (prettier).
	cd $(PG_DIR) && $(NPM) run --silent format

playground-test: $(STAMP) $(GENERATED) playground-build playground-browser ## Playground: format check, unit tests and the Chromium end-to-end test.
	cd $(PG_DIR) && $(NPM) run --silent format:check
	cd $(PG_DIR) && $(NPM) run --silent test
	$(PY) scripts/playground.py test --timeout $(PLAYGROUND_TIMEOUT)

playground-screenshots: $(STAMP) $(GENERATED) playground-build playground-browser ## Playground: the README's screenshots in docs/images/.
	$(PY) scripts/playground.py screenshots --timeout $(PLAYGROUND_TIMEOUT) --out docs/images

# `make test` runs playground-test after pytest.
EXTRA_TESTS += playground-test
