// The Go client of the Baloot engine: the generated package gen/baloot/v1 (balootv1) and an
// example program, cmd/play. With a Go module proxy: `go mod tidy && go run ./cmd/play`.
// The versions below are the ones `go mod tidy` resolves today; the code also builds with
// the older ones Debian packages (grpc 1.33, protobuf 1.28), which is how the project's CI
// builds it (scripts/clients.sh, GOPATH mode, no network).
module github.com/baloot-engine/baloot-engine/clients/go

go 1.24

require (
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261110000943-09e21b237f2c
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)
