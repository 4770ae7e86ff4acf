// `npm run demo`: play complete matches against a running server and print the score sheet.
//
//   npm run demo -- [--target localhost:50051] [--grpc-web URL] [--matches 1]
//                   [--preset seeds|kammelna|federation] [--seed N] [--bots random|basic|strong]
//
// Every seat takes a random action from the legal actions its view lists (declarations and
// Sawa claims aside), so the rules, the tokens and the views are exercised end to end; with
// --bots, every seat plays the action the engine's bot of that level suggests. With
// --grpc-web the calls go through a gRPC-Web proxy (e.g. http://localhost:8080) instead.

import { parseArgs } from "node:util";

import { EngineError } from "./errors.js";
import { BotLevel } from "./gen/baloot/v1/engine_service_pb.js";
import { Preset } from "./gen/baloot/v1/rules_pb.js";
import { connectGrpc } from "./node.js";
import { playMatch, scoreLine, seededRandom } from "./random-play.js";
import { connectGrpcWeb } from "./web.js";

const USAGE =
  "usage: npm run demo -- [--target host:port] [--grpc-web URL] [--matches N] [--preset seeds|kammelna|federation] [--seed N]" +
  " [--bots random|basic|strong]";

const BOT_LEVELS: Record<string, BotLevel> = {
  random: BotLevel.RANDOM,
  basic: BotLevel.BASIC,
  strong: BotLevel.STRONG,
};

export async function main(argv: string[]): Promise<number> {
  let args;
  try {
    args = parseArgs({
      args: argv,
      options: {
        target: { type: "string", default: "localhost:50051" },
        "grpc-web": { type: "string" },
        matches: { type: "string", default: "1" },
        preset: { type: "string", default: "seeds" },
        seed: { type: "string" },
        bots: { type: "string" },
        help: { type: "boolean", short: "h" },
      },
    }).values;
  } catch (error) {
    console.error(`${error instanceof Error ? error.message : String(error)}\n${USAGE}`);
    return 2;
  }
  if (args.help === true) {
    console.log(USAGE);
    return 0;
  }
  const matches = Number(args.matches);
  const presets: Record<string, Preset> = {
    seeds: Preset.SEEDS,
    kammelna: Preset.KAMMELNA,
    federation: Preset.FEDERATION,
  };
  const preset = presets[args.preset as string];
  const seed = args.seed === undefined ? Math.floor(Math.random() * 2 ** 32) : Number(args.seed);
  const bots = args.bots === undefined ? undefined : BOT_LEVELS[args.bots];
  if (
    !Number.isInteger(matches) ||
    matches < 1 ||
    preset === undefined ||
    !Number.isInteger(seed) ||
    (args.bots !== undefined && bots === undefined)
  ) {
    console.error(USAGE);
    return 2;
  }
  const webUrl = args["grpc-web"];
  const where = webUrl ?? args.target;
  const client = webUrl === undefined ? connectGrpc(args.target) : connectGrpcWeb(webUrl);
  const random = seededRandom(seed);
  try {
    for (let number = 1; number <= matches; number++) {
      const match = await client.createMatch({ rules: { preset } });
      const players = bots === undefined ? `random players, seed ${seed}` : `${args.bots} bots`;
      console.log(`match ${number} (${match.matchId}), ${args.preset} rules, ${players}`);
      const lines: string[] = [];
      const final = await playMatch(match, random, {
        ...(bots !== undefined && { choose: (m, seat) => m.suggest(seat, bots) }),
        onRound: (score, view) => lines.push(scoreLine(score, view)),
        onRedeal: (view) => lines.push(`  round ${String(view.roundNumber).padStart(2)}: all passed, redeal`),
      });
      console.log(lines.join("\n"));
      const [total0, total1] = final.matchScore?.points ?? [];
      const rounds = final.matchScore?.roundsScored ?? 0;
      console.log(
        `  winner: team ${final.matchScore?.winnerTeam ?? "?"} (${total0} - ${total1}), ${rounds} rounds,` +
          ` ${match.version} actions, last token ${match.state.length} bytes\n`,
      );
    }
  } catch (error) {
    const engineError = EngineError.from(error);
    if (engineError.reason !== "") {
      console.error(`refused: ${engineError.message}`);
      return 1;
    }
    console.error(`cannot reach the server at ${where}: ${engineError.message}`);
    return 2;
  }
  return 0;
}

process.exitCode = await main(process.argv.slice(2));
