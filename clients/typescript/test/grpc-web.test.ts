// The browser transport: gRPC-Web through the project's Envoy gateway (deploy/envoy/), from
// Node with the same fetch-based transport a browser uses; and native gRPC through the gateway.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { Code } from "@connectrpc/connect";

import {
  BidKind,
  IllegalActionError,
  InvalidRequestError,
  Phase,
  PermissionDeniedError,
  Preset,
  playMatch,
  seededRandom,
  type EngineClient,
  type EngineError,
} from "../src/index.js";
import { connectGrpc } from "../src/node.js";
import { connectGrpcWeb } from "../src/web.js";
import { startGateway, startServer, type RunningGateway, type RunningServer } from "./server.js";

async function rejection(promise: Promise<unknown>): Promise<EngineError> {
  return promise.then(
    () => assert.fail("accepted"),
    (error: EngineError) => error,
  );
}

describe("gRPC-Web through the Envoy gateway", () => {
  let server: RunningServer;
  let gateway: RunningGateway;
  let web: EngineClient;

  before(async () => {
    server = await startServer();
    gateway = await startGateway(server.target);
    web = connectGrpcWeb(gateway.baseUrl);
  });
  after(async () => {
    await gateway?.stop();
    await server?.stop();
  });

  let webCalls = 0n;

  it("plays a complete match over gRPC-Web", async () => {
    const match = await web.createMatch({ rules: { preset: Preset.KAMMELNA }, firstDealer: 1 });
    assert.equal(match.views.length, 4);
    let rounds = 0;
    const final = await playMatch(match, seededRandom(21), { onRound: () => rounds++ });
    assert.equal(final.phase, Phase.MATCH_OVER);
    assert.ok(final.matchScore?.winnerTeam === 0 || final.matchScore?.winnerTeam === 1);
    assert.equal(final.matchScore?.roundsScored, rounds); // the score sheet's rounds
    assert.ok((final.matchScore?.roundsPlayed ?? 0) >= rounds); // redeals too
    const score = await match.score();
    assert.deepEqual(score.match?.points, final.matchScore?.points);
    webCalls = match.version + 2n; // the actions, CreateMatch and GetScore
  });

  it("carries the ErrorInfo reasons through the gateway", async () => {
    const match = await web.createMatch({ firstDealer: 0 });
    await match.deal(0);
    const turn = match.latestView.turn!;
    const other = (turn + 1) % 4;

    const notYourTurn = await rejection(match.bid(other, { kind: BidKind.PASS }));
    assert.ok(notYourTurn instanceof IllegalActionError);
    assert.equal(notYourTurn.code, Code.FailedPrecondition);
    assert.equal(notYourTurn.reason, "NOT_YOUR_TURN");

    const wrongCredential = await rejection(match.bid(turn, { kind: BidKind.PASS }, match.seatCredentials[other]));
    assert.ok(wrongCredential instanceof PermissionDeniedError);
    assert.equal(wrongCredential.reason, "CREDENTIAL_INVALID");

    const tampered = Uint8Array.from(match.state);
    tampered[0] = tampered[0]! ^ 0xff;
    const forged = web.resume({ ...match.handle(), state: tampered });
    const stateInvalid = await rejection(forged.bid(turn, { kind: BidKind.PASS }));
    assert.ok(stateInvalid instanceof InvalidRequestError);
    assert.equal(stateInvalid.code, Code.InvalidArgument);
    assert.equal(stateInvalid.reason, "STATE_INVALID");

    // A browser asks its refusals in Arabic: accept-language passes the gateway.
    const arabic = connectGrpcWeb(gateway.baseUrl, { language: "ar" }).resume(match.handle());
    const inArabic = await rejection(arabic.bid(other, { kind: BidKind.PASS }));
    assert.equal(inArabic.reason, "NOT_YOUR_TURN");
    assert.deepEqual(inArabic.localized, { locale: "ar-SA", message: `مو دورك. الدور على المقعد ${turn}.` });
  });

  it("also serves native gRPC on the same port", async () => {
    const grpc = connectGrpc(`127.0.0.1:${gateway.port}`);
    const match = await grpc.createMatch({ firstDealer: 2 });
    await match.deal(2);
    assert.equal(match.latestView.phase, Phase.BIDDING);
    const error = await rejection(match.bid((match.latestView.turn! + 1) % 4, { kind: BidKind.PASS }));
    assert.equal(error.reason, "NOT_YOUR_TURN");
  });

  it("went through Envoy as gRPC-Web over HTTP/1.1, as from a browser", async () => {
    const direct = await rejection(connectGrpcWeb(`http://${server.target}`, { timeoutMs: 5_000 }).createMatch());
    assert.equal(direct.reason, "", "the server alone does not speak gRPC-Web");
    // Stopping Envoy flushes its access log (it writes it in batches).
    await gateway.stop();
    const web = gateway.accessLog.filter(
      (entry) => entry["protocol"] === "HTTP/1.1" && String(entry["path"]).startsWith("/baloot.v1."),
    );
    assert.ok(web.length >= Number(webCalls), `${web.length} gRPC-Web calls logged, ${webCalls} expected`);
    assert.ok(
      gateway.accessLog.some((entry) => entry["protocol"] === "HTTP/2"),
      "the native gRPC calls",
    );
  });
});
