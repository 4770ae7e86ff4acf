// Random players: every seat takes a random action from the legal actions of its view, so a
// match is played to its end through the real rules, tokens and views (demo and tests).

import { ContractType, EventKind, Phase, type Action, type RoundScore, type View } from "./gen/baloot/v1/types_pb.js";
import { SUIT_LETTERS } from "./cards.js";
import type { Match } from "./client.js";

/** A seeded random source: a function returning numbers in [0, 1). */
export type Random = () => number;

/** A small seeded generator (mulberry32), so a seed replays the same choices. */
export function seededRandom(seed: number): Random {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A random legal action of a view, preferring to play on over declaring or claiming Sawa. */
export function chooseAction(view: View, random: Random): Action {
  const actions = view.legalActions.filter((a) => !(a.action.case === "play" && a.action.value.sawa));
  const plain = actions.filter((a) => a.action.case !== "declaration");
  const pool = plain.length > 0 ? plain : actions;
  const chosen = pool[Math.floor(random() * pool.length)];
  if (chosen === undefined) {
    throw new Error(`seat ${view.seat ?? "?"} has no legal action in phase ${Phase[view.phase]}`);
  }
  return chosen;
}

/** How playMatch chooses each action, and what it reports as it goes. */
export interface PlayReport {
  /**
   * Choose the action of the seat to act; by default a random legal action of its view
   * (`chooseAction`). E.g. `(match, seat) => match.suggest(seat, BotLevel.BASIC)` for the
   * engine's bots.
   */
  choose?: (match: Match, seat: number, view: View) => Promise<Action> | Action;
  /** Called with each round's score and the match view after it. */
  onRound?: (score: RoundScore, view: View) => void;
  /** Called when a round is cancelled and dealt again. */
  onRedeal?: (view: View) => void;
}

/**
 * Play a match (created with the host credential) to its end: between rounds the dealer takes
 * its one legal action, the deal; in table play the host closes each round's review; otherwise
 * the seat to act chooses. Resolves to the final view.
 */
export async function playMatch(match: Match, random: Random, report: PlayReport = {}): Promise<View> {
  let view = match.latestView;
  while (view.phase !== Phase.MATCH_OVER) {
    if (view.phase === Phase.ROUND_REVIEW) {
      // Table play: nobody calls Qayd here; the host closes the review and the round is scored.
      for (const event of await match.closeReview()) {
        if (event.kind === EventKind.ROUND_SCORED && event.detail.case === "roundScore") {
          report.onRound?.(event.detail.value, match.latestView);
        }
      }
      view = match.latestView;
      continue;
    }
    // Every step is one of the legal actions of the seat to act: between rounds, the dealer's deal.
    const between = view.phase === Phase.AWAITING_DEAL || view.phase === Phase.ROUND_OVER;
    const seat = between ? view.dealer : view.turn;
    const seatView = seat === undefined ? undefined : match.viewOf(seat);
    if (seat === undefined || seatView === undefined) {
      throw new Error(`no seat to act in phase ${Phase[view.phase]}`);
    }
    const action =
      report.choose && !between ? await report.choose(match, seat, seatView) : chooseAction(seatView, random);
    const events = await match.act(seat, action);
    for (const event of events) {
      if (event.kind === EventKind.ROUND_SCORED && event.detail.case === "roundScore") {
        report.onRound?.(event.detail.value, match.latestView);
      } else if (event.kind === EventKind.REDEAL) {
        report.onRedeal?.(match.latestView);
      }
    }
    view = match.latestView;
  }
  return view;
}

/** The name of a contract as the score sheet shows it: "Sun", "Hokm H x2", "Ashkal"... */
export function contractName(score: RoundScore): string {
  const contract = score.contract;
  if (contract === undefined) {
    return "?";
  }
  let name = contract.type === ContractType.SUN ? "Sun" : `Hokm ${SUIT_LETTERS[contract.trump - 1] ?? "?"}`;
  if (contract.ashkal) {
    name = "Ashkal";
  }
  if (contract.gahwa) {
    name += " Gahwa";
  } else if (contract.multiplier > 1) {
    name += ` x${contract.multiplier}`;
  }
  return name;
}

/** One line of the score sheet. */
export function scoreLine(score: RoundScore, view: View): string {
  const contract = score.contract;
  const verdict =
    score.kabootTeam !== undefined ? `kaboot by team ${score.kabootTeam}` : score.made ? "made" : "failed";
  const [gained0, gained1] = score.teams.map((team) => team.finalPoints);
  const [total0, total1] = view.matchScore?.points ?? [];
  const pad = (value: number | undefined, width: number) => String(value ?? "?").padStart(width);
  return (
    `  round ${pad(score.roundNumber, 2)}: ${contractName(score).padEnd(12)} bought by seat ${contract?.buyer ?? "?"}` +
    ` (team ${contract?.buyerTeam ?? "?"}), ${verdict.padEnd(16)} +${pad(gained0, 3)} / +${pad(gained1, 3)}` +
    `   total ${pad(total0, 3)} - ${pad(total1, 3)}`
  );
}
