// Command play plays one complete Baloot match against the engine with random legal actions
// taken from the views, as a game backend written in Go would drive it, and decodes the
// google.rpc.ErrorInfo and the Arabic google.rpc.LocalizedMessage of one refused action. It
// builds with Debian 12's grpc-go 1.33 and protobuf-go 1.28 as with the newest releases.
//
//	go run ./cmd/play -target localhost:50051 -seed 1 -preset kammelna
//
// The target defaults to $BALOOT_TARGET, then localhost:50051 (the server of `make run`).
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"math/rand"
	"os"
	"strings"
	"time"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	balootv1 "github.com/baloot-engine/baloot-engine/clients/go/gen/baloot/v1"
)

// serviceConfig is the project's default service config (clients/service_config.json): every
// RPC is safe to retry, so UNAVAILABLE is retried with exponential backoff. grpc-go before 1.40
// applies retry policies only with GRPC_GO_RETRY=on in the environment.
//
//go:embed service_config.json
var serviceConfig string

// maxActions bounds the match: one takes about 300 actions, so more means the loop is broken.
const maxActions = 5000

// match is what a backend stores per game room: the match id, the host credential and the
// latest token with its version. The views are those of the last response.
type match struct {
	client  balootv1.BalootEngineServiceClient
	id      string
	host    string
	state   []byte
	version uint64
	views   []*balootv1.View
}

// response is what every action RPC returns.
type response interface {
	GetState() []byte
	GetStateVersion() uint64
	GetEvents() []*balootv1.Event
	GetViews() []*balootv1.View
}

func (m *match) accept(r response) []*balootv1.Event {
	m.state, m.version, m.views = r.GetState(), r.GetStateVersion(), r.GetViews()
	return r.GetEvents()
}

// act sends one action for a seat with the latest token, as a compare-and-set on the version.
func (m *match) act(ctx context.Context, seat uint32, action *balootv1.Action) (response, error) {
	version := proto.Uint64(m.version)
	switch a := action.GetAction().(type) {
	case *balootv1.Action_Bid:
		return m.client.PlaceBid(ctx, &balootv1.PlaceBidRequest{State: m.state, MatchId: m.id,
			Credential: m.host, Seat: seat, Bid: a.Bid, ExpectedVersion: version})
	case *balootv1.Action_Doubling:
		return m.client.CallDouble(ctx, &balootv1.CallDoubleRequest{State: m.state, MatchId: m.id,
			Credential: m.host, Seat: seat, Doubling: a.Doubling, ExpectedVersion: version})
	case *balootv1.Action_Declaration:
		return m.client.DeclareProjects(ctx, &balootv1.DeclareProjectsRequest{State: m.state,
			MatchId: m.id, Credential: m.host, Seat: seat, Declaration: a.Declaration,
			ExpectedVersion: version})
	case *balootv1.Action_Play:
		return m.client.PlayCard(ctx, &balootv1.PlayCardRequest{State: m.state, MatchId: m.id,
			Credential: m.host, Seat: seat, Play: a.Play, ExpectedVersion: version})
	case *balootv1.Action_Deal:
		return m.client.DealRound(ctx, &balootv1.DealRoundRequest{State: m.state, MatchId: m.id,
			Credential: m.host, Seat: seat, DeckOrder: a.Deal.GetDeckOrder(),
			ExpectedVersion: version})
	default:
		return nil, fmt.Errorf("an action this client does not know: %v", action)
	}
}

func (m *match) deal(ctx context.Context, seat uint32) (response, error) {
	return m.client.DealRound(ctx, &balootv1.DealRoundRequest{State: m.state, MatchId: m.id,
		Credential: m.host, Seat: seat, ExpectedVersion: proto.Uint64(m.version)})
}

// refusal returns the google.rpc.ErrorInfo and the google.rpc.LocalizedMessage of a refusal
// (nil when absent), looked up by type: a newer server may add other details.
func refusal(err error) (*errdetails.ErrorInfo, *errdetails.LocalizedMessage) {
	var info *errdetails.ErrorInfo
	var text *errdetails.LocalizedMessage
	for _, detail := range status.Convert(err).Details() {
		switch d := detail.(type) {
		case *errdetails.ErrorInfo:
			info = d
		case *errdetails.LocalizedMessage:
			text = d
		}
	}
	return info, text
}

// errorInfo returns the google.rpc.ErrorInfo of a refusal, or nil.
func errorInfo(err error) *errdetails.ErrorInfo {
	info, _ := refusal(err)
	return info
}

// cardCode is the short text of a card: rank then suit letter ("10H"), see types.proto.
func cardCode(card uint32) string {
	ranks := []string{"7", "8", "9", "10", "J", "Q", "K", "A"}
	return ranks[card%8] + string("SHDC"[card/8])
}

// refuseCardNotInHand plays a card the seat does not hold, asking for the refusal in Arabic,
// and checks it: the status code, the ErrorInfo's domain and reason, the LocalizedMessage's
// locale. The token is not changed by a refusal.
func (m *match) refuseCardNotInHand(ctx context.Context, seat uint32) error {
	held := map[uint32]bool{}
	for _, card := range m.views[seat].GetHand() {
		held[card] = true
	}
	var card uint32
	for held[card] {
		card++
	}
	action := &balootv1.Action{Action: &balootv1.Action_Play{Play: &balootv1.CardPlay{Card: card}}}
	// JSON with every field, zeros included, as grpcurl -emit-defaults prints it.
	printed, err := protojson.MarshalOptions{EmitUnpopulated: true}.Marshal(action)
	if err != nil {
		return err
	}
	arabic := metadata.AppendToOutgoingContext(ctx, "accept-language", "ar")
	_, err = m.act(arabic, seat, action)
	info, text := refusal(err)
	if status.Code(err) != codes.FailedPrecondition || info == nil ||
		info.GetDomain() != "baloot.v1" || info.GetReason() != "CARD_NOT_IN_HAND" ||
		text.GetLocale() != "ar-SA" || text.GetMessage() == "" {
		return fmt.Errorf("playing %s, which seat %d does not hold: expected FAILED_PRECONDITION "+
			"with reason CARD_NOT_IN_HAND and an ar-SA message, got %v (ErrorInfo %v, "+
			"LocalizedMessage %v)", cardCode(card), seat, err, info, text)
	}
	fmt.Printf("refused: seat %d plays %s -> %s, reason %s, metadata %v: %s\n", seat,
		cardCode(card), status.Code(err), info.GetReason(), info.GetMetadata(),
		status.Convert(err).Message())
	fmt.Printf("  the action %s; %s: %s\n", strings.Join(strings.Fields(string(printed)), " "),
		text.GetLocale(), text.GetMessage())
	return nil
}

func run(target string, seed int64, preset balootv1.Preset) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	conn, err := grpc.DialContext(ctx, target, grpc.WithInsecure(),
		grpc.WithDefaultServiceConfig(serviceConfig))
	if err != nil {
		return err
	}
	defer conn.Close()
	rng := rand.New(rand.NewSource(seed))

	created, err := balootv1.NewBalootEngineServiceClient(conn).CreateMatch(ctx,
		&balootv1.CreateMatchRequest{
			Rules:       &balootv1.RuleSet{Preset: preset},
			FirstDealer: proto.Uint32(0),
		})
	if err != nil {
		return fmt.Errorf("CreateMatch: %w", err)
	}
	m := &match{client: balootv1.NewBalootEngineServiceClient(conn), id: created.GetMatchId(),
		host: created.GetHostCredential(), state: created.GetState(),
		version: created.GetStateVersion(), views: created.GetViews()}
	fmt.Printf("match %s, %s rules, seed %d\n", m.id,
		strings.ToLower(strings.TrimPrefix(preset.String(), "PRESET_")), seed)

	refused, actions := false, 0
	for ; actions < maxActions; actions++ {
		view := m.views[0] // the host sees four views, seat 0 first; phase, dealer, turn are public
		phase := view.GetPhase()
		if phase == balootv1.Phase_PHASE_MATCH_OVER {
			break
		}
		dealing := phase == balootv1.Phase_PHASE_AWAITING_DEAL ||
			phase == balootv1.Phase_PHASE_ROUND_OVER
		seat := view.GetTurn()
		if dealing {
			seat = view.GetDealer()
		}
		legal := m.views[seat].GetLegalActions()

		var r response
		switch {
		case len(legal) > 0:
			if !refused && phase == balootv1.Phase_PHASE_PLAYING && legal[0].GetPlay() != nil {
				if err := m.refuseCardNotInHand(ctx, seat); err != nil {
					return err
				}
				refused = true
			}
			r, err = m.act(ctx, seat, legal[rng.Intn(len(legal))])
		case dealing:
			// Dealing is not (yet) among the dealer's legal actions: with none listed, the
			// dealer deals with DealRound.
			r, err = m.deal(ctx, seat)
		default:
			return fmt.Errorf("seat %d has no legal action in %s", seat, phase)
		}
		if err != nil {
			return fmt.Errorf("seat %d at version %d: %w (ErrorInfo %v)", seat, m.version, err,
				errorInfo(err))
		}
		for _, event := range m.accept(r) {
			if score := event.GetRoundScore(); score != nil {
				if err := printRound(score); err != nil {
					return err
				}
			}
			if final := event.GetMatchScore(); final != nil &&
				event.GetKind() == balootv1.EventKind_EVENT_KIND_MATCH_WON {
				fmt.Printf("  winner: team %d (%d - %d), %d rounds, %d actions, last token %d bytes\n",
					final.GetWinnerTeam(), final.GetPoints()[0], final.GetPoints()[1],
					final.GetRoundsScored(), actions+1, len(m.state))
			}
		}
	}
	if m.views[0].GetPhase() != balootv1.Phase_PHASE_MATCH_OVER {
		return fmt.Errorf("the match did not end within %d actions", maxActions)
	}
	if !refused {
		return fmt.Errorf("no refusal was tried")
	}
	return nil
}

func printRound(score *balootv1.RoundScore) error {
	teams := score.GetTeams()
	if len(teams) != 2 {
		return fmt.Errorf("a round score has %d teams", len(teams))
	}
	abnat := teams[0].GetCardAbnat() + teams[1].GetCardAbnat()
	if abnat != 130 && abnat != 162 {
		return fmt.Errorf("round %d: card abnat sum to %d, not 130 or 162", score.GetRoundNumber(),
			abnat)
	}
	contract := score.GetContract()
	outcome := "failed"
	if score.GetMade() {
		outcome = "made"
	}
	fmt.Printf("  round %2d: %-4s x%d bought by seat %d (team %d), %-6s +%3d / +%3d\n",
		score.GetRoundNumber(), strings.TrimPrefix(contract.GetType().String(), "CONTRACT_TYPE_"),
		multiplier(contract), contract.GetBuyer(), contract.GetBuyerTeam(), outcome,
		teams[0].GetFinalPoints(), teams[1].GetFinalPoints())
	return nil
}

// multiplier is the doubling multiplier of a contract (0 in a message means 1).
func multiplier(contract *balootv1.Contract) uint32 {
	if contract.GetMultiplier() == 0 {
		return 1
	}
	return contract.GetMultiplier()
}

func main() {
	defaultTarget := os.Getenv("BALOOT_TARGET")
	if defaultTarget == "" {
		defaultTarget = "localhost:50051"
	}
	target := flag.String("target", defaultTarget, "the engine's host:port")
	seed := flag.Int64("seed", 1, "the seed of the random choices")
	presetName := flag.String("preset", "kammelna", "the rule preset: seeds, kammelna or federation")
	flag.Parse()
	preset, ok := balootv1.Preset_value["PRESET_"+strings.ToUpper(*presetName)]
	if !ok {
		fmt.Fprintf(os.Stderr, "unknown preset %q\n", *presetName)
		os.Exit(2)
	}
	if err := run(*target, *seed, balootv1.Preset(preset)); err != nil {
		fmt.Fprintln(os.Stderr, "play:", err)
		os.Exit(1)
	}
}
