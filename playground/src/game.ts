// The table's controller: one match over gRPC-Web, three bots (or four) moved by the engine's
// SuggestAction, the user's seat acting with its own seat credential, and what the page keeps
// of the round (every card played, the score breakdowns) for the score sheet and the summary.

import {
  BotLevel,
  EngineError,
  EventKind,
  Phase,
  Preset,
  type Action,
  type EngineClient,
  type Event,
  type Match,
  type PlayedCard,
  type RedealInfo,
  type RoundScore,
  type View,
} from "@baloot-engine/client";

/** What the page was asked to do (from the URL and the settings bar). */
export interface Settings {
  /** The gRPC-Web base URL of the gateway. */
  gateway: string;
  /** Play one seat against three bots, or watch four bots. */
  mode: "play" | "watch";
  /** The user's seat in play mode (0 to 3). */
  seat: number;
  /** The level of every bot. */
  level: BotLevel;
  /** Milliseconds a bot waits before it acts, so people can follow. */
  delayMs: number;
  /** The match score to start from (continuing a match), team 0 first. */
  start: [number, number];
  /** The target score; undefined means the rule set's default. */
  target: number | undefined;
  /** The rule preset. */
  preset: Preset;
}

/** What the page keeps of one deal. */
export interface RoundRecord {
  /** The hand's number in the match (redeals count). */
  number: number;
  /** The dealer of the hand. */
  dealer: number;
  /** Every card played in the round, in order. */
  plays: PlayedCard[];
  /** The breakdown, once the round is scored. */
  score?: RoundScore;
  /** Why the hand was cancelled, if it was. */
  redeal?: RedealInfo;
  /** The match score after the round. */
  totals?: number[];
}

/** The last refusal of one of the user's actions. */
export interface Refusal {
  /** The action that was refused. */
  action: Action;
  /** The engine's error: code, reason, message and metadata such as "allowed". */
  error: EngineError;
}

/** One line of the table log: an event of the engine, or a refusal. */
export interface LogEntry {
  version: bigint;
  event?: Event;
  refusal?: Refusal;
}

/**
 * A bot seat's move. Today this is SuggestAction (host credential) and then the normal RPC for
 * the suggested action, so every rule check stays in the engine. When the service offers
 * ApplyBotAction (suggest and apply in one call), that call replaces the two here.
 */
export async function botMove(match: Match, seat: number, level: BotLevel): Promise<Event[]> {
  const action = await match.suggest(seat, level);
  return match.act(seat, action);
}

/**
 * The dealt hands of a finished round, seat 0 first, ascending. Today they are read from the
 * cards each seat played (all eight, unless a Sawa claim ended the round early). When the
 * service sends the round reveal (the records issue), take the hands from that event here.
 */
export function dealtHands(round: RoundRecord): number[][] {
  const hands: number[][] = [[], [], [], []];
  for (const play of round.plays) {
    hands[play.seat]?.push(play.card);
  }
  return hands.map((hand) => hand.sort((a, b) => a - b));
}

/**
 * Whether the user may call Qayd (a claim that another seat broke a rule) at this point. The
 * service has no table play or CallQayd yet (docs/rules.md R45), so it is always false; when
 * it exists, this reads the rule set's table-play flag and the view's legal actions, and the
 * button calls CallQayd with the user's seat credential.
 */
export function qaydAvailable(_view: View | undefined): boolean {
  return false;
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** One match at the table, with three or four bots. */
export class Table {
  readonly client: EngineClient;
  readonly settings: Settings;
  match: Match | undefined;
  /** The latest view of each seat the page may see (all four: it holds the host credential). */
  readonly views: (View | undefined)[] = [undefined, undefined, undefined, undefined];
  /** Every deal of the match so far, the current one last. */
  readonly rounds: RoundRecord[] = [];
  /** The newest entries of the table log, newest first. */
  readonly log: LogEntry[] = [];
  refusal: Refusal | undefined;
  /** How many of the user's actions were refused so far. */
  refusals = 0;
  /** A problem reaching the service (not a refusal of the rules). */
  failure: string | undefined;
  /** The round whose summary the user has seen and dismissed (the next deal waits for it). */
  acknowledgedRound = 0;
  /** Called after every change of what the page shows. */
  onChange: () => void = () => {};
  /** A bot loop runs (see pump). */
  #pumping = false;
  /** pump() was asked for while it ran: it goes round once more before it stops. */
  #pumpAgain = false;
  /** One of the user's actions is on its way. */
  #acting = false;
  #stopped = false;

  constructor(client: EngineClient, settings: Settings) {
    this.client = client;
    this.settings = settings;
  }

  /** The seat the user plays, or undefined when four bots play. */
  get userSeat(): number | undefined {
    return this.settings.mode === "play" ? this.settings.seat : undefined;
  }

  /** The latest view with the public state (every view carries it). */
  get latest(): View | undefined {
    const seat = this.userSeat ?? 0;
    return this.views[seat] ?? this.views.find((view) => view !== undefined);
  }

  /** The deal being played or the last one. */
  get currentRound(): RoundRecord | undefined {
    return this.rounds.at(-1);
  }

  /** The last round that was scored. */
  get lastScoredRound(): RoundRecord | undefined {
    return this.rounds.findLast((round) => round.score !== undefined);
  }

  /** Whether the table waits for the user to dismiss a round's summary. */
  get awaitingNextRound(): boolean {
    const view = this.latest;
    return view?.phase === Phase.ROUND_OVER && (this.lastScoredRound?.number ?? 0) > this.acknowledgedRound;
  }

  /** Stop moving bots (a new match replaces this one). */
  stop(): void {
    this.#stopped = true;
  }

  /** Create the match and let the bots play until the user is to act. */
  async start(): Promise<void> {
    const { preset, target, start } = this.settings;
    try {
      this.match = await this.client.createMatch({
        rules: { preset, ...(target !== undefined && { matchTarget: target }) },
        startingScores: [...start],
      });
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.#absorb([]);
    void this.pump();
  }

  /** The user's seat credential (the page acts for the user with it, never with the host's). */
  get #userCredential(): string | undefined {
    const seat = this.userSeat;
    return seat === undefined ? undefined : this.match?.seatCredentials[seat];
  }

  /**
   * The user acts: any action, legal or not, even out of turn (a refusal is shown with its
   * reason). It may be sent while a bot's call is on its way: it carries the token of that
   * moment, so out of turn it is refused and changes nothing.
   */
  async userAct(action: Action): Promise<void> {
    await this.#userCall(action, (match, seat, credential) => match.act(seat, action, credential));
  }

  /** The user deals, when the user is the dealer. */
  async userDeal(): Promise<void> {
    await this.#userCall(undefined, (match, seat, credential) =>
      match.deal(seat, credential === undefined ? {} : { credential }),
    );
  }

  async #userCall(
    action: Action | undefined,
    send: (match: Match, seat: number, credential: string | undefined) => Promise<Event[]>,
  ): Promise<void> {
    const match = this.match;
    const seat = this.userSeat;
    if (match === undefined || seat === undefined || this.#acting) {
      return;
    }
    this.#acting = true;
    try {
      const events = await send(match, seat, this.#userCredential);
      this.refusal = undefined;
      this.#absorb(events);
    } catch (error) {
      if (action === undefined) {
        this.#fail(error);
      } else {
        this.#refuse(action, error);
      }
    } finally {
      this.#acting = false;
    }
    void this.pump();
  }

  /** The user has read the round's summary: go on with the next deal. */
  nextRound(): void {
    this.acknowledgedRound = this.lastScoredRound?.number ?? this.acknowledgedRound;
    this.onChange();
    void this.pump();
  }

  /** Let the bots act (with the configured delay) until the user is to act or the match ends. */
  async pump(): Promise<void> {
    if (this.#pumping) {
      this.#pumpAgain = true;
      return;
    }
    this.#pumping = true;
    this.#pumpAgain = false;
    try {
      while (!this.#stopped && this.match !== undefined) {
        const view = this.latest;
        if (view === undefined || view.phase === Phase.MATCH_OVER) {
          break;
        }
        if (this.awaitingNextRound) {
          if (this.userSeat !== undefined) {
            break;
          }
          await sleep(Math.max(1500, this.settings.delayMs * 4));
          this.acknowledgedRound = this.lastScoredRound?.number ?? 0;
          continue;
        }
        const dealing = view.phase === Phase.AWAITING_DEAL || view.phase === Phase.ROUND_OVER;
        const seat = dealing ? view.dealer : view.turn;
        if (seat === undefined || seat === this.userSeat) {
          break;
        }
        await sleep(this.settings.delayMs);
        if (this.#stopped) {
          break;
        }
        const events = dealing ? await this.match.deal(seat) : await botMove(this.match, seat, this.settings.level);
        this.#absorb(events);
      }
    } catch (error) {
      this.#fail(error);
    } finally {
      this.#pumping = false;
    }
    if (this.#pumpAgain && !this.#stopped) {
      void this.pump();
    }
  }

  /** Take the latest views and events of the match into what the page shows. */
  #absorb(events: Event[]): void {
    const match = this.match;
    if (match === undefined) {
      return;
    }
    for (const view of match.views) {
      if (view.seat !== undefined) {
        this.views[view.seat] = view;
      }
    }
    this.failure = undefined;
    for (const event of events) {
      this.#record(event);
      this.log.unshift({ version: match.version, event });
    }
    this.log.length = Math.min(this.log.length, 40);
    this.onChange();
  }

  #record(event: Event): void {
    const detail = event.detail;
    switch (event.kind) {
      case EventKind.CARDS_DEALT:
        if (detail.case === "deal") {
          this.rounds.push({ number: detail.value.roundNumber, dealer: detail.value.dealer, plays: [] });
        }
        break;
      case EventKind.CARD_PLAYED:
        if (detail.case === "play") {
          this.currentRound?.plays.push(detail.value);
        }
        break;
      case EventKind.REDEAL:
        if (detail.case === "redeal" && this.currentRound !== undefined) {
          this.currentRound.redeal = detail.value;
        }
        break;
      case EventKind.ROUND_SCORED:
        if (detail.case === "roundScore" && this.currentRound !== undefined) {
          this.currentRound.score = detail.value;
          this.currentRound.totals = [...(this.latest?.matchScore?.points ?? [])];
        }
        break;
      default:
        break;
    }
  }

  #refuse(action: Action, error: unknown): void {
    const engineError = EngineError.from(error);
    if (engineError.reason === "") {
      this.#fail(engineError);
      return;
    }
    this.refusal = { action, error: engineError };
    this.refusals += 1;
    this.log.unshift({ version: this.match?.version ?? 0n, refusal: this.refusal });
    this.onChange();
  }

  #fail(error: unknown): void {
    const engineError = EngineError.from(error);
    this.failure = engineError.message;
    this.onChange();
  }
}
