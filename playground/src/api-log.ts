// The API panel's record: a Connect interceptor keeps the last calls as proto3 JSON with every
// field, zeros included (the form `grpcurl -emit-defaults` prints), with the sealed state token
// replaced by its size and each
// credential by the role it belongs to, so the panel teaches the API without leaking secrets.

import { toJson, type DescMessage, type JsonValue, type Message } from "@bufbuild/protobuf";
import { ConnectError, type Interceptor } from "@connectrpc/connect";
import { codeName, ErrorInfoSchema, LocalizedMessageSchema } from "@baloot-engine/client";

/** One call as the panel shows it. */
export interface CallRecord {
  /** The sequence number of the call on this page, from 1. */
  id: number;
  /** The RPC's name, e.g. "PlayCard". */
  method: string;
  /** The request as JSON, secrets masked. */
  request: JsonValue;
  /** The response as JSON, secrets masked; undefined for a refused call. */
  response?: JsonValue;
  /** The refusal: status code name, message, the ErrorInfo and the LocalizedMessage. */
  error?: {
    code: string;
    message: string;
    reason: string;
    metadata: Record<string, string>;
    localized?: { locale: string; message: string };
  };
  /** Milliseconds from sending to the answer. */
  millis: number;
}

/** The last calls, newest first, and the interceptor that records them. */
export class ApiLog {
  readonly calls: CallRecord[] = [];
  readonly #limit: number;
  readonly #credentials: Map<string, string> = new Map();
  #next = 1;
  /** Called after every recorded call. */
  onChange: () => void = () => {};

  constructor(limit = 12) {
    this.#limit = limit;
  }

  /** The interceptor to give the gRPC-Web transport. */
  readonly interceptor: Interceptor = (next) => async (request) => {
    const started = performance.now();
    const id = this.#next++;
    if (request.stream) {
      return next(request);
    }
    const method = request.method.name;
    const body = this.#json(request.method.input, request.message);
    try {
      const response = await next(request);
      if (!response.stream) {
        // CreateMatch's answer names the credentials it hands out, so later requests show roles.
        this.#learnCredentials(response.message as Record<string, unknown>);
        this.#push({
          id,
          method,
          request: body,
          response: this.#json(response.method.output, response.message),
          millis: Math.round(performance.now() - started),
        });
      }
      return response;
    } catch (caught) {
      const error = ConnectError.from(caught);
      const info = error.findDetails(ErrorInfoSchema)[0];
      const text = error.findDetails(LocalizedMessageSchema)[0];
      this.#push({
        id,
        method,
        request: body,
        error: {
          code: codeName(error.code),
          message: error.rawMessage,
          reason: info?.reason ?? "",
          metadata: { ...(info?.metadata ?? {}) },
          ...(text !== undefined && { localized: { locale: text.locale, message: text.message } }),
        },
        millis: Math.round(performance.now() - started),
      });
      throw caught;
    }
  };

  #learnCredentials(message: Record<string, unknown>): void {
    const host = message["hostCredential"];
    const seats = message["seatCredentials"];
    if (typeof host === "string" && host !== "") {
      this.#credentials.set(host, "host credential");
    }
    if (Array.isArray(seats)) {
      seats.forEach((credential, seat) => {
        if (typeof credential === "string") {
          this.#credentials.set(credential, `seat ${seat} credential`);
        }
      });
    }
  }

  #push(record: CallRecord): void {
    this.calls.unshift(record);
    this.calls.length = Math.min(this.calls.length, this.#limit);
    this.onChange();
  }

  #json(schema: DescMessage, message: Message): JsonValue {
    // Every field, zeros included: proto3 JSON would otherwise show the seven of spades (card
    // 0) as "play": {} and leave out seat 0 (docs/clients.md, "what a missing field means").
    const json = toJson(schema, message, { alwaysEmitImplicit: true });
    return mask(json, message as unknown as Record<string, unknown>, this.#credentials);
  }
}

/** The JSON with the state token as its size and credentials as their role. */
function mask(json: JsonValue, message: Record<string, unknown>, credentials: Map<string, string>): JsonValue {
  if (json === null || typeof json !== "object" || Array.isArray(json)) {
    return json;
  }
  const out: { [key: string]: JsonValue } = { ...json };
  const state = message["state"];
  if (state instanceof Uint8Array && "state" in out) {
    out["state"] = `<sealed state token: ${state.length} bytes>`;
  }
  for (const key of ["credential", "hostCredential"]) {
    const value = out[key];
    if (typeof value === "string") {
      out[key] = `<${credentials.get(value) ?? "credential"}>`;
    }
  }
  const seats = out["seatCredentials"];
  if (Array.isArray(seats)) {
    out["seatCredentials"] = seats.map((_, seat) => `<seat ${seat} credential>`);
  }
  return out;
}
