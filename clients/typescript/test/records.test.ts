// Match records through the TypeScript client: built from the responses, verified by the
// server, written as JSON and binary and read back, also by the Python client.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { equals } from "@bufbuild/protobuf";

import {
  BotLevel,
  EventKind,
  MatchRecordSchema,
  Phase,
  Preset,
  playMatch,
  recordFromBinary,
  recordFromJson,
  recordToBinary,
  recordToJson,
  seededRandom,
  type EngineClient,
} from "../src/index.js";
import { connectGrpc } from "../src/node.js";
import { PYTHON_BIN, REPO_ROOT, startServer, type RunningServer } from "./server.js";

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
