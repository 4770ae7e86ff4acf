# The clients in other languages (docs/clients.md), each playing against the real server that
# scripts/with_server.py starts on a free port. Their Debian packages are installed by
# scripts/clients.sh on first use (skipped when present; no Go module proxy or Maven repository
# is needed).
#
#   make clients-go       clients/go: drift check of the committed gen/, the recommended Go builds
#                         against a contract with one more proto file, go vet, build, one match
#   make clients-java     clients/java: generate, javac against Debian's jars, one match
#   make clients-grpcurl  clients/grpcurl/play_round.sh: one round over the wire, grpcurl and jq
#   make clients-kotlin   clients/kotlin: the Java classes, Debian's kotlinc over them, one round
#   make clients-go-gen   regenerate clients/go/gen after a change in proto/ (commit it)
#   make clients          the four runs (`make test` runs them too)
# SEED=7 changes the random choices of the Go and Java players.
# CLIENTS_TARGET=host:port plays against a server already running there (e.g. the one of
# `make run BALOOT_PORT=...`) instead of one started on a free port.

CLIENTS := scripts/clients.sh

.PHONY: clients clients-go clients-java clients-grpcurl clients-kotlin clients-go-gen

clients: clients-go clients-java clients-grpcurl clients-kotlin ## Go, Java, grpcurl and Kotlin clients against a real server.

clients-go: $(STAMP) ## Go client (clients/go): drift check, build from Debian's packages, play a match.
	$(CLIENTS) install go
	$(CLIENTS) go

clients-java: $(STAMP) ## Java client (clients/java): generate, compile against Debian's jars, play a match.
	$(CLIENTS) install java
	$(CLIENTS) java

clients-grpcurl: $(STAMP) ## grpcurl (clients/grpcurl): play a round over the wire, through reflection.
	$(CLIENTS) install grpcurl
	$(CLIENTS) grpcurl

clients-kotlin: $(STAMP) ## Kotlin (clients/kotlin) over the Java classes, Debian's kotlinc: one round, an Arabic refusal.
	$(CLIENTS) install kotlin
	$(CLIENTS) kotlin

clients-go-gen: $(STAMP) ## Regenerate clients/go/gen from proto/ (protoc-gen-go, protoc-gen-go-grpc).
	$(CLIENTS) install go
	cd clients/go && ../../$(BIN)/buf generate

# `make test` runs them after pytest (the Makefile reads mk/*.mk before its test rule).
EXTRA_TESTS += clients-go clients-java clients-grpcurl clients-kotlin
