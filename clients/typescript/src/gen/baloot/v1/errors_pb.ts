// The error model of the Baloot engine.
//
// A refused request ends with a canonical gRPC status code and, in the status details, one
// `google.rpc.ErrorInfo` whose `domain` is "baloot.v1" and whose `reason` is one of the names
// below WITHOUT the "ERROR_REASON_" prefix (for example "MUST_FOLLOW_SUIT"). Reasons are stable:
// a client may branch on them. The status message is a readable English sentence for people, not
// for code. `ErrorInfo.metadata` may add facts as strings. Each key has one format, whatever
// the reason that carries it:
//   "seat"          the seat the refusal is about, "0" to "3";
//   "turn"          the seat expected to act instead, "0" to "3";
//   "card"          the card refused (or found twice), as its code: rank then suit letter, such
//                   as "7H", "10S", "AD"; every refusal of a card names it;
//   "value"         a number of the request outside its range, in decimal (e.g. a card code of
//                   40 with INVALID_CARD);
//   "allowed"       the legal alternatives, one comma-separated list of codes without spaces: card
//                   codes ("10S,JS"), or action names with their suit or mode after a colon
//                   ("pass,hokm:S,sun", "double:open,double:closed"), or project kinds ("sira");
//   "declared"      the project kinds declared, a comma-separated list ("sira,fifty");
//   "held"          the project kinds the hand holds, the same list form ("" for none);
//   "project"       one project kind ("hundred");
//   "team"          a team, "0" or "1";
//   "trick"         a trick's number in the round, "1" to "8";
//   "field"         the request field at fault, by its proto name ("deck_order", "tricks",
//                   "tricks[3].cards", "card_abnat");
//   "limit"         the most entries that field accepts, in decimal (with "field" when a repeated
//                   field is longer than any real request: the reason is then the one a wrong
//                   length of that field gets, such as INVALID_DECK or INVALID_ROUND_FACTS);
//   "state_version" the version of the state sent, in decimal (STALE_STATE, MATCH_UNKNOWN);
//   "latest_version" the version of the latest state of the match the ledger holds, in decimal,
//                   "" when it is not known (STALE_STATE from a server with a match ledger);
//   "round_index"   a round of a match record, from 0, in decimal (RECORD_DIVERGES);
//   "action_index"  an action of that round, from 0, in decimal (RECORD_DIVERGES);
//   "divergence"    the reason the record diverges there, one of the reasons above
//                   (RECORD_DIVERGES).
// A client must ignore keys it does not know: a newer server may add some.
//
// Every repeated field of a request has a length limit checked before anything else is read
// (32 cards leave room up to 64 in `deck_order`, 8 tricks up to 16, …), and a state token is
// refused with STATE_INVALID when any field of the state it holds is out of range or contradicts
// another, so the cost of a refusal does not grow with the size of what was sent.
//
// The status code tells what kind of mistake it was:
//   INVALID_ARGUMENT    the request is malformed or impossible (a card index of 40, a deck with a
//                       card twice, round facts that cannot happen, a token that does not open);
//   FAILED_PRECONDITION the request is well formed but the rules forbid it now (not your turn,
//                       must follow suit…);
//   PERMISSION_DENIED   the credential does not allow it, or a preset deck was sent to a server
//                       that does not accept one;
//   FAILED_PRECONDITION also when `expected_version` does not match the state's version
//                       (reason STALE_STATE), so a backend can compare-and-set its stored token,
//                       and, on a server with the match ledger, when the token sent is not the
//                       latest of its match (STALE_STATE) or the ledger has no record of the match
//                       (MATCH_UNKNOWN);
//   UNAVAILABLE         the server could not reach its match ledger (LEDGER_UNAVAILABLE): no
//                       token was accepted unchecked; retry the same request;
//   UNIMPLEMENTED       the request uses a feature this server version does not provide;
//   RESOURCE_EXHAUSTED  the server process is at its bound of concurrent calls (reason
//                       OVERLOADED), a lane of heavy work is full (LANE_FULL), or the caller's
//                       client is over a quota (QUOTA_EXCEEDED): nothing was done, so the same
//                       request may be sent again after the delay of the status's
//                       google.rpc.RetryInfo (also ErrorInfo.metadata["retry_after_ms"]),
//                       preferably to another replica;
//   UNAUTHENTICATED     heavy work (a STRONG or EXPERT bot, SolveDeal, AnalyzeRecord,
//                       FairPlayReport) asked for without an API key where the deployment
//                       requires one (API_KEY_REQUIRED), or with a key it did not issue
//                       (API_KEY_INVALID). The key travels in the `x-api-key` metadata (or
//                       `authorization: Bearer <key>`).
// A body that does not parse as the method's request message (truncated, corrupt, a string
// field that is not UTF-8) ends with INVALID_ARGUMENT and reason REQUEST_INVALID, on every
// method of the server, health and reflection included. No request ends with UNKNOWN or
// INTERNAL because of what it contains.

// @generated by protoc-gen-es v2.13.0 with parameter "target=ts,import_extension=js"
// @generated from file baloot/v1/errors.proto (package baloot.v1, syntax proto3)
/* eslint-disable */

import type { GenEnum, GenFile } from "@bufbuild/protobuf/codegenv2";
import { enumDesc, fileDesc } from "@bufbuild/protobuf/codegenv2";

/**
 * Describes the file baloot/v1/errors.proto.
 */
export const file_baloot_v1_errors: GenFile = /*@__PURE__*/
  fileDesc("ChZiYWxvb3QvdjEvZXJyb3JzLnByb3RvEgliYWxvb3QudjEq9Q4KC0Vycm9yUmVhc29uEhwKGEVSUk9SX1JFQVNPTl9VTlNQRUNJRklFRBAAEhwKGEVSUk9SX1JFQVNPTl9XUk9OR19QSEFTRRABEh4KGkVSUk9SX1JFQVNPTl9OT1RfWU9VUl9UVVJOEAISIAocRVJST1JfUkVBU09OX0JJRF9OT1RfQUxMT1dFRBADEiMKH0VSUk9SX1JFQVNPTl9BU0hLQUxfTk9UX0FMTE9XRUQQBBIhCh1FUlJPUl9SRUFTT05fU1VJVF9OT1RfQUxMT1dFRBAFEiMKH0VSUk9SX1JFQVNPTl9ET1VCTEVfTk9UX0FMTE9XRUQQBhIeChpFUlJPUl9SRUFTT05fTU9ERV9SRVFVSVJFRBAHEiMKH0VSUk9SX1JFQVNPTl9LQVdFU0hfTk9UX0FMTE9XRUQQCBIhCh1FUlJPUl9SRUFTT05fQ0FSRF9OT1RfSU5fSEFORBAJEiEKHUVSUk9SX1JFQVNPTl9NVVNUX0ZPTExPV19TVUlUEAoSGwoXRVJST1JfUkVBU09OX01VU1RfVFJVTVAQCxIfChtFUlJPUl9SRUFTT05fTVVTVF9PVkVSVFJVTVAQDBIiCh5FUlJPUl9SRUFTT05fVFJVTVBfTEVBRF9MT0NLRUQQDRIhCh1FUlJPUl9SRUFTT05fQUtLQV9OT1RfQUxMT1dFRBAOEiEKHUVSUk9SX1JFQVNPTl9QUk9KRUNUX05PVF9IRUxEEA8SIwofRVJST1JfUkVBU09OX0RFQ0xBUkFUSU9OX0NMT1NFRBAQEh0KGUVSUk9SX1JFQVNPTl9TQVdBX0lOVkFMSUQQERIhCh1FUlJPUl9SRUFTT05fU0FXQV9OT1RfQUxMT1dFRBASEhsKF0VSUk9SX1JFQVNPTl9NQVRDSF9PVkVSEBMSHQoZRVJST1JfUkVBU09OX0lOVkFMSURfQ0FSRBAUEh0KGUVSUk9SX1JFQVNPTl9JTlZBTElEX0RFQ0sQFRIdChlFUlJPUl9SRUFTT05fSU5WQUxJRF9TRUFUEBYSHgoaRVJST1JfUkVBU09OX0lOVkFMSURfUlVMRVMQFxIfChtFUlJPUl9SRUFTT05fSU5WQUxJRF9BQ1RJT04QGBIkCiBFUlJPUl9SRUFTT05fSU5WQUxJRF9ST1VORF9GQUNUUxAZEh4KGkVSUk9SX1JFQVNPTl9TVEFURV9JTlZBTElEEBoSHAoYRVJST1JfUkVBU09OX1NUQUxFX1NUQVRFEBsSIwofRVJST1JfUkVBU09OX0NSRURFTlRJQUxfSU5WQUxJRBAcEiUKIUVSUk9SX1JFQVNPTl9QUkVTRVRfREVDS19ESVNBQkxFRBAdEiAKHEVSUk9SX1JFQVNPTl9SRVFVRVNUX0lOVkFMSUQQHhIbChdFUlJPUl9SRUFTT05fT1ZFUkxPQURFRBAfEiMKH0VSUk9SX1JFQVNPTl9MRURHRVJfVU5BVkFJTEFCTEUQIBIeChpFUlJPUl9SRUFTT05fTUFUQ0hfVU5LTk9XThAhEiEKHUVSUk9SX1JFQVNPTl9RQVlEX05PVF9BTExPV0VEECgSHQoZRVJST1JfUkVBU09OX1FBWURfSU5WQUxJRBApEiAKHEVSUk9SX1JFQVNPTl9SRVZJRVdfTk9UX09QRU4QKhIbChdFUlJPUl9SRUFTT05fUUFZRF9XUk9ORxArEiEKHUVSUk9SX1JFQVNPTl9SRUNPUkRfVE9PX0xBUkdFEDwSIAocRVJST1JfUkVBU09OX1JFQ09SRF9NSVNNQVRDSBA9EiAKHEVSUk9SX1JFQVNPTl9SRUNPUkRfRElWRVJHRVMQPhIoCiRFUlJPUl9SRUFTT05fQU5BTFlTSVNfQlVER0VUX0lOVkFMSUQQPxIiCh5FUlJPUl9SRUFTT05fQU5BTFlTSVNfREVBRExJTkUQQBIgChxFUlJPUl9SRUFTT05fU09MVkVSX0RFQURMSU5FEEYSJQohRVJST1JfUkVBU09OX1JPVU5EX05PVF9QTEFZRURfT1VUEEcSJgoiRVJST1JfUkVBU09OX1JFQ09SRF9GT1JNQVRfVU5LTk9XThBIEioKJkVSUk9SX1JFQVNPTl9SRUNPUkRfUlVMRVNfSU5DT05TSVNURU5UEEkSIwofRVJST1JfUkVBU09OX0RFQUxfTk9UX0NPTU1JVFRFRBBKEh8KG0VSUk9SX1JFQVNPTl9XT1JLRVJfU1RPUFBFRBBLEhoKFkVSUk9SX1JFQVNPTl9MQU5FX0ZVTEwQTBIfChtFUlJPUl9SRUFTT05fUVVPVEFfRVhDRUVERUQQTRIhCh1FUlJPUl9SRUFTT05fQVBJX0tFWV9SRVFVSVJFRBBOEiAKHEVSUk9SX1JFQVNPTl9BUElfS0VZX0lOVkFMSUQQTxIeChpFUlJPUl9SRUFTT05fTEFORV9ERUFETElORRBQEhwKGEVSUk9SX1JFQVNPTl9MQU5FX0NMT1NFRBBREhkKFUVSUk9SX1JFQVNPTl9EUkFJTklORxBSQqYBChNvcmcuYmFsb290ZW5naW5lLnYxQgtFcnJvcnNQcm90b1ABWkhnaXRodWIuY29tL2JhbG9vdC1lbmdpbmUvYmFsb290LWVuZ2luZS9jbGllbnRzL2dvL2dlbi9iYWxvb3QvdjE7YmFsb290djGiAgNCTFSqAglCYWxvb3QuVjG6AgpCYWxvb3RfVjFfygIJQmFsb290XFYx6gIKQmFsb290OjpWMWIGcHJvdG8z");

/**
 * Every reason a request can be refused for, as carried in `google.rpc.ErrorInfo.reason`.
 *
 * @generated from enum baloot.v1.ErrorReason
 */
export enum ErrorReason {
  /**
   * Not a valid reason; never sent.
   *
   * @generated from enum value: ERROR_REASON_UNSPECIFIED = 0;
   */
  UNSPECIFIED = 0,

  /**
   * FAILED_PRECONDITION: the action does not belong to the match's current phase.
   *
   * @generated from enum value: ERROR_REASON_WRONG_PHASE = 1;
   */
  WRONG_PHASE = 1,

  /**
   * FAILED_PRECONDITION: another seat is expected to act.
   *
   * @generated from enum value: ERROR_REASON_NOT_YOUR_TURN = 2;
   */
  NOT_YOUR_TURN = 2,

  /**
   * FAILED_PRECONDITION: this bid is not allowed at this point of the bidding.
   *
   * @generated from enum value: ERROR_REASON_BID_NOT_ALLOWED = 3;
   */
  BID_NOT_ALLOWED = 3,

  /**
   * FAILED_PRECONDITION: Ashkal is not allowed for this seat, in this bidding round or on this
   * revealed card.
   *
   * @generated from enum value: ERROR_REASON_ASHKAL_NOT_ALLOWED = 4;
   */
  ASHKAL_NOT_ALLOWED = 4,

  /**
   * FAILED_PRECONDITION: the bid names a suit it may not name (a round-two Hokm in the revealed
   * card's suit, or a suit where none is expected).
   *
   * @generated from enum value: ERROR_REASON_SUIT_NOT_ALLOWED = 5;
   */
  SUIT_NOT_ALLOWED = 5,

  /**
   * FAILED_PRECONDITION: this doubling call is not allowed now or for this seat. (A Sun bought
   * outside the score condition of the Sun double has no doubling phase: a call then gets
   * WRONG_PHASE.)
   *
   * @generated from enum value: ERROR_REASON_DOUBLE_NOT_ALLOWED = 6;
   */
  DOUBLE_NOT_ALLOWED = 6,

  /**
   * FAILED_PRECONDITION: the call must name open or closed play.
   *
   * @generated from enum value: ERROR_REASON_MODE_REQUIRED = 7;
   */
  MODE_REQUIRED = 7,

  /**
   * FAILED_PRECONDITION: Kawesh is disabled, or the hand does not qualify for it.
   *
   * @generated from enum value: ERROR_REASON_KAWESH_NOT_ALLOWED = 8;
   */
  KAWESH_NOT_ALLOWED = 8,

  /**
   * FAILED_PRECONDITION: the seat does not hold the card it played.
   *
   * @generated from enum value: ERROR_REASON_CARD_NOT_IN_HAND = 9;
   */
  CARD_NOT_IN_HAND = 9,

  /**
   * FAILED_PRECONDITION: the seat holds a card of the led suit and must play one.
   *
   * @generated from enum value: ERROR_REASON_MUST_FOLLOW_SUIT = 10;
   */
  MUST_FOLLOW_SUIT = 10,

  /**
   * FAILED_PRECONDITION: the seat is void in the led suit and must play a trump.
   *
   * @generated from enum value: ERROR_REASON_MUST_TRUMP = 11;
   */
  MUST_TRUMP = 11,

  /**
   * FAILED_PRECONDITION: the seat must play a trump higher than the highest one in the trick.
   *
   * @generated from enum value: ERROR_REASON_MUST_OVERTRUMP = 12;
   */
  MUST_OVERTRUMP = 12,

  /**
   * FAILED_PRECONDITION: in a closed game a trump may not be led while holding another suit.
   *
   * @generated from enum value: ERROR_REASON_TRUMP_LEAD_LOCKED = 13;
   */
  TRUMP_LEAD_LOCKED = 13,

  /**
   * FAILED_PRECONDITION: the card cannot be called an Akka (it is not led, or not the highest
   * unplayed card of its suit), or the rules do not use the call (akka_requires_declaration off).
   *
   * @generated from enum value: ERROR_REASON_AKKA_NOT_ALLOWED = 14;
   */
  AKKA_NOT_ALLOWED = 14,

  /**
   * FAILED_PRECONDITION: the seat declared a project kind that its hand does not hold.
   *
   * @generated from enum value: ERROR_REASON_PROJECT_NOT_HELD = 15;
   */
  PROJECT_NOT_HELD = 15,

  /**
   * FAILED_PRECONDITION: projects can no longer be declared by this seat (after its first card
   * or after the first trick).
   *
   * @generated from enum value: ERROR_REASON_DECLARATION_CLOSED = 16;
   */
  DECLARATION_CLOSED = 16,

  /**
   * FAILED_PRECONDITION: the Sawa claim is false: the seat's team cannot take every remaining
   * trick.
   *
   * @generated from enum value: ERROR_REASON_SAWA_INVALID = 17;
   */
  SAWA_INVALID = 17,

  /**
   * FAILED_PRECONDITION: the rule set does not allow Sawa claims.
   *
   * @generated from enum value: ERROR_REASON_SAWA_NOT_ALLOWED = 18;
   */
  SAWA_NOT_ALLOWED = 18,

  /**
   * FAILED_PRECONDITION: the match is over; no action is accepted.
   *
   * @generated from enum value: ERROR_REASON_MATCH_OVER = 19;
   */
  MATCH_OVER = 19,

  /**
   * INVALID_ARGUMENT: a card code is outside 0 to 31.
   *
   * @generated from enum value: ERROR_REASON_INVALID_CARD = 20;
   */
  INVALID_CARD = 20,

  /**
   * INVALID_ARGUMENT: a preset deck is not 32 distinct cards.
   *
   * @generated from enum value: ERROR_REASON_INVALID_DECK = 21;
   */
  INVALID_DECK = 21,

  /**
   * INVALID_ARGUMENT: a seat is outside 0 to 3 (or a team outside 0 to 1).
   *
   * @generated from enum value: ERROR_REASON_INVALID_SEAT = 22;
   */
  INVALID_SEAT = 22,

  /**
   * INVALID_ARGUMENT: a rule set has an unknown, unsupported or contradictory value.
   *
   * @generated from enum value: ERROR_REASON_INVALID_RULES = 23;
   */
  INVALID_RULES = 23,

  /**
   * INVALID_ARGUMENT: an action is incomplete or inconsistent (no kind, an unknown enum value).
   *
   * @generated from enum value: ERROR_REASON_INVALID_ACTION = 24;
   */
  INVALID_ACTION = 24,

  /**
   * INVALID_ARGUMENT: the facts given to ScoreRound cannot come from a real round (abnat that do
   * not sum to 130 or 162, a project that does not exist, a multiplier out of range…).
   *
   * @generated from enum value: ERROR_REASON_INVALID_ROUND_FACTS = 25;
   */
  INVALID_ROUND_FACTS = 25,

  /**
   * INVALID_ARGUMENT: the state token does not open (damaged, sealed by an unknown key, an
   * unsupported format version) or holds an impossible state.
   *
   * @generated from enum value: ERROR_REASON_STATE_INVALID = 26;
   */
  STATE_INVALID = 26,

  /**
   * FAILED_PRECONDITION: `expected_version` does not match the version of the state sent; or, on a
   * server with the match ledger (see docs/security.md), the token sent is not the latest of its
   * match (another action was accepted from it, or from a later token). Reload the latest token
   * and retry. `ErrorInfo.metadata` has "state_version" (of the token sent) and, from the ledger,
   * "latest_version".
   *
   * @generated from enum value: ERROR_REASON_STALE_STATE = 27;
   */
  STALE_STATE = 27,

  /**
   * PERMISSION_DENIED: the credential is not the host's or the acting seat's credential for this
   * match, or does not entitle the caller to the view it asks for.
   *
   * @generated from enum value: ERROR_REASON_CREDENTIAL_INVALID = 28;
   */
  CREDENTIAL_INVALID = 28,

  /**
   * PERMISSION_DENIED: a preset deck was sent but the server does not accept preset decks.
   *
   * @generated from enum value: ERROR_REASON_PRESET_DECK_DISABLED = 29;
   */
  PRESET_DECK_DISABLED = 29,

  /**
   * INVALID_ARGUMENT: the request is malformed in a way no other reason covers (a body that does
   * not parse as the request message, a missing field, a repeated field of the wrong length).
   *
   * @generated from enum value: ERROR_REASON_REQUEST_INVALID = 30;
   */
  REQUEST_INVALID = 30,

  /**
   * RESOURCE_EXHAUSTED: the server process is already running as many calls as it accepts at
   * once; the call was refused before anything was done. Retry after a short back-off,
   * preferably on another replica.
   *
   * @generated from enum value: ERROR_REASON_OVERLOADED = 31;
   */
  OVERLOADED = 31,

  /**
   * UNAVAILABLE: the server keeps a match ledger and could not reach it (or it did not answer in
   * time). No response was given for an unchecked token. An action may still have been recorded
   * by a ledger that answered too late: send the same request again (on this server or another),
   * which is then answered as that action; another action from the same token would be stale.
   *
   * @generated from enum value: ERROR_REASON_LEDGER_UNAVAILABLE = 32;
   */
  LEDGER_UNAVAILABLE = 32,

  /**
   * FAILED_PRECONDITION: the server keeps a match ledger and it has no record of this match: the
   * record expired (no action for longer than the ledger's time to live), the match was created
   * before the ledger was turned on, or on a server with another ledger. The match cannot go on
   * from its tokens on this server.
   *
   * @generated from enum value: ERROR_REASON_MATCH_UNKNOWN = 33;
   */
  MATCH_UNKNOWN = 33,

  /**
   * FAILED_PRECONDITION: a Qayd call is not possible: the rule set is not table play
   * (illegal_moves_allowed), or the caller accuses his own team.
   *
   * @generated from enum value: ERROR_REASON_QAYD_NOT_ALLOWED = 40;
   */
  QAYD_NOT_ALLOWED = 40,

  /**
   * FAILED_PRECONDITION: a Qayd call points at nothing: the accused did not play that card in
   * that trick (or the trick is not played yet), or a call without a card is not a false Sawa
   * call on the seat that claimed, in the trick of the claim.
   *
   * @generated from enum value: ERROR_REASON_QAYD_INVALID = 41;
   */
  QAYD_INVALID = 41,

  /**
   * FAILED_PRECONDITION: the review of a round was to be closed, but no round is under review.
   *
   * @generated from enum value: ERROR_REASON_REVIEW_NOT_OPEN = 42;
   */
  REVIEW_NOT_OPEN = 42,

  /**
   * FAILED_PRECONDITION: a wrong Qayd call (the accused broke no rule with that card, or not the
   * rule named; a Sawa claim that holds) under qayd_false_call = NO_PENALTY: the call is refused,
   * nothing is judged or published, and play goes on.
   *
   * @generated from enum value: ERROR_REASON_QAYD_WRONG = 43;
   */
  QAYD_WRONG = 43,

  /**
   * INVALID_ARGUMENT: a match record is larger than VerifyRecord and ReplayRecord accept (rounds,
   * actions per round or bytes).
   *
   * @generated from enum value: ERROR_REASON_RECORD_TOO_LARGE = 60;
   */
  RECORD_TOO_LARGE = 60,

  /**
   * A record divergence (VerifyRecord): a round ends otherwise than the record says (its
   * recorded score is not the engine's, a round stops before its end, or a round holds a second
   * deal).
   *
   * @generated from enum value: ERROR_REASON_RECORD_MISMATCH = 61;
   */
  RECORD_MISMATCH = 61,

  /**
   * FAILED_PRECONDITION: ReplayRecord was asked for a step after the record's first divergence, or
   * AnalyzeRecord was given a record that does not verify.
   *
   * @generated from enum value: ERROR_REASON_RECORD_DIVERGES = 62;
   */
  RECORD_DIVERGES = 62,

  /**
   * INVALID_ARGUMENT: an AnalyzeRecord budget is out of range (worlds above 200, a deadline above
   * 600000 ms, a seat outside 0 to 3 or a round outside the record).
   *
   * @generated from enum value: ERROR_REASON_ANALYSIS_BUDGET_INVALID = 63;
   */
  ANALYSIS_BUDGET_INVALID = 63,

  /**
   * DEADLINE_EXCEEDED: an analysis ran past its deadline (`deadline_ms` or the call's own); what
   * was streamed before stands.
   *
   * @generated from enum value: ERROR_REASON_ANALYSIS_DEADLINE = 64;
   */
  ANALYSIS_DEADLINE = 64,

  /**
   * DEADLINE_EXCEEDED: SolveDeal's search did not finish within the request's deadline_ms; no
   * partial answer is given. Ask again with a longer deadline, or from a later position.
   *
   * @generated from enum value: ERROR_REASON_SOLVER_DEADLINE = 70;
   */
  SOLVER_DEADLINE = 70,

  /**
   * FAILED_PRECONDITION: SolveDeal was asked for a finished round that did not reach its eighth
   * trick (a Sawa claim or a Qayd verdict ended it): the token does not hold the cards not played.
   *
   * @generated from enum value: ERROR_REASON_ROUND_NOT_PLAYED_OUT = 71;
   */
  ROUND_NOT_PLAYED_OUT = 71,

  /**
   * INVALID_ARGUMENT: a match record of a format this server does not read (`format` other than
   * 0 or 1).
   *
   * @generated from enum value: ERROR_REASON_RECORD_FORMAT_UNKNOWN = 72;
   */
  RECORD_FORMAT_UNKNOWN = 72,

  /**
   * INVALID_ARGUMENT: a match record's rules name a preset that contradicts its flags: every
   * flag is set, and the preset the engine writes for those flags (the nearest one) is another.
   *
   * @generated from enum value: ERROR_REASON_RECORD_RULES_INCONSISTENT = 73;
   */
  RECORD_RULES_INCONSISTENT = 73,

  /**
   * A record divergence (VerifyRecord): a hand's deck is not the one the match committed to
   * before play (MatchRecord.deal_commitment), or the disclosed key does not open the
   * commitment (docs/fair-deals.md); its round_index is the hand's (0 for the key).
   *
   * @generated from enum value: ERROR_REASON_DEAL_NOT_COMMITTED = 74;
   */
  DEAL_NOT_COMMITTED = 74,

  /**
   * UNAVAILABLE: a process of the server that was computing the answer (the analysis worker, or
   * the process of a bot's decision, a solve or a judged Sawa claim or Qayd call) stopped before
   * it answered, killed or out of memory. Nothing was done; the next call starts another: send
   * the same request again.
   *
   * @generated from enum value: ERROR_REASON_WORKER_STOPPED = 75;
   */
  WORKER_STOPPED = 75,

  /**
   * RESOURCE_EXHAUSTED: the lane of heavy work the call needs (metadata["lane"]: judge, bots,
   * solve or analysis) holds as many waiting jobs as it takes. Nothing was done; send the same
   * request again after the RetryInfo delay (metadata["retry_after_ms"]).
   *
   * @generated from enum value: ERROR_REASON_LANE_FULL = 76;
   */
  LANE_FULL = 76,

  /**
   * RESOURCE_EXHAUSTED: the caller's client (metadata["client"]: an API key's name, or
   * "anonymous") is over one of its quotas (metadata["quota"]: cpu_seconds_per_minute,
   * queued_jobs or streams). Nothing was done; retry after the RetryInfo delay.
   *
   * @generated from enum value: ERROR_REASON_QUOTA_EXCEEDED = 77;
   */
  QUOTA_EXCEEDED = 77,

  /**
   * UNAUTHENTICATED: heavy work asked for without an API key (x-api-key metadata) on a
   * deployment that requires one for it (BALOOT_API_KEYS set). The play itself needs none.
   *
   * @generated from enum value: ERROR_REASON_API_KEY_REQUIRED = 78;
   */
  API_KEY_REQUIRED = 78,

  /**
   * UNAUTHENTICATED: the API key sent is not one this deployment issued.
   *
   * @generated from enum value: ERROR_REASON_API_KEY_INVALID = 79;
   */
  API_KEY_INVALID = 79,

  /**
   * DEADLINE_EXCEEDED: the call's deadline passed while its job waited in its lane, or the job
   * ran past it and was stopped. Nothing was changed.
   *
   * @generated from enum value: ERROR_REASON_LANE_DEADLINE = 80;
   */
  LANE_DEADLINE = 80,

  /**
   * UNAVAILABLE: the server is stopping and takes no new heavy work. Nothing was changed;
   * send the same request again (another replica takes it).
   *
   * @generated from enum value: ERROR_REASON_LANE_CLOSED = 81;
   */
  LANE_CLOSED = 81,

  /**
   * UNAVAILABLE: the server is stopping and stopped the job before it ended, its grace period
   * ending. Nothing was changed; send the same request again (another replica takes it).
   *
   * @generated from enum value: ERROR_REASON_DRAINING = 82;
   */
  DRAINING = 82,
}

/**
 * Describes the enum baloot.v1.ErrorReason.
 */
export const ErrorReasonSchema: GenEnum<ErrorReason> = /*@__PURE__*/
  enumDesc(file_baloot_v1_errors, 0);

