// The card encoding helpers and the error type mapping, without a server.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

import { Code, ConnectError } from "@connectrpc/connect";
import { create, toBinary } from "@bufbuild/protobuf";

import {
  EngineError,
  ErrorInfoSchema,
  ErrorReason,
  IllegalActionError,
  DEFAULT_RETRY_POLICY,
  Rank,
  Suit,
  backoffCeilingMs,
  cardCode,
  cardOf,
  codeName,
  matchHandleFromJson,
  matchHandleToJson,
  metadataList,
  parseCard,
  rankOf,
  retryInterceptor,
  suitOf,
} from "../src/index.js";
import { REPO_ROOT } from "./server.js";

describe("cards", () => {
  it("follows the encoding of types.proto", () => {
    assert.equal(cardCode(0), "7S");
    assert.equal(cardCode(7), "AS");
    assert.equal(cardCode(11), "10H");
    assert.equal(cardCode(31), "AC");
    assert.equal(suitOf(11), Suit.HEARTS);
    assert.equal(rankOf(11), Rank.TEN);
    assert.equal(cardOf(Suit.CLUBS, Rank.ACE), 31);
  });

  it("parses every code back to its card", () => {
    for (let card = 0; card < 32; card++) {
      assert.equal(parseCard(cardCode(card)), card);
    }
    assert.equal(parseCard(" as "), 7);
    assert.equal(parseCard("10♥"), 11);
    assert.throws(() => parseCard("1H"), RangeError);
    assert.throws(() => cardCode(32), RangeError);
  });
});

describe("errors", () => {
  it("reads the reason and metadata of a baloot.v1 ErrorInfo", () => {
    const info = create(ErrorInfoSchema, {
      reason: "MUST_FOLLOW_SUIT",
      domain: "baloot.v1",
      metadata: { seat: "2", allowed: "7H,KH" },
    });
    const wire = new ConnectError("seat 2 must follow hearts", Code.FailedPrecondition);
    // As the transports store the grpc-status-details-bin trailer: type names and bytes.
    wire.details = [{ type: "google.rpc.ErrorInfo", value: toBinary(ErrorInfoSchema, info) }];
    const error = EngineError.from(wire);
    assert.ok(error instanceof IllegalActionError);
    assert.equal(error.reason, "MUST_FOLLOW_SUIT");
    assert.deepEqual(error.metadata, { seat: "2", allowed: "7H,KH" });
    assert.deepEqual(error.allowed, ["7H", "KH"]);
    assert.equal(error.card, undefined);
    assert.equal(error.rawMessage, "seat 2 must follow hearts");
    assert.equal(error.message, "FAILED_PRECONDITION MUST_FOLLOW_SUIT: seat 2 must follow hearts");
    assert.equal(error.cause, wire);
  });

  it("reads the list-valued metadata keys", () => {
    const error = new IllegalActionError(Code.FailedPrecondition, "PROJECT_NOT_HELD", "no", {
      declared: "sira,fifty",
      held: "",
      card: "KH",
    });
    assert.deepEqual(metadataList(error.metadata, "declared"), ["sira", "fifty"]);
    assert.deepEqual(metadataList(error.metadata, "held"), []);
    assert.deepEqual(error.allowed, []);
    assert.equal(error.card, "KH");
  });

  it("keeps a reason this client does not know yet", () => {
    const info = create(ErrorInfoSchema, { reason: "SOME_NEW_REASON", domain: "baloot.v1" });
    const wire = new ConnectError("new", Code.FailedPrecondition);
    wire.details = [{ type: "google.rpc.ErrorInfo", value: toBinary(ErrorInfoSchema, info) }];
    const error = EngineError.from(wire);
    assert.equal(error.reason, "SOME_NEW_REASON");
    assert.equal(error.reasonValue, ErrorReason.UNSPECIFIED);
  });

  it("ignores reasons of other domains", () => {
    const info = create(ErrorInfoSchema, { reason: "MUST_FOLLOW_SUIT", domain: "example.com" });
    const wire = new ConnectError("no", Code.FailedPrecondition);
    wire.details = [{ type: "google.rpc.ErrorInfo", value: toBinary(ErrorInfoSchema, info) }];
    assert.equal(EngineError.from(wire).reason, "");
  });

  it("names codes as gRPC does", () => {
    assert.equal(codeName(Code.FailedPrecondition), "FAILED_PRECONDITION");
    assert.equal(codeName(Code.InvalidArgument), "INVALID_ARGUMENT");
    assert.equal(codeName(Code.Unavailable), "UNAVAILABLE");
  });
});

describe("match records", () => {
  it("round-trip through JSON", () => {
    const record = {
      matchId: "m1",
      state: Uint8Array.from([0, 1, 254, 255]),
      version: 2n ** 40n,
      credential: "c",
      seat: 2,
    };
    const json = JSON.parse(JSON.stringify(matchHandleToJson(record)));
    assert.deepEqual(matchHandleFromJson(json), record);
  });
});

describe("retry policy", () => {
  type Next = Parameters<ReturnType<typeof retryInterceptor>>[0];
  type Request = Parameters<Next>[0];
  const request = { stream: false, signal: new AbortController().signal } as unknown as Request;
  /** A call that fails with `code` `failures` times, then answers; counts its attempts. */
  function flaky(failures: number, code: Code): { next: Next; attempts: () => number } {
    let attempts = 0;
    const next = (async () => {
      attempts += 1;
      if (attempts <= failures) throw new ConnectError("not now", code);
      return { stream: false, message: {} };
    }) as unknown as Next;
    return { next, attempts: () => attempts };
  }
  const noWait = () => 0;

  it("is the policy of clients/service_config.json", () => {
    const config = JSON.parse(readFileSync(join(REPO_ROOT, "clients", "service_config.json"), "utf8"));
    const policy = config.methodConfig[0].retryPolicy;
    const ms = (duration: string) => Number(duration.replace(/s$/, "")) * 1000;
    assert.deepEqual(config.methodConfig[0].name, [{ service: "baloot.v1.BalootEngineService" }]);
    assert.deepEqual(DEFAULT_RETRY_POLICY, {
      maxAttempts: policy.maxAttempts,
      initialBackoffMs: ms(policy.initialBackoff),
      maxBackoffMs: ms(policy.maxBackoff),
      backoffMultiplier: policy.backoffMultiplier,
      retryableCodes: policy.retryableStatusCodes.map((name: string) =>
        name === "UNAVAILABLE" ? Code.Unavailable : -1,
      ),
    });
  });

  it("retries UNAVAILABLE until an attempt succeeds", async () => {
    const call = flaky(3, Code.Unavailable);
    await retryInterceptor(DEFAULT_RETRY_POLICY, noWait)(call.next)(request);
    assert.equal(call.attempts(), 4);
  });

  it("gives up after maxAttempts", async () => {
    const call = flaky(100, Code.Unavailable);
    await assert.rejects(retryInterceptor(DEFAULT_RETRY_POLICY, noWait)(call.next)(request), (error: unknown) => {
      return error instanceof ConnectError && error.code === Code.Unavailable;
    });
    assert.equal(call.attempts(), DEFAULT_RETRY_POLICY.maxAttempts);
  });

  it("never retries a refusal", async () => {
    const call = flaky(100, Code.FailedPrecondition);
    await assert.rejects(retryInterceptor(DEFAULT_RETRY_POLICY, noWait)(call.next)(request));
    assert.equal(call.attempts(), 1);
  });

  it("backs off exponentially up to maxBackoff", () => {
    const ceilings = [1, 2, 3, 4, 5, 6].map((retry) => backoffCeilingMs(DEFAULT_RETRY_POLICY, retry));
    assert.deepEqual(ceilings, [100, 200, 400, 800, 1600, 2000]);
  });
});
