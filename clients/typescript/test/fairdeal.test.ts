// Provably fair deals: the TypeScript verifier reproduces every value of
// tests/golden/fair_deals.json (the vectors the service's Python verifier is checked against),
// and catches a changed deck or key in a record message.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, it } from "node:test";

import { fromJson, type JsonValue } from "@bufbuild/protobuf";

import { MatchRecordSchema } from "../src/index.js";
import {
  FAIR_DEAL_CHAIN_ROUNDS,
  FAIR_DEAL_SCHEME,
  checkRecordDeals,
  committedDeck,
  keyMatches,
  roundKey,
} from "../src/node.js";
import { REPO_ROOT } from "./server.js";

interface Vectors {
  scheme: number;
  chainRounds: number;
  chains: { name: string; secret: string; commitment: string; keys: Record<string, string> }[];
  decks: { key: string; redeals: number; deck: number[] }[];
  records: {
    name: string;
    record: JsonValue;
    expect: { proven: number; complete: boolean; badRound: number | null } | null;
  }[];
}

const GOLDEN = JSON.parse(readFileSync(join(REPO_ROOT, "tests", "golden", "fair_deals.json"), "utf8")) as Vectors;
const hex = (text: string): Uint8Array => new Uint8Array(Buffer.from(text, "hex"));

describe("fair deals (tests/golden/fair_deals.json)", () => {
  it("has the verifier's scheme and chain length", () => {
    assert.equal(GOLDEN.scheme, FAIR_DEAL_SCHEME);
    assert.equal(GOLDEN.chainRounds, FAIR_DEAL_CHAIN_ROUNDS);
  });

  for (const chain of GOLDEN.chains) {
    it(`chain ${chain.name}: every key and the commitment`, () => {
      const secret = hex(chain.secret);
      const committed = hex(chain.commitment);
      assert.deepEqual(roundKey(secret, 0), committed);
      for (const [round, key] of Object.entries(chain.keys)) {
        assert.deepEqual(roundKey(secret, Number(round)), hex(key));
        assert.equal(keyMatches(hex(key), Number(round), committed), Number(round) > 0);
      }
    });
  }

  it("every committed deck", () => {
    for (const vector of GOLDEN.decks) {
      assert.deepEqual(committedDeck(hex(vector.key), vector.redeals), vector.deck);
    }
  });

  for (const vector of GOLDEN.records) {
    it(`record: ${vector.name}`, () => {
      // The vectors hold the record's proto3 JSON form (only the fields the check reads).
      const record = fromJson(MatchRecordSchema, vector.record, { ignoreUnknownFields: true });
      const result = checkRecordDeals(record);
      if (vector.expect === null) {
        assert.equal(result, null);
        return;
      }
      assert.notEqual(result, null);
      assert.deepEqual(
        { proven: result?.proven, complete: result?.complete, badRound: result?.badRound },
        vector.expect,
      );
    });
  }
});
