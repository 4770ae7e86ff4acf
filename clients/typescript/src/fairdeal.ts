// Provably fair deals (docs/fair-deals.md): check that every deck of a match record is the one
// the match committed to before play. Node.js only (node:crypto); the same procedure as the
// service's rules/fairdeal.py, checked against tests/golden/fair_deals.json.

import { createHash, createHmac, timingSafeEqual } from "node:crypto";

import type { MatchRecord } from "./gen/baloot/v1/records_pb.js";

/** The scheme of this verifier (DealCommitment.scheme); 0 is read as 1. */
export const FAIR_DEAL_SCHEME = 1;
/** N: the rounds one commitment covers. */
export const FAIR_DEAL_CHAIN_ROUNDS = 256;

const encoder = new TextEncoder();
const CHAIN_LABEL = encoder.encode("baloot-fair-deal/v1/chain");
const DECK_LABEL = encoder.encode("baloot-fair-deal/v1/deck");
const SHUFFLE_LABEL = encoder.encode("baloot-fair-deal/v1/shuffle");

function u32be(value: number): Uint8Array {
  const bytes = new Uint8Array(4);
  new DataView(bytes.buffer).setUint32(0, value, false);
  return bytes;
}

function link(roundNumber: number, key: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(CHAIN_LABEL).update(u32be(roundNumber)).update(key).digest());
}

/** key[roundNumber] from key[keyRound] (roundNumber ≤ keyRound): hash on, one link per round. */
export function earlierKey(key: Uint8Array, keyRound: number, roundNumber: number): Uint8Array {
  if (!(roundNumber >= 0 && roundNumber <= keyRound)) {
    throw new RangeError(`round ${roundNumber} is not at or before round ${keyRound}`);
  }
  let current = key;
  for (let r = keyRound; r > roundNumber; r--) {
    current = link(r, current);
  }
  return current;
}

/** key[roundNumber] of the chain of a 32-byte dealing secret (key[0] is the commitment). */
export function roundKey(secret: Uint8Array, roundNumber: number): Uint8Array {
  return earlierKey(secret, FAIR_DEAL_CHAIN_ROUNDS, roundNumber);
}

/** Whether `key` is key[keyRound] of the chain ending in the commitment `committed`. */
export function keyMatches(key: Uint8Array, keyRound: number, committed: Uint8Array): boolean {
  if (key.length !== 32 || committed.length !== 32) return false;
  if (!Number.isInteger(keyRound) || keyRound < 1 || keyRound > FAIR_DEAL_CHAIN_ROUNDS) return false;
  return timingSafeEqual(earlierKey(key, keyRound, 0), committed);
}

function hmac(key: Uint8Array, ...parts: Uint8Array[]): Uint8Array {
  const mac = createHmac("sha256", key);
  for (const part of parts) mac.update(part);
  return new Uint8Array(mac.digest());
}

/** The permutation of cards 0-31 a 32-byte deck seed gives (Fisher-Yates, rejection sampling). */
export function shuffle(deckSeed: Uint8Array): number[] {
  const deck = Array.from({ length: 32 }, (_, i) => i);
  let block: Uint8Array = new Uint8Array(0);
  let position = 0;
  let counter = 0;
  const next = (): number => {
    if (position === block.length) {
      block = hmac(deckSeed, SHUFFLE_LABEL, u32be(counter++));
      position = 0;
    }
    return block[position++] as number;
  };
  for (let i = 31; i > 0; i--) {
    const bound = i + 1;
    const limit = 256 - (256 % bound);
    let value = next();
    while (value >= limit) value = next();
    const j = value % bound;
    [deck[i], deck[j]] = [deck[j] as number, deck[i] as number];
  }
  return deck;
}

/** The deck of a round whose key is `key`, after `redeals` redeals of that round. */
export function committedDeck(key: Uint8Array, redeals: number): number[] {
  return shuffle(hmac(key, DECK_LABEL, u32be(redeals)));
}

/** The [round, redeals] of each hand of a record, from whether each hand was scored. */
export function roundPositions(scored: readonly boolean[]): Array<[number, number]> {
  const positions: Array<[number, number]> = [];
  let roundNumber = 1;
  let redeals = 0;
  for (const wasScored of scored) {
    positions.push([roundNumber, redeals]);
    if (wasScored) {
      roundNumber += 1;
      redeals = 0;
    } else {
      redeals += 1;
    }
  }
  return positions;
}

/** What a disclosed key proves of a record's decks (see docs/fair-deals.md). */
export interface DealCheck {
  /** The hands, from the first, whose deck is the committed one. */
  proven: number;
  /** Every hand of the record is proven. */
  complete: boolean;
  /** The first hand whose deck is not the committed one (0 when the key does not open the commitment), or null. */
  badRound: number | null;
  /** Why, when something is not proven. */
  why: string;
}

/** Check each hand's deck (in order, with whether it was scored) against a commitment and a key. */
export function checkDecks(
  committed: Uint8Array,
  keyRound: number,
  key: Uint8Array,
  decks: readonly (readonly number[])[],
  scored: readonly boolean[],
): DealCheck {
  if (keyRound === 0 && key.length === 0) {
    return { proven: 0, complete: decks.length === 0, badRound: null, why: "no key is disclosed" };
  }
  if (!keyMatches(key, keyRound, committed)) {
    return {
      proven: 0,
      complete: false,
      badRound: 0,
      why: `the key of round ${keyRound} does not open the commitment`,
    };
  }
  const keys = [key]; // key[keyRound], key[keyRound - 1], … key[1]
  for (let r = keyRound; r > 1; r--) keys.push(link(r, keys[keys.length - 1] as Uint8Array));
  let proven = 0;
  const positions = roundPositions(scored);
  for (let index = 0; index < decks.length; index++) {
    const [roundNumber, redeals] = positions[index] as [number, number];
    if (roundNumber > keyRound) break; // not disclosed yet
    const expected = committedDeck(keys[keyRound - roundNumber] as Uint8Array, redeals);
    const deck = decks[index] as readonly number[];
    if (deck.length !== 32 || deck.some((card, i) => card !== expected[i])) {
      const why = `hand ${index + 1} (round ${roundNumber}, redeal ${redeals}) was not dealt the committed deck`;
      return { proven, complete: false, badRound: index, why };
    }
    proven += 1;
  }
  return { proven, complete: proven === decks.length, badRound: null, why: "" };
}

/** Check a record's decks against its commitment; null for a record without one of this scheme. */
export function checkRecordDeals(record: MatchRecord): DealCheck | null {
  const commitment = record.dealCommitment;
  if (commitment === undefined || (commitment.scheme !== 0 && commitment.scheme !== FAIR_DEAL_SCHEME)) {
    return null;
  }
  return checkDecks(
    commitment.commitment,
    record.dealKey?.round ?? 0,
    record.dealKey?.key ?? new Uint8Array(0),
    record.rounds.map((r) => r.deckOrder),
    record.rounds.map((r) => r.score !== undefined),
  );
}
