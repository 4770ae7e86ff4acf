// The card encoding of types.proto: card = suit * 8 + rank, 0 to 31; text codes such as "10H".

import { Rank, Suit } from "./gen/baloot/v1/types_pb.js";

/** The suit letters in encoded order: spades, hearts, diamonds, clubs. */
export const SUIT_LETTERS = ["S", "H", "D", "C"] as const;
/** The rank names in encoded order (the sequence order of projects). */
export const RANK_NAMES = ["7", "8", "9", "10", "J", "Q", "K", "A"] as const;
/** The suit symbols in encoded order. */
export const SUIT_SYMBOLS = ["♠", "♥", "♦", "♣"] as const;

/** The encoded suit index of a card, 0 (spades) to 3 (clubs). */
export function suitIndex(card: number): number {
  checkCard(card);
  return card >> 3;
}

/** The encoded rank index of a card, 0 (seven) to 7 (ace). */
export function rankIndex(card: number): number {
  checkCard(card);
  return card & 7;
}

/** The Suit enum value of a card (enum value = encoded index + 1). */
export function suitOf(card: number): Suit {
  return (suitIndex(card) + 1) as Suit;
}

/** The Rank enum value of a card (enum value = encoded index + 1). */
export function rankOf(card: number): Rank {
  return (rankIndex(card) + 1) as Rank;
}

/** The card of a suit and a rank, as enum values. */
export function cardOf(suit: Suit, rank: Rank): number {
  if (suit < Suit.SPADES || suit > Suit.CLUBS || rank < Rank.SEVEN || rank > Rank.ACE) {
    throw new RangeError(`no card of suit ${suit} and rank ${rank}`);
  }
  return (suit - 1) * 8 + (rank - 1);
}

/** The short code of a card: 0 -> "7S", 11 -> "10H", 31 -> "AC". */
export function cardCode(card: number): string {
  return `${RANK_NAMES[rankIndex(card)]}${SUIT_LETTERS[suitIndex(card)]}`;
}

/** The card of a short code ("10H", "as" and "A♠" are accepted). */
export function parseCard(code: string): number {
  const text = code.trim().toUpperCase();
  const rank = RANK_NAMES.indexOf(text.slice(0, -1) as (typeof RANK_NAMES)[number]);
  const last = text.slice(-1);
  let suit = SUIT_LETTERS.indexOf(last as (typeof SUIT_LETTERS)[number]);
  if (suit < 0) {
    suit = SUIT_SYMBOLS.indexOf(last as (typeof SUIT_SYMBOLS)[number]);
  }
  if (rank < 0 || suit < 0) {
    throw new RangeError(`not a card code: ${JSON.stringify(code)}`);
  }
  return suit * 8 + rank;
}

/** The team of a seat: seats 0 and 2 are team 0, seats 1 and 3 team 1. */
export function teamOf(seat: number): number {
  return seat % 2;
}

/** The seat that acts after a seat (counter-clockwise order). */
export function nextSeat(seat: number): number {
  return (seat + 1) % 4;
}

function checkCard(card: number): void {
  if (!Number.isInteger(card) || card < 0 || card > 31) {
    throw new RangeError(`not a card: ${card} (cards are 0 to 31)`);
  }
}
