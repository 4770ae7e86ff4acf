// A thin typed client of baloot.v1.BalootEngineService over any Connect transport (gRPC on
// Node, gRPC-Web in browsers): refusals become EngineError, and Match keeps the latest token,
// version and views of one match so a caller only names the seat and the action.

import type { MessageInitShape } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { createClient, type CallOptions, type Client, type Transport } from "@connectrpc/connect";

import {
  BalootEngineService,
  BotLevel,
  type ApplyBotActionResponse,
  type GetScoreResponse,
  type ReplayRecordResponse,
  type VerifyRecordResponse,
  type ScoreRoundRequestSchema,
  type ScoreRoundResponse,
} from "./gen/baloot/v1/engine_service_pb.js";
import { AnalysisDepth, type AnalyzeRecordResponse, type FairPlayReportResponse } from "./gen/baloot/v1/analysis_pb.js";
import type { RuleSetSchema } from "./gen/baloot/v1/rules_pb.js";
import type {
  Action,
  ActionSchema,
  BidSchema,
  DealDisclosure,
  CardPlaySchema,
  DeclarationSchema,
  DoublingSchema,
  Event,
  QaydCallSchema,
  View,
} from "./gen/baloot/v1/types_pb.js";
import { EngineError } from "./errors.js";
import type { MatchRecord as MatchRecordMessage } from "./gen/baloot/v1/records_pb.js";
import { RecordBuilder, endsRound } from "./records.js";

/** The generated client of the service, for calls the wrappers below do not cover. */
export type EngineRpc = Client<typeof BalootEngineService>;

/** Options of an EngineClient. */
export interface EngineClientOptions {
  /** The deadline of each call, in milliseconds (default 10 000). */
  timeoutMs?: number;
  /** Headers sent with every call, e.g. { "x-request-id": "..." } (the server echoes it). */
  headers?: Record<string, string>;
  /**
   * The language of the refusals' localized messages (EngineError.localized): "ar" for Arabic,
   * "en" for English; sent as the `accept-language` header. Absent: the server's default,
   * English.
   */
  language?: string;
}

/** What CreateMatch may be given. */
export interface CreateMatchOptions {
  /** The rule set; absent means the SEEDS preset with every default. */
  rules?: MessageInitShape<typeof RuleSetSchema>;
  /** The seat that deals the first round; absent means a seat drawn at random. */
  firstDealer?: number;
  /** The match score to start from, one entry per team. */
  startingScores?: number[];
  /** Duplicate boards: an organiser's board set (1 to 64 printable ASCII characters). */
  boardSet?: string;
  /**
   * The board set's secret (16 to 64 printable ASCII characters, no space); absent with a board
   * set, the server draws one (see `Match.boardSetSecret`). Keep it from players.
   */
  boardSetSecret?: string;
  /**
   * Provably fair deals: when the key of the match's committed decks is disclosed; absent means
   * at the match's end (docs/fair-deals.md).
   */
  dealDisclosure?: DealDisclosure;
}

/** What AnalyzeRecord may be given besides the record (see analysis.proto). */
export interface AnalyzeRecordOptions {
  /** The seats analysed (0-3); absent or empty: all four. */
  seats?: number[];
  /** The rounds analysed, as indexes of the record's rounds; absent or empty: all. */
  rounds?: number[];
  /** QUICK, STANDARD (the default) or DEEP. */
  depth?: AnalysisDepth;
  /** Worlds per card decision, 1 to 200, instead of the depth's. */
  worlds?: number;
  /** The seed: the same record, options and seed give the same analysis. */
  seed?: number | bigint;
  /** The server's deadline for the analysis, in milliseconds (0: its maximum). */
  deadlineMs?: number;
  /** The call's deadline, in milliseconds (default 600 000). */
  timeoutMs?: number;
  /** Aborting it cancels the call. */
  signal?: AbortSignal;
}

/** Options of EngineClient.fairPlayReport (FairPlayReport). */
export interface FairPlayReportOptions {
  /** The seats reported (0-3); absent or empty: all four and both partnerships. */
  seats?: number[];
  /** Worlds per card decision and per state of knowledge, 1 to 64 (0 or absent: 8). */
  worlds?: number;
  /** The seed: the same records, options and seed give the same report. */
  seed?: number | bigint;
  /** The server's deadline for the report, in milliseconds (0: its maximum). */
  deadlineMs?: number;
  /** The call's deadline, in milliseconds (default 600 000). */
  timeoutMs?: number;
  /** Aborting it cancels the call. */
  signal?: AbortSignal;
}

/** The service over one transport, with typed errors. */
export class EngineClient {
  /** The generated client: every RPC, with the generated request and response types. */
  readonly rpc: EngineRpc;
  #callOptions: CallOptions;

  constructor(transport: Transport, options: EngineClientOptions = {}) {
    this.rpc = createClient(BalootEngineService, transport);
    const headers = { ...options.headers };
    if (options.language !== undefined) {
      headers["accept-language"] = options.language;
    }
    this.#callOptions = { timeoutMs: options.timeoutMs ?? 10_000, headers };
  }

  /** The language asked of the refusals' localized messages ("" when none is asked). */
  get language(): string {
    return (this.#callOptions.headers as Record<string, string>)["accept-language"] ?? "";
  }

  /** Ask the following calls' refusals in another language ("ar", "en"; "" for the default). */
  set language(language: string) {
    const headers = { ...(this.#callOptions.headers as Record<string, string>) };
    if (language === "") {
      delete headers["accept-language"];
    } else {
      headers["accept-language"] = language;
    }
    this.#callOptions = { ...this.#callOptions, headers };
  }

  /** Run one call of `rpc`; a refusal rejects with the matching EngineError subclass. */
  async call<T>(invoke: (rpc: EngineRpc, options: CallOptions) => Promise<T>): Promise<T> {
    try {
      return await invoke(this.rpc, this.#callOptions);
    } catch (error) {
      throw EngineError.from(error);
    }
  }

  /** Create a match and return its handle, acting with the host credential. */
  async createMatch(options: CreateMatchOptions = {}): Promise<Match> {
    const response = await this.call((rpc, call) =>
      rpc.createMatch(
        {
          ...(options.rules !== undefined && { rules: options.rules }),
          ...(options.firstDealer !== undefined && { firstDealer: options.firstDealer }),
          startingScores: options.startingScores ?? [],
          boardSet: options.boardSet ?? "",
          boardSetSecret: options.boardSetSecret ?? "",
          ...(options.dealDisclosure !== undefined && { dealDisclosure: options.dealDisclosure }),
        },
        call,
      ),
    );
    const match = new Match(this, {
      matchId: response.matchId,
      state: response.state,
      version: response.stateVersion,
      credential: response.hostCredential,
      seatCredentials: response.seatCredentials,
      spectatorCredential: response.spectatorCredential,
      views: response.views,
    });
    match.boardSetSecret = response.boardSetSecret;
    const first = response.views[0];
    if (first !== undefined) {
      match.recorder = new RecordBuilder(response.matchId, first, options.boardSet ?? "", response.dealCommitment);
    }
    return match;
  }

  /** Replay a match record through the rules: valid, or its first divergence (VerifyRecord). */
  verifyRecord(record: MatchRecordMessage): Promise<VerifyRecordResponse> {
    return this.call((rpc, call) => rpc.verifyRecord({ record }, call));
  }

  /**
   * Stream the analysis of a match record (AnalyzeRecord): a progress report first, then each
   * decision as the server computes it, each round's summary and the match's last. Refusals
   * (and the end of the deadline) reject with the matching EngineError; `options.signal`
   * cancels the call, which stops the server's work at once.
   */
  async *analyzeRecord(
    record: MatchRecordMessage,
    options: AnalyzeRecordOptions = {},
  ): AsyncGenerator<AnalyzeRecordResponse> {
    const request = {
      record,
      seats: options.seats ?? [],
      rounds: options.rounds ?? [],
      depth: options.depth ?? AnalysisDepth.UNSPECIFIED,
      worlds: options.worlds ?? 0,
      deadlineMs: options.deadlineMs ?? 0,
      ...(options.seed !== undefined && { seed: BigInt(options.seed) }),
    };
    yield* this.#streamed(this.rpc.analyzeRecord(request, this.#streamOptions(options)));
  }

  /**
   * Stream the fair-play report of a set of finished matches' records (FairPlayReport):
   * progress reports, then the summary (per seat and partnership, a score per hypothesis). A
   * statistic for a referee, never proof. Refusals reject with the matching EngineError.
   */
  async *fairPlayReport(
    records: MatchRecordMessage[],
    options: FairPlayReportOptions = {},
  ): AsyncGenerator<FairPlayReportResponse> {
    const request = {
      records,
      seats: options.seats ?? [],
      worlds: options.worlds ?? 0,
      deadlineMs: options.deadlineMs ?? 0,
      ...(options.seed !== undefined && { seed: BigInt(options.seed) }),
    };
    yield* this.#streamed(this.rpc.fairPlayReport(request, this.#streamOptions(options)));
  }

  /** A server stream's call options: the client's headers, the timeout (10 minutes by default), the signal. */
  #streamOptions(options: { timeoutMs?: number; signal?: AbortSignal }) {
    return {
      ...(this.#callOptions.headers !== undefined && { headers: this.#callOptions.headers }),
      timeoutMs: options.timeoutMs ?? 600_000,
      ...(options.signal !== undefined && { signal: options.signal }),
    };
  }

  /** The messages of a server stream; a refusal rejects with the matching EngineError. */
  async *#streamed<T>(stream: AsyncIterable<T>): AsyncGenerator<T> {
    try {
      for await (const response of stream) {
        yield response;
      }
    } catch (error) {
      throw EngineError.from(error);
    }
  }

  /** The views and events of a record after its first `step` actions (ReplayRecord). */
  replayRecord(record: MatchRecordMessage, step: number): Promise<ReplayRecordResponse> {
    return this.call((rpc, call) => rpc.replayRecord({ record, step }, call));
  }

  /** A handle on a stored match (see Match.handle()), to act with `handle.credential`. */
  resume(handle: MatchHandle): Match {
    return new Match(this, handle);
  }

  /** The stateless round-score calculator. */
  async scoreRound(request: MessageInitShape<typeof ScoreRoundRequestSchema>): Promise<ScoreRoundResponse> {
    return this.call((rpc, call) => rpc.scoreRound(request, call));
  }
}

/**
 * Everything a backend stores to go on with a match later (it holds no secret but the
 * credentials). Not the match's record of records.proto (MatchRecordMessage): that one is the
 * history for VerifyRecord, this one the handle to act again.
 */
export interface MatchHandle {
  /** The match's public identifier. */
  matchId: string;
  /** The latest sealed state token. */
  state: Uint8Array;
  /** The version of that token. */
  version: bigint;
  /** The credential to act with: the host's on a backend, a seat's on a player's device. */
  credential: string;
  /** The seat `credential` belongs to; absent for the host credential. */
  seat?: number | undefined;
  /** The seat credentials CreateMatch handed out (only the host has them), seat 0 first. */
  seatCredentials?: readonly string[];
  /** The spectator credential CreateMatch handed out (public view only). */
  spectatorCredential?: string;
  /** The latest views, seat 0 first (not needed to go on). */
  views?: readonly View[];
}

/** A MatchHandle as JSON-safe strings: the token in base64, the version in decimal. */
export interface MatchHandleJson {
  matchId: string;
  state: string;
  version: string;
  credential: string;
  seat?: number;
  seatCredentials?: string[];
}

/** The JSON-safe form of a handle (views are left out). */
export function matchHandleToJson(handle: MatchHandle): MatchHandleJson {
  return {
    matchId: handle.matchId,
    state: base64Encode(handle.state),
    version: handle.version.toString(),
    credential: handle.credential,
    ...(handle.seat !== undefined && { seat: handle.seat }),
    ...(handle.seatCredentials !== undefined && { seatCredentials: [...handle.seatCredentials] }),
  };
}

/** A handle read back from its JSON-safe form. */
export function matchHandleFromJson(json: MatchHandleJson): MatchHandle {
  return {
    matchId: json.matchId,
    state: base64Decode(json.state),
    version: BigInt(json.version),
    credential: json.credential,
    ...(json.seat !== undefined && { seat: json.seat }),
    ...(json.seatCredentials !== undefined && { seatCredentials: [...json.seatCredentials] }),
  };
}

/** @deprecated Renamed MatchHandle (MatchRecord is the record of records.proto); removed in 0.3. */
export type MatchRecord = MatchHandle;
/** @deprecated Renamed MatchHandleJson; removed in 0.3. */
export type MatchRecordJson = MatchHandleJson;
/** @deprecated Renamed matchHandleToJson; removed in 0.3. */
export const matchRecordToJson = matchHandleToJson;
/** @deprecated Renamed matchHandleFromJson; removed in 0.3. */
export const matchRecordFromJson = matchHandleFromJson;

/** The part of every action response that Match keeps. */
interface ActionResponse {
  state: Uint8Array;
  stateVersion: bigint;
  events: Event[];
  views: View[];
}

/**
 * One match: the latest token, version and views, and the credentials handed out for it.
 *
 * Each action is sent with the latest token and `expectedVersion` = the latest version (a
 * compare-and-set), and with `credential` unless another is given. An accepted action replaces
 * `state`, `version` and `views` and resolves to the events it caused; a refused one rejects
 * with an EngineError and changes nothing.
 */
export class Match {
  readonly client: EngineClient;
  readonly matchId: string;
  /** The credential actions are sent with by default (the host's after createMatch). */
  readonly credential: string;
  /** The seat `credential` belongs to; undefined for the host credential. */
  readonly seat: number | undefined;
  /** The seat credentials, seat 0 first (empty when resumed without them). */
  readonly seatCredentials: readonly string[];
  /** The spectator credential (public view only; empty when resumed without it). */
  readonly spectatorCredential: string;
  /**
   * Builds the match's MatchRecord message from the responses (set by createMatch; a resumed
   * match has none), complete with each hand's deck: when a seat's own credential ends a round,
   * the match asks the host's GetView for its reveal (one more call per such round).
   */
  recorder: RecordBuilder | undefined;
  /** The board set's secret after createMatch with a board set (give it to its tables only). */
  boardSetSecret = "";
  /** The latest sealed state token. */
  state: Uint8Array;
  /** The version of `state`: the number of actions accepted so far. */
  version: bigint;
  /** The views of the latest response: four (seat 0 first) for the host, one for a seat. */
  views: View[];

  constructor(client: EngineClient, handle: MatchHandle) {
    this.client = client;
    this.matchId = handle.matchId;
    this.credential = handle.credential;
    this.seat = handle.seat;
    this.seatCredentials = [...(handle.seatCredentials ?? [])];
    this.spectatorCredential = handle.spectatorCredential ?? "";
    this.recorder = undefined;
    this.state = handle.state;
    this.version = handle.version;
    this.views = [...(handle.views ?? [])];
  }

  /** @deprecated Renamed handle(); removed in 0.3. */
  record(): MatchHandle {
    return this.handle();
  }

  /** What to store to go on later (see MatchHandle and matchHandleToJson). */
  handle(): MatchHandle {
    return {
      matchId: this.matchId,
      state: this.state,
      version: this.version,
      credential: this.credential,
      seat: this.seat,
      seatCredentials: this.seatCredentials,
    };
  }

  /**
   * A handle on the same token for one seat, acting with that seat's credential: what a
   * player's device holds. Its actions do not update this handle.
   */
  forSeat(seat: number): Match {
    const credential = this.seatCredentials[seat];
    if (credential === undefined) {
      throw new RangeError(`no credential for seat ${seat}: only the host's handle has the seat credentials`);
    }
    const views = this.views.filter((view) => view.seat === seat);
    return new Match(this.client, {
      matchId: this.matchId,
      state: this.state,
      version: this.version,
      credential,
      seat,
      views,
    });
  }

  /** Read the views this handle may see (its seat's, or all four for the host) into `views`. */
  async refresh(): Promise<View[]> {
    const seats = this.seat === undefined ? [0, 1, 2, 3] : [this.seat];
    this.views = await Promise.all(seats.map((seat) => this.view(seat)));
    return this.views;
  }

  /** The latest view of a seat, if the last response carried it. */
  viewOf(seat: number): View | undefined {
    return this.views.find((view) => view.seat === seat);
  }

  /** The latest view of any seat (they share everything public: phase, turn, dealer, score). */
  get latestView(): View {
    const view = this.views[0];
    if (view === undefined) {
      throw new Error("no view yet: call refresh() to read one");
    }
    return view;
  }

  /** The match's record so far (built from the responses; see records.ts to write it). */
  matchRecord(): MatchRecordMessage {
    if (this.recorder === undefined) {
      throw new Error("this match was not created by this client: it has no record");
    }
    return this.recorder.record;
  }

  async #send(
    invoke: (rpc: EngineRpc, common: Common, options: CallOptions) => Promise<ActionResponse>,
    credential: string | undefined,
    seat?: number,
    action?: MessageInitShape<typeof ActionSchema>,
  ): Promise<Event[]> {
    return (await this.#sendFor(invoke, credential, seat, action)).events;
  }

  async #sendFor<R extends ActionResponse>(
    invoke: (rpc: EngineRpc, common: Common, options: CallOptions) => Promise<R>,
    credential: string | undefined,
    seat?: number,
    action?: MessageInitShape<typeof ActionSchema>,
  ): Promise<R> {
    const common: Common = {
      state: this.state,
      matchId: this.matchId,
      credential: credential ?? this.credential,
      expectedVersion: this.version,
    };
    const response = await this.client.call((rpc, options) => invoke(rpc, common, options));
    this.state = response.state;
    this.version = response.stateVersion;
    this.views = response.views;
    if (this.recorder !== undefined && seat !== undefined && action !== undefined) {
      this.recorder.add(seat, action, response.events);
      await this.#completeRecord(common.credential, response.events);
    }
    return response;
  }

  /**
   * A seat's own action ended the round: its response has no reveal (or, in a board-set match
   * under the reveal flag, one without the deal key). Take the round's deck and the key it
   * discloses from the host's GetView (this handle's credential is the host's).
   */
  async #completeRecord(credential: string, events: readonly Event[]): Promise<void> {
    if (this.recorder === undefined || this.seat !== undefined || credential === this.credential) {
      return;
    }
    if (!endsRound(events)) {
      return;
    }
    const shown = await this.client.call((rpc, call) =>
      rpc.getView({ state: this.state, matchId: this.matchId, credential: this.credential }, call),
    );
    if (shown.roundReveal !== undefined) {
      this.recorder.addReveal(shown.roundReveal);
    }
  }

  /** Deal the next round as `seat` (the dealer); `deck`: a preset order, if the server allows it. */
  deal(seat: number, options: { deck?: number[]; credential?: string } = {}): Promise<Event[]> {
    return this.#deal(seat, options);
  }

  #deal(
    seat: number,
    options: { deck?: number[] | readonly number[]; credential?: string | undefined },
  ): Promise<Event[]> {
    const deckOrder = [...(options.deck ?? [])];
    return this.#send(
      (rpc, common, call) => rpc.dealRound({ ...common, seat, deckOrder }, call),
      options.credential,
      seat,
      { action: { case: "deal", value: { deckOrder } } },
    );
  }

  /** Place a bid. */
  bid(seat: number, bid: MessageInitShape<typeof BidSchema>, credential?: string): Promise<Event[]> {
    return this.#send((rpc, common, call) => rpc.placeBid({ ...common, seat, bid }, call), credential, seat, {
      action: { case: "bid", value: bid },
    });
  }

  /** Make a doubling call. */
  double(seat: number, doubling: MessageInitShape<typeof DoublingSchema>, credential?: string): Promise<Event[]> {
    return this.#send((rpc, common, call) => rpc.callDouble({ ...common, seat, doubling }, call), credential, seat, {
      action: { case: "doubling", value: doubling },
    });
  }

  /** Declare projects during the first trick. */
  declare(
    seat: number,
    declaration: MessageInitShape<typeof DeclarationSchema>,
    credential?: string,
  ): Promise<Event[]> {
    return this.#send(
      (rpc, common, call) => rpc.declareProjects({ ...common, seat, declaration }, call),
      credential,
      seat,
      { action: { case: "declaration", value: declaration } },
    );
  }

  /** Play a card (with an optional Akka call or Sawa claim). */
  play(seat: number, play: MessageInitShape<typeof CardPlaySchema>, credential?: string): Promise<Event[]> {
    return this.#send((rpc, common, call) => rpc.playCard({ ...common, seat, play }, call), credential, seat, {
      action: { case: "play", value: play },
    });
  }

  /** Call Qayd (table play): `seat` accuses a seat of the other team of breaking a rule. */
  callQayd(seat: number, qayd: MessageInitShape<typeof QaydCallSchema>, credential?: string): Promise<Event[]> {
    return this.#send((rpc, common, call) => rpc.callQayd({ ...common, seat, call: qayd }, call), credential, seat, {
      action: { case: "qayd", value: qayd },
    });
  }

  /**
   * Close the review of a table-play round and score it (host credential only). The record holds
   * the close as an entry of its own (`closeReview`, no seat), so a table-play record verifies.
   */
  async closeReview(): Promise<Event[]> {
    const events = await this.#send(
      (rpc, common, call) => rpc.callQayd({ ...common, closeReview: true }, call),
      undefined,
    );
    this.recorder?.addCloseReview(events);
    return events;
  }

  /**
   * Apply, in one call, the action a bot of `level` chooses for the seat whose turn it is (the
   * dealer's deal too): ApplyBotAction, host credential only, for timeouts and disconnects.
   */
  async botAct(
    seat: number,
    level: BotLevel = BotLevel.BASIC,
    options: { seed?: bigint } = {},
  ): Promise<ApplyBotActionResponse> {
    const response = await this.#sendFor(
      (rpc, common, call) =>
        rpc.applyBotAction({ ...common, seat, level, ...(options.seed !== undefined && { seed: options.seed }) }, call),
      undefined,
    );
    if (this.recorder !== undefined && response.action !== undefined) {
      this.recorder.add(seat, response.action, response.events);
    }
    return response;
  }

  /** Apply any action, e.g. one of a view's `legalActions` (the dealer's deal included), or a Qayd call. */
  act(seat: number, action: Action | MessageInitShape<typeof ActionSchema>, credential?: string): Promise<Event[]> {
    const chosen = action.action;
    switch (chosen?.case) {
      case "deal":
        return this.#deal(seat, { deck: chosen.value.deckOrder ?? [], credential });
      case "bid":
        return this.bid(seat, chosen.value, credential);
      case "doubling":
        return this.double(seat, chosen.value, credential);
      case "declaration":
        return this.declare(seat, chosen.value, credential);
      case "play":
        return this.play(seat, chosen.value, credential);
      case "qayd":
        return this.callQayd(seat, chosen.value, credential);
      default:
        return Promise.reject(new TypeError("not an action: no deal, bid, doubling, declaration or play is set"));
    }
  }

  /** A seat's view, or the public view when `seat` is undefined. */
  async view(seat?: number, credential?: string): Promise<View> {
    const response = await this.client.call((rpc, call) =>
      rpc.getView(
        {
          state: this.state,
          matchId: this.matchId,
          credential: credential ?? this.credential,
          ...(seat !== undefined && { seat }),
        },
        call,
      ),
    );
    if (response.view === undefined) {
      throw new Error("GetView returned no view");
    }
    return response.view;
  }

  /** The actions a seat may take now. */
  async legalActions(seat: number, credential?: string): Promise<Action[]> {
    const response = await this.client.call((rpc, call) =>
      rpc.listLegalActions(
        { state: this.state, matchId: this.matchId, credential: credential ?? this.credential, seat },
        call,
      ),
    );
    return response.actions;
  }

  /**
   * A legal action for `seat` chosen by the engine's bot of `level` from what that seat may know
   * (SuggestAction; host credential only). It changes nothing: apply it with act(). During the
   * first trick a bot declares its projects first: apply the declaration, then ask again.
   */
  async suggest(seat: number, level: BotLevel = BotLevel.BASIC, options: { seed?: bigint } = {}): Promise<Action> {
    const response = await this.client.call((rpc, call) =>
      rpc.suggestAction(
        {
          state: this.state,
          matchId: this.matchId,
          credential: this.credential,
          seat,
          level,
          ...(options.seed !== undefined && { seed: options.seed }),
        },
        call,
      ),
    );
    if (response.action === undefined) {
      throw new Error("SuggestAction returned no action");
    }
    return response.action;
  }

  /** The last round's breakdown and the match score. */
  score(credential?: string): Promise<GetScoreResponse> {
    return this.client.call((rpc, call) =>
      rpc.getScore({ state: this.state, matchId: this.matchId, credential: credential ?? this.credential }, call),
    );
  }
}

/** The fields every action request on a match carries. */
interface Common {
  state: Uint8Array;
  matchId: string;
  credential: string;
  expectedVersion: bigint;
}
