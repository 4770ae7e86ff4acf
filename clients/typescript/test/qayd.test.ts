// Table play through the TypeScript client: a Qayd call judged in public, a refused call, and
// the review of a round closed by the host.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  EngineError,
  EventKind,
  Phase,
  QaydCategory,
  chooseAction,
  seededRandom,
  type EngineClient,
  type Match,
} from "../src/index.js";
import { connectGrpc } from "../src/node.js";
import { advanceUntil } from "./helpers.js";
import { startServer, type RunningServer } from "./server.js";

const TABLE = { illegalMovesAllowed: true };

/** Play random legal actions until a trick holds a first card; return its leader and card. */
async function toFirstCard(match: Match): Promise<{ leader: number; card: number }> {
  const random = seededRandom(3);
  const reached = await advanceUntil(match, random, (m) => (m.latestView.currentTrick?.cards.length ?? 0) > 0);
  assert.ok(reached);
  const played = match.latestView.currentTrick!.cards[0]!;
  return { leader: played.seat, card: played.card };
}

describe("table play (Qayd) over gRPC", () => {
  let server: RunningServer;
  let client: EngineClient;

  before(async () => {
    server = await startServer();
    client = connectGrpc(server.target);
  });
  after(async () => {
    await server?.stop();
  });

  it("judges a Qayd call on a legal card as wrong, in public, and ends the hand", async () => {
    const match = await client.createMatch({ rules: TABLE, firstDealer: 0 });
    const { leader, card } = await toFirstCard(match);
    const caller = (leader + 1) % 4;
    const events = await match.callQayd(caller, { accused: leader, trick: 1, card });
    assert.equal(events[0]!.kind, EventKind.QAYD_JUDGED);
    const verdict = events[0]!.detail.case === "qayd" ? events[0]!.detail.value : undefined;
    assert.ok(verdict);
    assert.equal(verdict.caller, caller);
    assert.equal(verdict.accused, leader);
    assert.equal(verdict.card, card);
    assert.equal(verdict.correct, false);
    assert.equal(verdict.winningTeam, leader % 2, "a wrong call loses the hand for the caller");
    assert.ok(events.some((event) => event.kind === EventKind.ROUND_SCORED));
  });

  it("refuses a call against the caller's own team with a reason", async () => {
    const match = await client.createMatch({ rules: TABLE, firstDealer: 0 });
    const { leader, card } = await toFirstCard(match);
    await assert.rejects(
      match.callQayd((leader + 2) % 4, { accused: leader, trick: 1, card, category: QaydCategory.REVOKE }),
      (error: unknown) => error instanceof EngineError && error.reason === "QAYD_NOT_ALLOWED",
    );
  });

  it("waits in review after the last card until the host closes it", async () => {
    const match = await client.createMatch({ rules: TABLE, firstDealer: 1 });
    const random = seededRandom(5);
    await advanceUntil(match, random, (m) => m.latestView.phase === Phase.PLAYING);
    while (match.latestView.phase === Phase.PLAYING) {
      const seat = match.latestView.turn!;
      await match.act(seat, chooseAction(match.viewOf(seat)!, random));
    }
    assert.equal(match.latestView.phase, Phase.ROUND_REVIEW);
    assert.equal(match.latestView.turn, undefined);
    const events = await match.closeReview();
    assert.equal(events[0]!.kind, EventKind.ROUND_SCORED);
    assert.notEqual(match.latestView.phase, Phase.ROUND_REVIEW);
  });
});
