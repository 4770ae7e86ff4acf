// @baloot-engine/client: the baloot.v1 contract for TypeScript. Transports live in
// "@baloot-engine/client/node" (gRPC over HTTP/2) and "@baloot-engine/client/web" (gRPC-Web).

export * from "./client.js";
export * from "./errors.js";
export * from "./cards.js";
export * from "./random-play.js";
export * from "./retry.js";
export * from "./records.js";
export * from "./gen/baloot/v1/analysis_pb.js";
export * from "./gen/baloot/v1/engine_service_pb.js";
export * from "./gen/baloot/v1/errors_pb.js";
export * from "./gen/baloot/v1/rules_pb.js";
export * from "./gen/baloot/v1/types_pb.js";
export {
  type ErrorInfo,
  ErrorInfoSchema,
  type LocalizedMessage,
  LocalizedMessageSchema,
} from "./gen/google/rpc/error_details_pb.js";
