// Complete matches through the TypeScript client against the real server, over gRPC.

import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";

import {
  BidKind,
  BotLevel,
  ContractType,
  EventKind,
  Phase,
  Preset,
  Suit,
  matchHandleFromJson,
  matchHandleToJson,
  playMatch,
  scoreLine,
  seededRandom,
  type EngineClient,
  type RoundScore,
} from "../src/index.js";
import { connectGrpc } from "../src/node.js";
import { advanceUntil, step } from "./helpers.js";
import { startServer, type RunningServer } from "./server.js";

describe("matches over gRPC", () => {
  let server: RunningServer;
  let client: EngineClient;

  before(async () => {
    server = await startServer();
    client = connectGrpc(server.target);
  });
  after(async () => {
    await server?.stop();
  });

  for (const [name, preset, seed] of [
    ["SEEDS", Preset.SEEDS, 1],
    ["KAMMELNA", Preset.KAMMELNA, 2],
    ["FEDERATION", Preset.FEDERATION, 3],
  ] as const) {
    it(`plays a complete match with the ${name} preset`, async () => {
      const match = await client.createMatch({ rules: { preset }, firstDealer: 0 });
      assert.match(match.matchId, /^\S+$/);
      assert.equal(match.version, 0n);
      assert.equal(match.seatCredentials.length, 4);
      assert.equal(match.views.length, 4);
      assert.equal(match.latestView.phase, Phase.AWAITING_DEAL);
      assert.equal(match.latestView.dealer, 0);
      assert.equal(match.latestView.rules?.preset, preset);

      const rounds: RoundScore[] = [];
      const lines: string[] = [];
      let actions = 0n;
      const act = match.act.bind(match);
      const deal = match.deal.bind(match);
      match.act = (...args) => (actions++, act(...args));
      match.deal = (...args) => (actions++, deal(...args));
      const final = await playMatch(match, seededRandom(seed), {
        onRound: (score, view) => {
          rounds.push(score);
          lines.push(scoreLine(score, view));
        },
      });

      assert.equal(final.phase, Phase.MATCH_OVER);
      assert.equal(match.version, actions, "each accepted action adds one to the version");
      const score = final.matchScore!;
      assert.ok(score.winnerTeam === 0 || score.winnerTeam === 1);
      assert.equal(score.roundsPlayed, rounds.length);
      const sums = [0, 1].map((team) => rounds.reduce((sum, round) => sum + round.teams[team]!.finalPoints, 0));
      assert.deepEqual(score.points, sums, "the match score is the sum of the rounds");
      assert.ok(score.points[score.winnerTeam!]! >= score.target || rounds.at(-1)!.contract!.gahwa);
      assert.equal(lines.length, rounds.length);

      // GetScore reads the same final score from the last token.
      const read = await match.score();
      assert.equal(read.stateVersion, match.version);
      assert.deepEqual(read.match?.points, score.points);
      assert.equal(read.lastRound?.roundNumber, rounds.at(-1)!.roundNumber);
    });
  }

  it("plays a complete match with the engine's BASIC bots (SuggestAction)", async () => {
    const match = await client.createMatch({ rules: { preset: Preset.KAMMELNA }, firstDealer: 2 });
    let suggestions = 0;
    const final = await playMatch(match, seededRandom(3), {
      choose: async (m, seat, view) => {
        const action = await m.suggest(seat, BotLevel.BASIC, { seed: 7n });
        assert.ok(
          view.legalActions.some((legal) => legal.action.case === action.action.case),
          "the suggestion is one of the seat's legal actions",
        );
        suggestions++;
        return action;
      },
    });
    assert.equal(final.phase, Phase.MATCH_OVER);
    assert.ok(final.matchScore?.winnerTeam === 0 || final.matchScore?.winnerTeam === 1);
    assert.ok(suggestions > 0 && BigInt(suggestions) < match.version);

    // A seed makes a suggestion repeatable; a STRONG bot answers too.
    const again = await client.createMatch({ firstDealer: 0 });
    await again.deal(0);
    const seat = again.latestView.turn!;
    const first = await again.suggest(seat, BotLevel.STRONG, { seed: 1n });
    assert.deepEqual(await again.suggest(seat, BotLevel.STRONG, { seed: 1n }), first);
    assert.equal(first.action.case, "bid");
  });

  it("deals, bids and shows each seat only its own cards", async () => {
    const match = await client.createMatch({ firstDealer: 3 });
    const events = await match.deal(3);
    assert.equal(match.version, 1n);
    assert.ok(events.some((event) => event.kind === EventKind.CARDS_DEALT));
    const view = match.latestView;
    assert.equal(view.phase, Phase.BIDDING);
    assert.equal(view.turn, 0, "the seat after the dealer bids first");
    for (let seat = 0; seat < 4; seat++) {
      assert.equal(match.viewOf(seat)!.hand.length, 5);
    }
    const revealed = view.revealedCard;
    assert.ok(revealed !== undefined && revealed >= 0 && revealed < 32);

    // A seat credential acts for its own seat and gets back only its own view.
    const seat0 = match.forSeat(0);
    assert.equal(seat0.credential, match.seatCredentials[0]);
    const bidEvents = await seat0.bid(0, { kind: BidKind.PASS });
    assert.equal(seat0.views.length, 1);
    assert.equal(seat0.views[0]!.seat, 0);
    assert.ok(bidEvents.some((event) => event.kind === EventKind.BID_PLACED && event.seat === 0));

    // GetView with a seat credential: that seat's hand; the public view has no hand.
    const own = await seat0.view(0);
    assert.equal(own.hand.length, 5);
    const publicView = await seat0.view();
    assert.equal(publicView.seat, undefined);
    assert.deepEqual(publicView.hand, []);
    assert.deepEqual(publicView.handSizes, [5, 5, 5, 5]);

    // ListLegalActions agrees with the legal actions of the view.
    const legal = await seat0.legalActions(1, match.credential);
    assert.ok(legal.length > 0);
    assert.deepEqual(legal, (await seat0.view(1, match.credential)).legalActions);
    assert.ok(legal.some((action) => action.action.case === "bid" && action.action.value.kind === BidKind.HOKM));
  });

  it("goes on from a stored record, as a backend would", async () => {
    const random = seededRandom(7);
    const first = await client.createMatch();
    await advanceUntil(first, random, (m) => m.latestView.phase === Phase.PLAYING);
    const stored = JSON.stringify(matchHandleToJson(first.handle()));

    const resumed = client.resume(matchHandleFromJson(JSON.parse(stored)));
    assert.equal(resumed.version, first.version);
    assert.deepEqual(resumed.views, []);
    const views = await resumed.refresh();
    assert.deepEqual(
      views.map((view) => view.seat),
      [0, 1, 2, 3],
    );
    assert.equal(resumed.latestView.phase, Phase.PLAYING);
    const before = resumed.version;
    await step(resumed, random);
    assert.equal(resumed.version, before + 1n);
  });

  it("scores a round without a match", async () => {
    const response = await client.scoreRound({
      contractType: ContractType.HOKM,
      trump: Suit.SPADES,
      buyer: { case: "buyerTeam", value: 0 },
      cardAbnat: [100, 62],
      tricksWon: [5, 3],
      matchScores: [0, 0],
    });
    const score = response.score!;
    assert.equal(score.made, true);
    assert.equal(score.winningTeam, 0);
    assert.deepEqual(
      score.teams.map((team) => team.finalPoints),
      [10, 6],
    );
    assert.deepEqual(response.match?.points, [10, 6]);
  });
});
