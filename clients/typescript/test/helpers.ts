// Shared steps of the tests: advance a match with random legal actions until a condition holds.

import { Phase, chooseAction, type Match, type Random } from "../src/index.js";

/** Take one step: deal between rounds, otherwise a random legal action of the seat to act. */
export async function step(match: Match, random: Random): Promise<void> {
  const view = match.latestView;
  if (view.phase === Phase.AWAITING_DEAL || view.phase === Phase.ROUND_OVER) {
    await match.deal(view.dealer);
    return;
  }
  const seat = view.turn;
  if (seat === undefined) {
    throw new Error(`nobody to act in phase ${Phase[view.phase]}`);
  }
  await match.act(seat, chooseAction(match.viewOf(seat)!, random));
}

/** Step until `done(match)` is true; false when the match ended first. */
export async function advanceUntil(match: Match, random: Random, done: (match: Match) => boolean): Promise<boolean> {
  while (!done(match)) {
    if (match.latestView.phase === Phase.MATCH_OVER) {
      return false;
    }
    await step(match, random);
  }
  return true;
}
