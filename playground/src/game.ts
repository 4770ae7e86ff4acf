// The table's controller: one match over gRPC-Web, three bots (or four) moved by the engine's
// ApplyBotAction, the user's seat acting with its own seat credential, and what the page keeps
// of the round (every card played, the round reveal, the Qayd verdicts, the score breakdowns)
// for the score sheet and the summary. In table play (the rule flag illegal_moves_allowed) any
// card held is accepted, seats call Qayd, and the host closes each round's review.

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
  type QaydCategory,
  type QaydVerdict,
  type RedealInfo,
  type RoundReveal,
  type RoundScore,
  type RuleSet,
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
  /** Table play: any card held is accepted and Qayd calls judge the breaches (R45). */
  table: boolean;
}

/** What the page keeps of one deal. */
export interface RoundRecord {
  /** The round's number in the match (redeals count). */
  number: number;
  /** The dealer of the hand. */
  dealer: number;
  /** Every card played in the round, in order. */
  plays: PlayedCard[];
  /** The deck order and the dealt hands (ROUND_REVEALED), once the round is over. */
  reveal?: RoundReveal;
  /** The Qayd verdicts of the round (QAYD_JUDGED), in order. */
  verdicts: QaydVerdict[];
  /** The breakdown, once the round is scored. */
  score?: RoundScore;
  /** Why the round was cancelled, if it was. */
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

/** A bot seat's move: ApplyBotAction (host credential), the bot's choice applied in one call. */
export async function botMove(match: Match, seat: number, level: BotLevel): Promise<Event[]> {
  return (await match.botAct(seat, level)).events;
}

/**
 * The dealt hands of a finished round, seat 0 first, ascending: from the round reveal
 * (ROUND_REVEALED) when it came, otherwise from the cards each seat played (all eight, unless
 * a Sawa claim ended the round early).
 */
export function dealtHands(round: RoundRecord): number[][] {
  const revealed = round.reveal?.hands ?? [];
  if (revealed.length === 4) {
    const hands: number[][] = [[], [], [], []];
    for (const entry of revealed) {
      hands[entry.seat] = [...entry.cards].sort((a, b) => a - b);
    }
    return hands;
  }
  const hands: number[][] = [[], [], [], []];
  for (const play of round.plays) {
    hands[play.seat]?.push(play.card);
  }
  return hands.map((hand) => hand.sort((a, b) => a - b));
}

/** The cards of the round so far by trick, trick 1 first (a trick in progress last). */
export function tricksOf(round: RoundRecord | undefined): PlayedCard[][] {
  const tricks: PlayedCard[][] = [];
  (round?.plays ?? []).forEach((play, index) => {
    (tricks[Math.floor(index / 4)] ??= []).push(play);
  });
  return tricks;
}

/**
 * Whether the user may call Qayd (a claim that a seat of the other team broke a rule, R45) at
 * this point: in table play, from the first card of the other team until the round is scored.
 */
export function qaydAvailable(
  tablePlay: boolean,
  userSeat: number | undefined,
  view: View | undefined,
  round: RoundRecord | undefined,
): boolean {
  if (!tablePlay || userSeat === undefined || view === undefined) {
    return false;
  }
  if (view.phase !== Phase.PLAYING && view.phase !== Phase.ROUND_REVIEW) {
    return false;
  }
  return (round?.plays ?? []).some((play) => play.seat % 2 !== userSeat % 2);
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
  /** The match's rules with every flag resolved, as CreateMatch's views give them. */
  rules: RuleSet | undefined;
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
  /** The state version at which the bots were last asked for a Qayd call in a review. */
  #reviewAsked: bigint | undefined;

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

  /** Whether the bots are moving (a review waits for them before the user may close it). */
  get botsMoving(): boolean {
    return this.#pumping;
  }

  /** Stop moving bots (a new match replaces this one). */
  stop(): void {
    this.#stopped = true;
  }

  /** Create the match and let the bots play until the user is to act. */
  async start(): Promise<void> {
    const { preset, target, start } = this.settings;
    this.#reviewAsked = undefined;
    try {
      this.match = await this.client.createMatch({
        rules: {
          preset,
          ...(target !== undefined && { matchTarget: target }),
          // The page shows every dealt hand after a round; table play takes any card held.
          revealHandsAfterRound: true,
          ...(this.settings.table && { illegalMovesAllowed: true }),
        },
        startingScores: [...start],
      });
    } catch (error) {
      this.#fail(error);
      return;
    }
    this.rules = this.match.views[0]?.rules;
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

  /**
   * The user calls Qayd (table play) on `card`, played by `accused` in trick `trick`, naming
   * `category` or no rule (QAYD_CATEGORY_UNSPECIFIED).
   */
  async userQayd(accused: number, trick: number, card: number, category: QaydCategory): Promise<void> {
    const call = { $typeName: "baloot.v1.QaydCall", accused, trick, card, category } as const;
    const action: Action = { $typeName: "baloot.v1.Action", action: { case: "qayd", value: call } };
    await this.#userCall(action, (match, seat, credential) => match.callQayd(seat, call, credential));
  }

  /** Close the review of a table-play round and score it (the page holds the host credential). */
  async closeReview(): Promise<void> {
    await this.#userCall(undefined, (match) => match.closeReview());
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
    if (match === undefined || (seat === undefined && action !== undefined) || this.#acting) {
      return;
    }
    this.#acting = true;
    try {
      const events = await send(match, seat ?? 0, this.#userCredential);
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
        if (view.phase === Phase.ROUND_REVIEW) {
          if (await this.#reviewStep(view)) {
            continue;
          }
          break;
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
      this.onChange();
    }
    if (this.#pumpAgain && !this.#stopped) {
      void this.pump();
    }
  }

  /**
   * A round under review (table play): the bots of the other team than the user's are asked
   * once for a Qayd call they can prove (bots never break a rule, so only the user's cards can
   * be called), and one is applied if made. With four bots the review is closed after the
   * delay. Returns whether the pump should go on (false: the user calls or closes it).
   */
  async #reviewStep(view: View): Promise<boolean> {
    const match = this.match;
    if (match === undefined) {
      return false;
    }
    const user = this.userSeat;
    if (this.#reviewAsked !== view.stateVersion) {
      this.#reviewAsked = view.stateVersion;
      if (user !== undefined) {
        for (const seat of [0, 1, 2, 3].filter((s) => s % 2 !== user % 2)) {
          const action = await this.#proposedQayd(match, seat);
          if (action !== undefined) {
            await sleep(this.settings.delayMs);
            this.#absorb(await match.act(seat, action));
            return true;
          }
        }
      }
    }
    if (user !== undefined) {
      return false;
    }
    await sleep(this.settings.delayMs);
    this.#absorb(await match.closeReview());
    return true;
  }

  /** A Qayd call the bot of `seat` can prove now (SuggestAction), if it has one. */
  async #proposedQayd(match: Match, seat: number): Promise<Action | undefined> {
    try {
      const action = await match.suggest(seat, this.settings.level);
      return action.action.case === "qayd" ? action : undefined;
    } catch (error) {
      if (EngineError.from(error).reason === "WRONG_PHASE") {
        return undefined; // nothing to call
      }
      throw error;
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
          this.rounds.push({
            number: detail.value.roundNumber,
            dealer: detail.value.dealer,
            plays: [],
            verdicts: [],
          });
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
      case EventKind.ROUND_REVEALED:
        if (detail.case === "reveal") {
          const round = this.rounds.findLast((r) => r.number === detail.value.roundNumber);
          if (round !== undefined) {
            round.reveal = detail.value;
          }
        }
        break;
      case EventKind.QAYD_JUDGED:
        if (detail.case === "qayd") {
          this.currentRound?.verdicts.push(detail.value);
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
