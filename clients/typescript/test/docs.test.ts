// The TypeScript examples of the documents (README.md, docs/records.md, docs/fair-deals.md,
// docs/analysis.md), each run here as written against a real server. The documents show these
// lines; tests/docs/test_examples.py checks that every TypeScript block of a document is one of
// them, line for line (the documents' address "localhost:50051" is `target` here, the server
// started for the test).

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  AnalysisDepth,
  Phase,
  Preset,
  playMatch,
  recordFromJson,
  recordToJson,
  seededRandom,
  type EngineClient,
} from "../src/index.js";
import { checkRecordDeals, connectGrpc } from "../src/node.js";
import { startServer, type RunningServer } from "./server.js";

describe("the documents' TypeScript examples", () => {
  let server: RunningServer;
  let target: string;
  let client: EngineClient;

  before(async () => {
    server = await startServer();
    target = server.target;
    client = connectGrpc(target);
  });

  after(async () => {
    await server.stop();
  });

  it("README.md: a deal and one legal action", async () => {
    const engine = connectGrpc(target);
    const match = await engine.createMatch({ firstDealer: 0 });
    await match.deal(0);
    const seat = match.latestView.turn!;
    await match.act(seat, match.viewOf(seat)!.legalActions[0]!);
    assert.equal(match.latestView.phase, Phase.BIDDING);
    assert.equal(match.matchRecord().rounds[0]!.actions.length, 2);
  });

  it("docs/records.md and docs/fair-deals.md: a match's record, verified and its deals checked", async () => {
    const match = await client.createMatch({ firstDealer: 0 });
    await playMatch(match, seededRandom(1));
    const json = recordToJson(match.matchRecord()); // recordToBinary for the binary form
    const answer = await client.verifyRecord(recordFromJson(json));
    assert.ok(answer.valid, JSON.stringify(answer.divergence));
    assert.ok(answer.complete);

    const check = checkRecordDeals(match.matchRecord()); // null without a commitment
    // { proven, complete, badRound, why }: badRound is the first round not dealt its committed deck
    assert.ok(check !== null && check.proven && check.complete, JSON.stringify(check));
  });

  it("docs/analysis.md: the decisions that were not the best, explained in Arabic", async () => {
    const match = await client.createMatch({ firstDealer: 0, rules: { preset: Preset.KAMMELNA, matchTarget: 30 } });
    await playMatch(match, seededRandom(2));
    const record = match.matchRecord();
    const printed: unknown[] = [];
    const log = console.log;
    console.log = (...values: unknown[]) => void printed.push(...values);
    try {
      for await (const report of client.analyzeRecord(record, { depth: AnalysisDepth.QUICK, seed: 1 })) {
        if (report.report.case === "decision" && !report.report.value.bestChoice) {
          console.log(report.report.value.explanation?.ar);
        }
      }
    } finally {
      console.log = log;
    }
    assert.ok(printed.length > 0, "random play makes at least one mistake");
    assert.ok(printed.every((text) => typeof text === "string" && /[\u0600-\u06ff]/.test(text)));
  });
});
