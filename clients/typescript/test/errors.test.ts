// Refusals through the TypeScript client: the typed error, its gRPC code and the ErrorInfo reason.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import { Code } from "@connectrpc/connect";

import {
  BidKind,
  BotLevel,
  EngineError,
  ErrorReason,
  IllegalActionError,
  InvalidRequestError,
  Phase,
  PermissionDeniedError,
  cardCode,
  parseCard,
  seededRandom,
  suitIndex,
  type EngineClient,
  type ErrorReasonName,
  type Match,
} from "../src/index.js";
import { connectGrpc } from "../src/node.js";
import { advanceUntil } from "./helpers.js";
import { startServer, type RunningServer } from "./server.js";

/** Assert that `promise` rejects with `kind`, `code` and `reason`; return the error. */
async function refused(
  promise: Promise<unknown>,
  kind: typeof EngineError,
  code: Code,
  reason: ErrorReasonName,
): Promise<EngineError> {
  const error = await promise.then(
    () => assert.fail(`accepted, expected ${reason}`),
    (error: unknown) => error,
  );
  assert.ok(error instanceof kind, `expected a ${kind.name}, got ${String(error)}`);
  assert.equal(error.code, code, error.message);
  assert.equal(error.reason, reason, error.message);
  assert.equal(error.reasonValue, ErrorReason[reason]);
  assert.ok(error.rawMessage.length > 0);
  return error;
}

/** The seat to play, in the middle of a trick, holding a card of the led suit and one of another. */
function mustFollow(match: Match): { seat: number; offSuit: number; led: number } | undefined {
  const view = match.latestView;
  const led = view.currentTrick?.cards[0]?.card;
  if (view.phase !== Phase.PLAYING || view.turn === undefined || led === undefined) {
    return undefined;
  }
  const hand = match.viewOf(view.turn)!.hand;
  const offSuit = hand.find((card) => suitIndex(card) !== suitIndex(led));
  const follows = hand.some((card) => suitIndex(card) === suitIndex(led));
  return follows && offSuit !== undefined ? { seat: view.turn, offSuit, led } : undefined;
}

describe("refusals over gRPC", () => {
  let server: RunningServer;
  let client: EngineClient;

  before(async () => {
    server = await startServer();
    client = connectGrpc(server.target);
  });
  after(async () => {
    await server?.stop();
  });

  it("refuses a card played out of turn with NOT_YOUR_TURN and changes nothing", async () => {
    const match = await client.createMatch({ firstDealer: 0 });
    await advanceUntil(match, seededRandom(11), (m) => m.latestView.phase === Phase.PLAYING);
    const turn = match.latestView.turn!;
    const other = (turn + 1) % 4;
    const card = match.viewOf(other)!.hand[0]!;
    const before = { state: match.state, version: match.version };
    const error = await refused(
      match.play(other, { card }),
      IllegalActionError,
      Code.FailedPrecondition,
      "NOT_YOUR_TURN",
    );
    assert.equal(error.codeName, "FAILED_PRECONDITION");
    assert.deepEqual({ state: match.state, version: match.version }, before);
    // The seat whose turn it is may still play.
    const legal = match.viewOf(turn)!.legalActions.find((action) => action.action.case === "play")!;
    await match.act(turn, legal);
    assert.equal(match.version, before.version + 1n);
  });

  it("refuses an off-suit card from a seat that can follow with MUST_FOLLOW_SUIT", async () => {
    const random = seededRandom(12);
    let found: ReturnType<typeof mustFollow>;
    let match: Match | undefined;
    for (let attempt = 0; attempt < 5 && found === undefined; attempt++) {
      match = await client.createMatch();
      await advanceUntil(match, random, (m) => (found = mustFollow(m)) !== undefined);
    }
    assert.ok(match !== undefined && found !== undefined, "no trick where a seat could follow suit");
    const error = await refused(
      match.play(found.seat, { card: found.offSuit }),
      IllegalActionError,
      Code.FailedPrecondition,
      "MUST_FOLLOW_SUIT",
    );
    assert.ok(error.message.includes("MUST_FOLLOW_SUIT"));
    // The facts of the refusal: the seat, the card, and the cards it may play instead.
    assert.equal(error.metadata["seat"], String(found.seat));
    assert.equal(error.metadata["card"], cardCode(found.offSuit));
    const allowed = (error.metadata["allowed"] ?? "").split(",").map(parseCard);
    assert.ok(allowed.length > 0);
    for (const card of allowed) {
      assert.equal(suitIndex(card), suitIndex(found.led), `${cardCode(card)} is not of the led suit`);
      assert.ok(match.viewOf(found.seat)!.hand.includes(card));
    }
  });

  it("says why in English by default and in Arabic when asked (LocalizedMessage)", async () => {
    const match = await client.createMatch({ firstDealer: 0 });
    const english = await refused(match.deal(2), IllegalActionError, Code.FailedPrecondition, "NOT_YOUR_TURN");
    assert.deepEqual(english.localized, { locale: "en", message: "It is not your turn. It is seat 0's turn." });
    assert.equal(english.display, english.localized?.message);
    const arabic = connectGrpc(server.target, { language: "ar" });
    assert.equal(arabic.language, "ar");
    const seen = arabic.resume(match.handle());
    const error = await refused(seen.deal(2), IllegalActionError, Code.FailedPrecondition, "NOT_YOUR_TURN");
    assert.deepEqual(error.localized, { locale: "ar-SA", message: "مو دورك. الدور على المقعد 0." });
    assert.deepEqual(error.metadata, english.metadata); // the facts do not depend on the language
    arabic.language = "en";
    const back = await refused(seen.deal(2), IllegalActionError, Code.FailedPrecondition, "NOT_YOUR_TURN");
    assert.equal(back.localized?.locale, "en");
  });

  it("refuses a card the seat does not hold with CARD_NOT_IN_HAND", async () => {
    const match = await client.createMatch();
    await advanceUntil(match, seededRandom(13), (m) => m.latestView.phase === Phase.PLAYING);
    const turn = match.latestView.turn!;
    const card = match.viewOf((turn + 1) % 4)!.hand[0]!;
    await refused(match.play(turn, { card }), IllegalActionError, Code.FailedPrecondition, "CARD_NOT_IN_HAND");
  });

  it("refuses another seat's credential and an unknown one with CREDENTIAL_INVALID", async () => {
    const match = await client.createMatch({ firstDealer: 0 });
    await match.deal(0);
    const turn = match.latestView.turn!;
    const wrong = match.seatCredentials[(turn + 1) % 4]!;
    const error = await refused(
      match.bid(turn, { kind: BidKind.PASS }, wrong),
      PermissionDeniedError,
      Code.PermissionDenied,
      "CREDENTIAL_INVALID",
    );
    assert.equal(error.codeName, "PERMISSION_DENIED");
    await refused(
      match.bid(turn, { kind: BidKind.PASS }, "not-a-credential"),
      PermissionDeniedError,
      Code.PermissionDenied,
      "CREDENTIAL_INVALID",
    );
    // A seat credential may not read another seat's private view.
    await refused(match.forSeat(1).view(2), PermissionDeniedError, Code.PermissionDenied, "CREDENTIAL_INVALID");
    // The right seat credential is accepted.
    await match.bid(turn, { kind: BidKind.PASS }, match.seatCredentials[turn]);
  });

  it("refuses a bot's suggestion to a seat credential, and for a seat not to act", async () => {
    const match = await client.createMatch({ firstDealer: 0 });
    await match.deal(0);
    const turn = match.latestView.turn!;
    await refused(
      match.forSeat(turn).suggest(turn, BotLevel.BASIC),
      PermissionDeniedError,
      Code.PermissionDenied,
      "CREDENTIAL_INVALID",
    );
    await refused(
      match.suggest((turn + 1) % 4, BotLevel.BASIC),
      IllegalActionError,
      Code.FailedPrecondition,
      "NOT_YOUR_TURN",
    );
  });

  it("refuses a tampered token and another match's token with STATE_INVALID", async () => {
    const match = await client.createMatch({ firstDealer: 0 });
    await match.deal(0);
    const tampered = Uint8Array.from(match.state);
    const middle = Math.floor(tampered.length / 2);
    tampered[middle] = tampered[middle]! ^ 0x01;
    const forged = client.resume({ ...match.handle(), state: tampered });
    const error = await refused(
      forged.bid(match.latestView.turn!, { kind: BidKind.PASS }),
      InvalidRequestError,
      Code.InvalidArgument,
      "STATE_INVALID",
    );
    assert.equal(error.codeName, "INVALID_ARGUMENT");
    await refused(forged.view(), InvalidRequestError, Code.InvalidArgument, "STATE_INVALID");

    const other = await client.createMatch({ firstDealer: 0 });
    const swapped = client.resume({ ...other.handle(), state: match.state, version: match.version });
    await refused(swapped.score(), InvalidRequestError, Code.InvalidArgument, "STATE_INVALID");
  });

  it("refuses an unexpected version with STALE_STATE", async () => {
    const match = await client.createMatch({ firstDealer: 0 });
    await match.deal(0);
    const stale = client.resume({ ...match.handle(), version: match.version + 1n });
    await refused(
      stale.bid(match.latestView.turn!, { kind: BidKind.PASS }),
      IllegalActionError,
      Code.FailedPrecondition,
      "STALE_STATE",
    );
  });

  it("refuses a preset deck on a server that does not accept one with PRESET_DECK_DISABLED", async () => {
    const match = await client.createMatch({ firstDealer: 0 });
    const deck = Array.from({ length: 32 }, (_, card) => card);
    await refused(match.deal(0, { deck }), PermissionDeniedError, Code.PermissionDenied, "PRESET_DECK_DISABLED");
  });

  it("reports an unreachable server as UNAVAILABLE with no reason", async () => {
    const idle = await startServer();
    await idle.stop();
    const error = await connectGrpc(idle.target, { timeoutMs: 5_000 })
      .createMatch()
      .then(
        () => assert.fail("a stopped server answered"),
        (error: unknown) => error,
      );
    assert.ok(error instanceof EngineError);
    assert.equal(error.code, Code.Unavailable);
    assert.equal(error.reason, "");
    assert.equal(error.reasonValue, ErrorReason.UNSPECIFIED);
  });
});
