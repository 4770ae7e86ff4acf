package org.balootengine.example;

import com.google.protobuf.Any;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.util.JsonFormat;
import com.google.rpc.ErrorInfo;
import io.grpc.ManagedChannel;
import io.grpc.ManagedChannelBuilder;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.internal.JsonParser;
import io.grpc.protobuf.StatusProto;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.balootengine.v1.Action;
import org.balootengine.v1.BalootEngineServiceGrpc;
import org.balootengine.v1.BalootEngineServiceGrpc.BalootEngineServiceBlockingStub;
import org.balootengine.v1.CallDoubleRequest;
import org.balootengine.v1.CardPlay;
import org.balootengine.v1.CreateMatchRequest;
import org.balootengine.v1.CreateMatchResponse;
import org.balootengine.v1.DealRoundRequest;
import org.balootengine.v1.DeclareProjectsRequest;
import org.balootengine.v1.Event;
import org.balootengine.v1.EventKind;
import org.balootengine.v1.MatchScore;
import org.balootengine.v1.Phase;
import org.balootengine.v1.PlaceBidRequest;
import org.balootengine.v1.PlayCardRequest;
import org.balootengine.v1.Preset;
import org.balootengine.v1.RoundScore;
import org.balootengine.v1.RuleSet;
import org.balootengine.v1.TeamRoundScore;
import org.balootengine.v1.View;

/**
 * Plays one complete Baloot match against the engine with random legal actions taken from the
 * views, as a game backend written in Java would drive it, and decodes the {@code
 * google.rpc.ErrorInfo} of one refused action.
 *
 * <pre>java org.balootengine.example.PlayMatch [--target host:port] [--seed 1] [--preset kammelna]</pre>
 *
 * <p>The target defaults to $BALOOT_TARGET, then localhost:50051 (the server of {@code make run}).
 */
public final class PlayMatch {
  /** One match takes about 300 actions: more means the loop is broken. */
  private static final int MAX_ACTIONS = 5000;

  private static final String[] RANKS = {"7", "8", "9", "10", "J", "Q", "K", "A"};

  /** What a backend stores per game room, plus the views of the last response. */
  private final BalootEngineServiceBlockingStub engine;
  private final String matchId;
  private final String host;
  private com.google.protobuf.ByteString state;
  private long version;
  private List<View> views;

  private PlayMatch(BalootEngineServiceBlockingStub engine, CreateMatchResponse created) {
    this.engine = engine;
    this.matchId = created.getMatchId();
    this.host = created.getHostCredential();
    this.state = created.getState();
    this.version = created.getStateVersion();
    this.views = created.getViewsList();
  }

  /** The short text of a card: rank then suit letter ("10H"), see types.proto. */
  static String cardCode(int card) {
    return RANKS[card % 8] + "SHDC".charAt(card / 8);
  }

  /** The google.rpc.ErrorInfo of a refusal, or null. */
  static ErrorInfo errorInfo(StatusRuntimeException error) {
    com.google.rpc.Status status = StatusProto.fromThrowable(error);
    if (status == null) {
      return null;
    }
    for (Any detail : status.getDetailsList()) {
      if (detail.is(ErrorInfo.class)) {
        try {
          return detail.unpack(ErrorInfo.class);
        } catch (InvalidProtocolBufferException e) {
          return null;
        }
      }
    }
    return null;
  }

  private List<Event> accept(
      com.google.protobuf.ByteString newState, long newVersion, List<View> newViews,
      List<Event> events) {
    state = newState;
    version = newVersion;
    views = newViews;
    return events;
  }

  /** Sends one action for a seat with the latest token, as a compare-and-set on the version. */
  private List<Event> act(int seat, Action action) {
    switch (action.getActionCase()) {
      case BID:
        var bid = engine.placeBid(PlaceBidRequest.newBuilder().setState(state).setMatchId(matchId)
            .setCredential(host).setSeat(seat).setBid(action.getBid())
            .setExpectedVersion(version).build());
        return accept(bid.getState(), bid.getStateVersion(), bid.getViewsList(),
            bid.getEventsList());
      case DOUBLING:
        var call = engine.callDouble(CallDoubleRequest.newBuilder().setState(state)
            .setMatchId(matchId).setCredential(host).setSeat(seat)
            .setDoubling(action.getDoubling()).setExpectedVersion(version).build());
        return accept(call.getState(), call.getStateVersion(), call.getViewsList(),
            call.getEventsList());
      case DECLARATION:
        var declared = engine.declareProjects(DeclareProjectsRequest.newBuilder()
            .setState(state).setMatchId(matchId).setCredential(host).setSeat(seat)
            .setDeclaration(action.getDeclaration()).setExpectedVersion(version).build());
        return accept(declared.getState(), declared.getStateVersion(),
            declared.getViewsList(), declared.getEventsList());
      case PLAY:
        var played = engine.playCard(PlayCardRequest.newBuilder().setState(state)
            .setMatchId(matchId).setCredential(host).setSeat(seat).setPlay(action.getPlay())
            .setExpectedVersion(version).build());
        return accept(played.getState(), played.getStateVersion(), played.getViewsList(),
            played.getEventsList());
      case DEAL:
        return deal(seat);
      default:
        throw new IllegalStateException("an action this client does not know: " + action);
    }
  }

  private List<Event> deal(int seat) {
    var dealt = engine.dealRound(DealRoundRequest.newBuilder().setState(state)
        .setMatchId(matchId).setCredential(host).setSeat(seat).setExpectedVersion(version)
        .build());
    return accept(dealt.getState(), dealt.getStateVersion(), dealt.getViewsList(),
        dealt.getEventsList());
  }

  /**
   * Plays a card the seat does not hold and checks the refusal: the status code, the ErrorInfo's
   * domain and reason. A refusal changes nothing: the token we hold stays valid.
   */
  private void refuseCardNotInHand(int seat) throws InvalidProtocolBufferException {
    Set<Integer> held = new HashSet<>(views.get(seat).getHandList());
    int card = 0;
    while (held.contains(card)) {
      card++;
    }
    Action action = Action.newBuilder().setPlay(CardPlay.newBuilder().setCard(card)).build();
    // JSON with every field, zeros included, as grpcurl -emit-defaults prints it (protobuf-java
    // 3.25+ also names it alwaysPrintFieldsWithNoPresence()).
    String printed = JsonFormat.printer().includingDefaultValueFields()
        .omittingInsignificantWhitespace().print(action);
    try {
      act(seat, action);
    } catch (StatusRuntimeException error) {
      ErrorInfo info = errorInfo(error);
      if (error.getStatus().getCode() == Status.Code.FAILED_PRECONDITION && info != null
          && info.getDomain().equals("baloot.v1")
          && info.getReason().equals("CARD_NOT_IN_HAND")) {
        System.out.printf("refused: seat %d plays %s -> %s, reason %s, metadata %s: %s%n",
            seat, cardCode(card), error.getStatus().getCode(), info.getReason(),
            info.getMetadataMap(), error.getStatus().getDescription());
        System.out.printf("  the action %s%n", printed);
        return;
      }
      throw new IllegalStateException("expected FAILED_PRECONDITION with reason "
          + "CARD_NOT_IN_HAND, got " + error.getStatus() + " (ErrorInfo " + info + ")", error);
    }
    throw new IllegalStateException("seat " + seat + " played " + cardCode(card)
        + ", which it does not hold");
  }

  private static void printRound(RoundScore score) {
    List<TeamRoundScore> teams = score.getTeamsList();
    if (teams.size() != 2) {
      throw new IllegalStateException("a round score has " + teams.size() + " teams");
    }
    int abnat = teams.get(0).getCardAbnat() + teams.get(1).getCardAbnat();
    if (abnat != 130 && abnat != 162) {
      throw new IllegalStateException("round " + score.getRoundNumber() + ": card abnat sum to "
          + abnat + ", not 130 or 162");
    }
    var contract = score.getContract();
    System.out.printf("  round %2d: %-4s x%d bought by seat %d (team %d), %-6s +%3d / +%3d%n",
        score.getRoundNumber(), contract.getType().name().replace("CONTRACT_TYPE_", ""),
        Math.max(contract.getMultiplier(), 1), contract.getBuyer(), contract.getBuyerTeam(),
        score.getMade() ? "made" : "failed", teams.get(0).getFinalPoints(),
        teams.get(1).getFinalPoints());
  }

  private void play(Random random) throws InvalidProtocolBufferException {
    boolean refused = false;
    int actions = 0;
    for (; actions < MAX_ACTIONS; actions++) {
      View view = views.get(0); // the host sees four views, seat 0 first
      Phase phase = view.getPhase();
      if (phase == Phase.PHASE_MATCH_OVER) {
        break;
      }
      boolean dealing = phase == Phase.PHASE_AWAITING_DEAL || phase == Phase.PHASE_ROUND_OVER;
      int seat = dealing ? view.getDealer() : view.getTurn();
      List<Action> legal = views.get(seat).getLegalActionsList();
      List<Event> events;
      if (!legal.isEmpty()) {
        if (!refused && phase == Phase.PHASE_PLAYING && legal.get(0).hasPlay()) {
          refuseCardNotInHand(seat);
          refused = true;
        }
        events = act(seat, legal.get(random.nextInt(legal.size())));
      } else if (dealing) {
        // Dealing is not (yet) among the dealer's legal actions: with none listed, the dealer
        // deals with DealRound.
        events = deal(seat);
      } else {
        throw new IllegalStateException("seat " + seat + " has no legal action in " + phase);
      }
      for (Event event : events) {
        if (event.hasRoundScore()) {
          printRound(event.getRoundScore());
        }
        if (event.getKind() == EventKind.EVENT_KIND_MATCH_WON && event.hasMatchScore()) {
          MatchScore fin = event.getMatchScore();
          System.out.printf("  winner: team %d (%d - %d), %d rounds, %d actions, "
              + "last token %d bytes%n", fin.getWinnerTeam(), fin.getPoints(0),
              fin.getPoints(1), fin.getRoundsScored(), actions + 1, state.size());
        }
      }
    }
    if (views.get(0).getPhase() != Phase.PHASE_MATCH_OVER) {
      throw new IllegalStateException("the match did not end within " + MAX_ACTIONS + " actions");
    }
    if (!refused) {
      throw new IllegalStateException("no refusal was tried");
    }
  }

  /**
   * The project's default service config (clients/service_config.json, a resource of this
   * program): every RPC is safe to retry, so UNAVAILABLE is retried with exponential backoff.
   */
  @SuppressWarnings("unchecked")
  static Map<String, ?> serviceConfig() throws IOException {
    try (InputStream in = PlayMatch.class.getResourceAsStream("/service_config.json")) {
      if (in == null) {
        throw new IOException("service_config.json is not on the class path");
      }
      return (Map<String, ?>) JsonParser.parse(new String(in.readAllBytes(),
          StandardCharsets.UTF_8));
    }
  }

  public static void main(String[] args) throws Exception {
    String target = System.getenv().getOrDefault("BALOOT_TARGET", "localhost:50051");
    long seed = 1;
    String presetName = "kammelna";
    for (int i = 0; i + 1 < args.length; i += 2) {
      switch (args[i]) {
        case "--target" -> target = args[i + 1];
        case "--seed" -> seed = Long.parseLong(args[i + 1]);
        case "--preset" -> presetName = args[i + 1];
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
    }
    Preset preset = Preset.valueOf("PRESET_" + presetName.toUpperCase(Locale.ROOT));
    ManagedChannel channel = ManagedChannelBuilder.forTarget(target).usePlaintext()
        .defaultServiceConfig(serviceConfig()).enableRetry().build();
    try {
      var engine = BalootEngineServiceGrpc.newBlockingStub(channel)
          .withDeadlineAfter(2, TimeUnit.MINUTES);
      CreateMatchResponse created = engine.createMatch(CreateMatchRequest.newBuilder()
          .setRules(RuleSet.newBuilder().setPreset(preset)).setFirstDealer(0).build());
      System.out.printf("match %s, %s rules, seed %d%n", created.getMatchId(),
          presetName.toLowerCase(Locale.ROOT), seed);
      new PlayMatch(engine, created).play(new Random(seed));
    } finally {
      channel.shutdownNow().awaitTermination(5, TimeUnit.SECONDS);
    }
  }
}
