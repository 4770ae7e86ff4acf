// The card encoding helpers and the error type mapping, without a server.

import assert from "node:assert/strict";
import { describe, it } from "node:test";

import { Code, ConnectError } from "@connectrpc/connect";
import { create, toBinary } from "@bufbuild/protobuf";

import {
  EngineError,
  ErrorInfoSchema,
  ErrorReason,
  IllegalActionError,
  Rank,
  Suit,
  cardCode,
  cardOf,
  codeName,
  matchRecordFromJson,
  matchRecordToJson,
  metadataList,
  parseCard,
  rankOf,
  suitOf,
} from "../src/index.js";

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
    const json = JSON.parse(JSON.stringify(matchRecordToJson(record)));
    assert.deepEqual(matchRecordFromJson(json), record);
  });
});
