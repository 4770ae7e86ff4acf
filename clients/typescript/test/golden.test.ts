// The whole-round vectors of tests/golden/rounds.json, replayed through a real server: each
// action gives the events the rules core listed, and the round the score it listed.

import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { after, before, describe, it } from "node:test";

import { fromJson, type JsonValue } from "@bufbuild/protobuf";

import { ActionSchema, EventKind, Preset, type EngineClient, type Event } from "../src/index.js";
import { connectGrpc } from "../src/node.js";
import { REPO_ROOT, startServer, type RunningServer } from "./server.js";

interface ListedEvent {
  kind: string;
  seat?: number;
}

interface Vector {
  name: string;
  preset: keyof typeof Preset;
  dealer: number;
  deck: number[];
  deal_events: ListedEvent[];
  actions: { seat: number; action: JsonValue; events: ListedEvent[] }[];
  final_points: number[];
}

const VECTORS = (
  JSON.parse(readFileSync(join(REPO_ROOT, "tests", "golden", "rounds.json"), "utf8")) as { rounds: Vector[] }
).rounds;

/** The listed form of the events: kind and seat, without the host's ROUND_REVEALED (no rule's event). */
function listed(events: Event[]): ListedEvent[] {
  return events
    .filter((event) => event.kind !== EventKind.ROUND_REVEALED)
    .map((event) => ({
      kind: `EVENT_KIND_${EventKind[event.kind]}`,
      ...(event.seat === undefined ? {} : { seat: event.seat }),
    }));
}

describe("golden whole-round vectors", () => {
  let server: RunningServer;
  let client: EngineClient;

  before(async () => {
    server = await startServer({ allowPresetDeck: true });
    client = connectGrpc(server.target);
  });
  after(async () => {
    await server?.stop();
  });

  it("has vectors of every preset", () => {
    assert.deepEqual(new Set(VECTORS.map((vector) => vector.preset)), new Set(["SEEDS", "KAMMELNA", "FEDERATION"]));
  });

  for (const vector of VECTORS) {
    it(`replays ${vector.name} to its events and score`, async () => {
      const match = await client.createMatch({ rules: { preset: Preset[vector.preset] }, firstDealer: vector.dealer });
      assert.deepEqual(listed(await match.deal(vector.dealer, { deck: vector.deck })), vector.deal_events);
      let points: number[] | undefined;
      for (const [index, step] of vector.actions.entries()) {
        const events = await match.act(step.seat, fromJson(ActionSchema, step.action));
        assert.deepEqual(listed(events), step.events, `${vector.name}, action ${index}`);
        const scored = events.find((event) => event.kind === EventKind.ROUND_SCORED);
        if (scored?.detail.case === "roundScore") {
          points = scored.detail.value.teams.map((team) => team.finalPoints);
        }
      }
      assert.deepEqual(points, vector.final_points);
    });
  }
});
