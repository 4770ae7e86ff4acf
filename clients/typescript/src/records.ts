// Match records on the client side: built from the responses, written and read as binary
// protobuf or as proto3 JSON (the documented `.json` form of docs/records.md).

import {
  clone,
  create,
  fromBinary,
  fromJsonString,
  toBinary,
  toJsonString,
  type MessageInitShape,
} from "@bufbuild/protobuf";

import {
  MatchRecordSchema,
  RecordedActionSchema,
  RecordedRoundSchema,
  type MatchRecord as MatchRecordMessage,
  type RecordedAction,
  type RecordedRound,
} from "./gen/baloot/v1/records_pb.js";
import { RuleSetSchema } from "./gen/baloot/v1/rules_pb.js";
import {
  ActionSchema,
  DealCommitmentSchema,
  DealKeySchema,
  EventKind,
  RoundScoreSchema,
  type Action,
  type DealCommitment,
  type Event,
  type RoundReveal,
  type View,
} from "./gen/baloot/v1/types_pb.js";

export {
  MatchRecordSchema,
  RecordDivergenceSchema,
  RecordedActionSchema,
  RecordedRoundSchema,
  type MatchRecord as MatchRecordMessage,
  type RecordDivergence,
  type RecordedAction,
  type RecordedRound,
} from "./gen/baloot/v1/records_pb.js";

/** The record format this client writes. */
export const RECORD_FORMAT = 1;

/**
 * Builds the MatchRecord message of one match from its creation and its responses: each action
 * sent (with its seat) and, in table play, each close of a round's review by the host, the deck of each hand from its ROUND_REVEALED event (which only the host
 * credential receives, unless the rule flag reveal_hands_after_round is on), and each round's
 * score from its ROUND_SCORED event; with the commitment CreateMatch returned, the latest key a
 * reveal discloses (docs/fair-deals.md; check it with checkRecordDeals from the node entry).
 * When a seat's own credential ended a round, the host's GetView has its reveal (addReveal).
 */
export class RecordBuilder {
  readonly record: MatchRecordMessage;

  constructor(matchId: string, view: View, boardSet = "", dealCommitment?: DealCommitment) {
    this.record = create(MatchRecordSchema, {
      format: RECORD_FORMAT,
      matchId,
      startingScores: [...(view.matchScore?.points ?? [])],
      firstDealer: view.dealer,
      boardSet,
      ...(view.rules !== undefined && { rules: clone(RuleSetSchema, view.rules) }),
      ...(dealCommitment !== undefined && { dealCommitment: clone(DealCommitmentSchema, dealCommitment) }),
    });
  }

  /** Record an applied action of `seat` and the events its response carried. */
  add(seat: number, action: Action | MessageInitShape<typeof ActionSchema>, events: readonly Event[]): void {
    const applied = create(ActionSchema, action as MessageInitShape<typeof ActionSchema>);
    const entry = create(RecordedActionSchema, { seat, action: applied });
    if (applied.action.case === "deal") {
      // A preset deck, if one was given; the round keeps the deck, the action leaves it empty.
      this.record.rounds.push(create(RecordedRoundSchema, { deckOrder: [...applied.action.value.deckOrder] }));
      applied.action.value.deckOrder = [];
    }
    this.#append(entry, events);
  }

  /** Record the host's close of a table-play round's review and the events its response carried. */
  addCloseReview(events: readonly Event[]): void {
    this.#append(create(RecordedActionSchema, { closeReview: true }), events);
  }

  /**
   * Record the reveal of the round that just ended when its response had none: the host
   * credential's GetViewResponse.roundReveal after a seat's own action ended it.
   */
  addReveal(reveal: RoundReveal): void {
    this.#takeReveal(this.#current(), reveal);
  }

  #current(): RecordedRound {
    const current = this.record.rounds.at(-1);
    if (current === undefined) {
      throw new Error("a record starts with a deal");
    }
    return current;
  }

  #append(entry: RecordedAction, events: readonly Event[]): void {
    const current = this.#current();
    current.actions.push(entry);
    for (const event of events) {
      if (event.kind === EventKind.ROUND_REVEALED && event.detail.case === "reveal") {
        this.#takeReveal(current, event.detail.value);
      } else if (event.kind === EventKind.ROUND_SCORED && event.detail.case === "roundScore") {
        current.score = clone(RoundScoreSchema, event.detail.value);
      }
    }
  }

  #takeReveal(current: RecordedRound, reveal: RoundReveal): void {
    current.deckOrder = [...reveal.deckOrder];
    const key = reveal.dealKey;
    if (key !== undefined && key.round > (this.record.dealKey?.round ?? 0)) {
      this.record.dealKey = clone(DealKeySchema, key); // it opens every earlier round too
    }
  }
}

/**
 * Whether a response's events end a round (scored, or cancelled for a redeal). When a seat's own
 * credential ended it, its response has no ROUND_REVEALED event (unless the rule flag
 * reveal_hands_after_round is on, and then without a board-set match's deal key): the host
 * credential's GetView has the whole reveal (roundReveal) until the next deal.
 */
export function endsRound(events: readonly Event[]): boolean {
  return events.some((event) => event.kind === EventKind.ROUND_SCORED || event.kind === EventKind.REDEAL);
}

/** The proto3 JSON form of a record (field names in lowerCamelCase, enums by name). */
export function recordToJson(record: MatchRecordMessage): string {
  return toJsonString(MatchRecordSchema, record, { prettySpaces: 2 }) + "\n";
}

/** A record from its proto3 JSON form (unknown fields are refused). */
export function recordFromJson(text: string): MatchRecordMessage {
  return fromJsonString(MatchRecordSchema, text);
}

/** The binary protobuf form of a record. */
export function recordToBinary(record: MatchRecordMessage): Uint8Array {
  return toBinary(MatchRecordSchema, record);
}

/** A record from its binary protobuf form. */
export function recordFromBinary(data: Uint8Array): MatchRecordMessage {
  return fromBinary(MatchRecordSchema, data);
}
