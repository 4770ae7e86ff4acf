// Typed errors: every refusal of the engine carries a google.rpc.ErrorInfo (domain "baloot.v1")
// whose reason is a stable name of baloot.v1.ErrorReason without its ERROR_REASON_ prefix.

import { Code, ConnectError } from "@connectrpc/connect";

import { ErrorReason } from "./gen/baloot/v1/errors_pb.js";
import { ErrorInfoSchema, LocalizedMessageSchema } from "./gen/google/rpc/error_details_pb.js";

/** The ErrorInfo domain of the engine's reasons. */
export const ERROR_DOMAIN = "baloot.v1";

/** A reason name the engine sends, such as "MUST_FOLLOW_SUIT" (see errors.proto). */
export type ErrorReasonName = Exclude<keyof typeof ErrorReason, "UNSPECIFIED">;

/**
 * The reason of a refusal: a known name, "" when the status carries no ErrorInfo, or (from a
 * newer server) a name this client does not know yet, kept as it came.
 */
export type Reason = ErrorReasonName | "" | (string & {});

/** A refusal in a language for people: google.rpc.LocalizedMessage. */
export interface Localized {
  /** Its BCP 47 locale: "en", or "ar-SA" for the engine's Arabic. */
  readonly locale: string;
  /** The sentence, to show to the player. */
  readonly message: string;
}

/** The canonical gRPC name of a status code: Code.FailedPrecondition -> "FAILED_PRECONDITION". */
export function codeName(code: Code): string {
  const name = Code[code] as string | undefined;
  return name === undefined ? `CODE_${code}` : name.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/**
 * A request the engine (or the way to it) refused: the gRPC status code, the stable reason of
 * the ErrorInfo ("" when there is none, e.g. when the server cannot be reached), the readable
 * message and the facts of ErrorInfo.metadata ("seat", "card", "allowed"...).
 */
export class EngineError extends Error {
  /** The gRPC status code, as @connectrpc/connect numbers it (the gRPC code numbers). */
  readonly code: Code;
  /** The reason of the ErrorInfo, e.g. "NOT_YOUR_TURN"; "" when the status carries none. */
  readonly reason: Reason;
  /** The readable English message of the status, for people and logs, not for code. */
  readonly rawMessage: string;
  /**
   * ErrorInfo.metadata: facts such as "seat", "card" or "allowed", one format per key (see the
   * header of errors.proto); read lists with {@link EngineError.allowed} and {@link metadataList}.
   */
  readonly metadata: Readonly<Record<string, string>>;
  /**
   * The refusal for the player, in the language the client asked for (EngineClientOptions
   * .language; English by default): the status's google.rpc.LocalizedMessage. Undefined when the
   * status carries none (an older server, or no server reached).
   */
  readonly localized: Localized | undefined;

  constructor(
    code: Code,
    reason: Reason,
    rawMessage: string,
    metadata: Readonly<Record<string, string>> = {},
    options?: { cause?: unknown; localized?: Localized | undefined },
  ) {
    super(`${codeName(code)}${reason ? ` ${reason}` : ""}: ${rawMessage}`, options);
    this.name = new.target.name;
    this.code = code;
    this.reason = reason;
    this.rawMessage = rawMessage;
    this.metadata = metadata;
    this.localized = options?.localized;
  }

  /** The sentence to show a player: the localized message, else the status message. */
  get display(): string {
    return this.localized?.message ?? this.rawMessage;
  }

  /**
   * The legal alternatives of the refusal ("allowed"), one code each: card codes such as "10S",
   * action names with their suit or mode after a colon such as "hokm:S" or "double:open", or
   * project kinds such as "sira". Empty when the refusal lists none.
   */
  get allowed(): string[] {
    return metadataList(this.metadata, "allowed");
  }

  /** The card the refusal names ("card"), as its code such as "KH"; undefined when none. */
  get card(): string | undefined {
    return this.metadata["card"];
  }

  /** The canonical name of the status code, e.g. "FAILED_PRECONDITION". */
  get codeName(): string {
    return codeName(this.code);
  }

  /** The reason as the generated enum value (ErrorReason.UNSPECIFIED when there is none or it is unknown). */
  get reasonValue(): ErrorReason {
    return isReasonName(this.reason) ? ErrorReason[this.reason] : ErrorReason.UNSPECIFIED;
  }

  /** The typed error of anything a call threw (a ConnectError, or anything else). */
  static from(error: unknown): EngineError {
    if (error instanceof EngineError) {
      return error;
    }
    const connectError = ConnectError.from(error);
    let reason: Reason = "";
    let metadata: Record<string, string> = {};
    for (const info of connectError.findDetails(ErrorInfoSchema)) {
      if (info.domain === ERROR_DOMAIN && info.reason !== "") {
        reason = info.reason;
        metadata = { ...info.metadata };
        break;
      }
    }
    const [text] = connectError.findDetails(LocalizedMessageSchema);
    const localized = text === undefined ? undefined : { locale: text.locale, message: text.message };
    const Kind = ERROR_TYPES.get(connectError.code) ?? EngineError;
    return new Kind(connectError.code, reason, connectError.rawMessage, metadata, {
      cause: error,
      localized,
    });
  }
}

/**
 * A list-valued metadata key ("allowed", "declared", "held"): its comma-separated entries, [] when
 * the key is absent or empty.
 */
export function metadataList(metadata: Readonly<Record<string, string>>, key: string): string[] {
  const value = metadata[key] ?? "";
  return value === "" ? [] : value.split(",");
}

/** FAILED_PRECONDITION: the rules forbid the action now (not your turn, must follow suit, stale state...). */
export class IllegalActionError extends EngineError {}

/** INVALID_ARGUMENT: a malformed request, or a state token that does not open. */
export class InvalidRequestError extends EngineError {}

/** PERMISSION_DENIED: the credential does not allow it, or preset decks are off. */
export class PermissionDeniedError extends EngineError {}

const ERROR_TYPES: ReadonlyMap<Code, typeof EngineError> = new Map([
  [Code.FailedPrecondition, IllegalActionError],
  [Code.InvalidArgument, InvalidRequestError],
  [Code.PermissionDenied, PermissionDeniedError],
]);

function isReasonName(reason: string): reason is ErrorReasonName {
  return reason !== "UNSPECIFIED" && Object.hasOwn(ErrorReason, reason) && Number.isNaN(Number(reason));
}
