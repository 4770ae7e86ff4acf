#!/usr/bin/env bash
# Headless Chromium for the playground's end-to-end test (make playground-test): Debian's
# `chromium` package, installed with apt-get when it is missing. Idempotent: a machine that has
# it (or a $CHROMIUM that exists) is left alone. The test drives it with playwright-core, which
# never downloads a browser of its own.
set -euo pipefail

browser="${CHROMIUM:-/usr/bin/chromium}"
if [[ -x "$browser" ]]; then
  exit 0
fi
if [[ "$(id -u)" != 0 ]]; then
  echo "playground: $browser not found; install Debian's chromium (sudo apt-get install chromium)" >&2
  echo "or point CHROMIUM at a Chromium or Chrome binary" >&2
  exit 1
fi
echo "playground: installing chromium from Debian"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends chromium fonts-noto-core >/dev/null
"$browser" --version
