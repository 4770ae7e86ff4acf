// AnalyzeRecord through the TypeScript client: a record's analysis streamed from a real server,
// a refusal as an EngineError, and a cancelled call.

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { after, before, describe, it } from "node:test";

import {
  AnalysisDepth,
  EngineError,
  recordFromJson,
  type AnalyzeRecordResponse,
  type EngineClient,
} from "../src/index.js";
import { connectGrpc } from "../src/node.js";
import { PYTHON_BIN, REPO_ROOT, startServer, type RunningServer } from "./server.js";

/** A two-round record of BASIC bots, written by the service's own tools. */
function botRecord(): string {
  const script = [
    "from google.protobuf import json_format",
    "from baloot_engine.analysis.selfplay import play_record",
    "from baloot_engine.api.analysis import record_message",
    "from baloot_engine.bots import Level",
    "start, rounds = play_record([Level.BASIC] * 4, 3, max_rounds=2)",
    "print(json_format.MessageToJson(record_message(start, rounds)))",
  ].join("\n");
  return execFileSync(PYTHON_BIN, ["-c", script], { cwd: REPO_ROOT, encoding: "utf-8" });
}

describe("AnalyzeRecord", () => {
  let server: RunningServer;
  let client: EngineClient;
  const record = recordFromJson(botRecord());

  before(async () => {
    server = await startServer();
    client = connectGrpc(server.target);
  });

  after(async () => {
    await server.stop();
  });

  it("streams progress, decisions with sentences in both languages, rounds and the match", async () => {
    const reports: AnalyzeRecordResponse[] = [];
    for await (const report of client.analyzeRecord(record, { depth: AnalysisDepth.QUICK, rounds: [0], seed: 1 })) {
      reports.push(report);
    }
    assert.equal(reports[0]?.report.case, "progress");
    assert.equal(reports.at(-1)?.report.case, "match");
    const decisions = reports.flatMap((r) => (r.report.case === "decision" ? [r.report.value] : []));
    assert.ok(decisions.length > 10);
    for (const decision of decisions) {
      assert.ok(decision.alternatives.length >= 2);
      assert.ok(decision.explanation?.en);
      assert.ok(decision.explanation?.ar);
    }
  });

  it("rejects a budget out of range with its reason", async () => {
    await assert.rejects(
      async () => {
        for await (const _ of client.analyzeRecord(record, { worlds: 1000 })) {
          // nothing arrives
        }
      },
      (error: unknown) => error instanceof EngineError && error.reason === "ANALYSIS_BUDGET_INVALID",
    );
  });

  it("stops when the caller aborts", async () => {
    const controller = new AbortController();
    const seen: string[] = [];
    await assert.rejects(async () => {
      for await (const report of client.analyzeRecord(record, {
        depth: AnalysisDepth.DEEP,
        signal: controller.signal,
      })) {
        seen.push(report.report.case ?? "");
        controller.abort();
      }
    });
    assert.deepEqual(seen, ["progress"]);
  });
});
