// Match records through the TypeScript client: built from the responses, verified by the
// server, written as JSON and binary and read back, also by the Python client.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { clone, equals } from "@bufbuild/protobuf";

import {
  BotLevel,
  DealDisclosure,
  EngineError,
  EventKind,
  MatchRecordSchema,
  Phase,
  Preset,
  chooseAction,
  playMatch,
  recordFromBinary,
  recordFromJson,
  recordToBinary,
  recordToJson,
  seededRandom,
  type EngineClient,
  type Match,
  type Random,
} from "../src/index.js";
import { checkRecordDeals, connectGrpc } from "../src/node.js";
import { PYTHON_BIN, REPO_ROOT, startServer, type RunningServer } from "./server.js";

/**
 * Random table play to the end of the match: now and then the seat on turn plays any card it
 * holds, a seat calls Qayd on a card of the other team in the current or the last trick, and in
 * the review the host closes it (or a seat calls Qayd first).
 */
async function playTable(match: Match, random: Random): Promise<{ closes: number; calls: number }> {
  let closes = 0;
  let calls = 0;
  for (let steps = 0; match.latestView.phase !== Phase.MATCH_OVER; steps++) {
    assert.ok(steps < 5000, "the match does not end");
    const view = match.latestView;
    const review = view.phase === Phase.ROUND_REVIEW;
    if ((review && random() < 0.3) || (view.phase === Phase.PLAYING && random() < 0.04)) {
      const played = [view.currentTrick, view.lastTrick].flatMap((trick) =>
        trick === undefined ? [] : trick.cards.map((card) => ({ trick: trick.number, ...card })),
      );
      const target = played[Math.floor(random() * played.length)];
      if (target !== undefined) {
        try {
          await match.callQayd((target.seat + 1) % 4, { accused: target.seat, trick: target.trick, card: target.card });
          calls++;
          continue;
        } catch (error) {
          if (!(error instanceof EngineError)) {
            throw error;
          }
        }
      }
    }
    if (review) {
      await match.closeReview();
      closes++;
      continue;
    }
    const between = view.phase === Phase.AWAITING_DEAL || view.phase === Phase.ROUND_OVER;
    const seat = between ? view.dealer : view.turn!;
    const seatView = match.viewOf(seat)!;
    if (view.phase === Phase.PLAYING && random() < 0.15 && seatView.hand.length > 0) {
      await match.play(seat, { card: seatView.hand[Math.floor(random() * seatView.hand.length)]! });
      continue;
    }
    await match.act(seat, chooseAction(seatView, random));
  }
  return { closes, calls };
}

describe("match records", () => {
  let server: RunningServer;
  let client: EngineClient;
  let dir: string;

  before(async () => {
    server = await startServer();
    client = connectGrpc(server.target);
    dir = mkdtempSync(join(tmpdir(), "baloot-records-"));
  });
  after(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it("builds a record that verifies, in JSON and binary, read back by Python too", async () => {
    const match = await client.createMatch({ rules: { preset: Preset.KAMMELNA }, firstDealer: 1 });
    const final = await playMatch(match, seededRandom(9));
    assert.equal(final.phase, Phase.MATCH_OVER);
    const record = match.matchRecord();
    assert.ok(record.rounds.length > 0);
    for (const round of record.rounds) {
      assert.deepEqual(
        [...round.deckOrder].sort((a, b) => a - b),
        Array.from({ length: 32 }, (_, i) => i),
      );
      assert.equal(round.actions[0]?.action?.action.case, "deal");
    }
    const verified = await client.verifyRecord(record);
    assert.ok(verified.valid, JSON.stringify(verified.divergence));
    assert.equal(BigInt(verified.actionsReplayed), match.version);
    assert.deepEqual(verified.match?.points, final.matchScore?.points);

    const json = recordToJson(record);
    const binary = recordToBinary(record);
    assert.ok(equals(MatchRecordSchema, recordFromJson(json), record));
    assert.ok(equals(MatchRecordSchema, recordFromBinary(binary), record));
    writeFileSync(join(dir, "ts.json"), json);
    writeFileSync(join(dir, "ts.pb"), binary);
    // The Python client reads both files to one message and has the server verify it.
    const script = [
      "import sys",
      "from baloot_client import EngineClient, read_record",
      "a, b = read_record(sys.argv[1]), read_record(sys.argv[2])",
      "assert a == b, 'the JSON and binary forms differ'",
      "answer = EngineClient.connect(sys.argv[3]).verify_record(a)",
      "print(answer.valid, answer.actions_replayed)",
    ].join("\n");
    const out = execFileSync(PYTHON_BIN, ["-c", script, join(dir, "ts.json"), join(dir, "ts.pb"), server.target], {
      cwd: REPO_ROOT,
      encoding: "utf8",
    });
    assert.equal(out.trim(), `True ${match.version}`);
  });

  it("proves its decks against CreateMatch's commitment; a changed deck is caught", async () => {
    const match = await client.createMatch({
      rules: { preset: Preset.SEEDS, matchTarget: 60 },
      firstDealer: 2,
      dealDisclosure: DealDisclosure.EACH_ROUND,
    });
    assert.equal(match.matchRecord().dealCommitment?.commitment.length, 32);
    await playMatch(match, seededRandom(21));
    const record = match.matchRecord();
    const scored = record.rounds.filter((round) => round.score !== undefined).length;
    assert.equal(record.dealKey?.round, scored); // the last scored round's key
    const verified = await client.verifyRecord(record);
    assert.ok(verified.valid, JSON.stringify(verified.divergence));
    assert.ok(verified.dealsProven);
    assert.equal(verified.roundsProven, record.rounds.length);
    assert.deepEqual(checkRecordDeals(record), {
      proven: record.rounds.length,
      complete: true,
      badRound: null,
      why: "",
    });
    // A server that dealt the last hand another deck after the commitment is caught.
    const forged = clone(MatchRecordSchema, record);
    const last = forged.rounds.length - 1;
    const deck = forged.rounds[last]?.deckOrder as number[];
    [deck[0], deck[31]] = [deck[31] as number, deck[0] as number];
    assert.equal(checkRecordDeals(forged)?.badRound, last);
    const refused = await client.verifyRecord(forged);
    assert.equal(refused.valid, false);
    assert.equal(refused.divergence?.reason, "DEAL_NOT_COMMITTED");
    assert.equal(refused.divergence?.roundIndex, last);
  });

  it("completes the record of a match whose players act with their own seat credentials", async () => {
    const match = await client.createMatch({
      rules: { preset: Preset.SEEDS, sawa: true, matchTarget: 60 },
      firstDealer: 3,
    });
    const random = seededRandom(55);
    let endedBySeats = 0;
    for (let steps = 0; match.latestView.phase !== Phase.MATCH_OVER; steps++) {
      assert.ok(steps < 5000, "the match does not end");
      const view = match.latestView;
      const between = view.phase === Phase.AWAITING_DEAL || view.phase === Phase.ROUND_OVER;
      const seat = between ? view.dealer : view.turn!;
      const credential = match.seatCredentials[seat]!;
      const own = await match.view(seat, credential);
      const options = own.legalActions.filter((a) => !(a.action.case === "play" && a.action.value.sawa));
      const events = await match.act(seat, chooseAction({ ...own, legalActions: options }, random), credential);
      assert.equal(match.views.length, 1); // the seat's own view only
      const kinds = events.map((event) => event.kind);
      if (kinds.includes(EventKind.ROUND_SCORED) || kinds.includes(EventKind.REDEAL)) {
        assert.ok(!kinds.includes(EventKind.ROUND_REVEALED)); // no reveal to a seat
        endedBySeats++;
      }
    }
    assert.ok(endedBySeats > 0);
    const record = match.matchRecord();
    assert.ok(record.rounds.every((round) => round.deckOrder.length === 32));
    const verified = await client.verifyRecord(record);
    assert.ok(verified.valid, JSON.stringify(verified.divergence));
    assert.ok(verified.complete);
    assert.ok(verified.dealsProven);
    assert.equal(verified.roundsProven, record.rounds.length);
  });

  for (const [name, preset] of [
    ["Seeds", Preset.SEEDS],
    ["Kammelna", Preset.KAMMELNA],
    ["Federation", Preset.FEDERATION],
  ] as const) {
    it(`records a table-play match (${name}) with its Qayd calls and closes of reviews`, async () => {
      const match = await client.createMatch({
        rules: { preset, illegalMovesAllowed: true, sawa: true },
        firstDealer: 2,
      });
      const { closes } = await playTable(match, seededRandom(21));
      assert.ok(closes > 0, "no review was closed");
      const record = match.matchRecord();
      const closed = record.rounds.flatMap((round) => round.actions.filter((entry) => entry.closeReview));
      assert.equal(closed.length, closes);
      for (const entry of closed) {
        assert.equal(entry.seat, 0);
        assert.equal(entry.action, undefined);
      }
      const verified = await client.verifyRecord(record);
      assert.ok(verified.valid, JSON.stringify(verified.divergence));
      assert.equal(BigInt(verified.actionsReplayed), match.version);
      assert.deepEqual(verified.match?.points, match.latestView.matchScore?.points);
      // The JSON form names each close and reads back to the same record.
      const json = recordToJson(record);
      assert.ok(json.includes('"closeReview": true'));
      assert.ok(equals(MatchRecordSchema, recordFromJson(json), record));
      // ReplayRecord at the first close: the review closed, the round scored and revealed.
      let step = 0;
      for (const round of record.rounds) {
        const index = round.actions.findIndex((entry) => entry.closeReview);
        if (index >= 0) {
          step += index + 1;
          break;
        }
        step += round.actions.length;
      }
      const inside = await client.replayRecord(record, step - 1);
      assert.equal(inside.views[0]?.phase, Phase.ROUND_REVIEW);
      const replayed = await client.replayRecord(record, step);
      assert.equal(replayed.action?.closeReview, true);
      assert.ok(replayed.events.some((event) => event.kind === EventKind.ROUND_SCORED));
      assert.ok(replayed.events.some((event) => event.kind === EventKind.ROUND_REVEALED));
    });
  }

  it("lists the deal for the dealer only, and lets bots act in one call", async () => {
    const match = await client.createMatch({ rules: { preset: Preset.SEEDS, matchTarget: 40 }, firstDealer: 3 });
    assert.deepEqual(
      match.views.map((view) => view.legalActions.map((a) => a.action.case)),
      [[], [], [], ["deal"]],
    );
    while (match.latestView.phase !== Phase.MATCH_OVER) {
      const view = match.latestView;
      const between = view.phase === Phase.AWAITING_DEAL || view.phase === Phase.ROUND_OVER;
      const seat = between ? view.dealer : view.turn!;
      const response = await match.botAct(seat, BotLevel.RANDOM);
      assert.equal(response.seat, seat);
    }
    const verified = await client.verifyRecord(match.matchRecord());
    assert.ok(verified.valid, JSON.stringify(verified.divergence));
    const step = await client.replayRecord(match.matchRecord(), 1);
    assert.equal(step.action?.action?.action.case, "deal");
    assert.ok(step.events.some((event) => event.kind === EventKind.CARDS_DEALT));
  });

  it("gives a spectator the public view only", async () => {
    const match = await client.createMatch({ firstDealer: 0 });
    await match.deal(0);
    const spectator = await match.view(undefined, match.spectatorCredential);
    assert.equal(spectator.seat, undefined);
    assert.deepEqual(spectator.hand, []);
    await assert.rejects(match.view(0, match.spectatorCredential), /CREDENTIAL_INVALID/);
  });
});
