// Node.js: the engine over native gRPC (HTTP/2), straight to a server or a gRPC load balancer.

import { createGrpcTransport, type GrpcTransportOptions } from "@connectrpc/connect-node";

import { EngineClient, type EngineClientOptions } from "./client.js";
import { DEFAULT_RETRY_POLICY, retryInterceptor, type RetryPolicy } from "./retry.js";

/** Options of connectGrpc: the client's, and any of the gRPC transport's. */
export type GrpcClientOptions = EngineClientOptions &
  Partial<Omit<GrpcTransportOptions, "baseUrl">> & {
    /** The retry policy of UNAVAILABLE calls (default: DEFAULT_RETRY_POLICY); false: none. */
    retry?: RetryPolicy | false;
  };

/**
 * A client over gRPC to `target`: "host:port" (plaintext, like `make run` serves) or a URL
 * ("http://host:port", or "https://host" for TLS).
 */
export function connectGrpc(target = "localhost:50051", options: GrpcClientOptions = {}): EngineClient {
  const { timeoutMs, headers, language, retry = DEFAULT_RETRY_POLICY, ...transportOptions } = options;
  const interceptors = [
    ...(retry === false ? [] : [retryInterceptor(retry)]),
    ...(transportOptions.interceptors ?? []),
  ];
  const baseUrl = /^https?:\/\//.test(target) ? target : `http://${target}`;
  const transport = createGrpcTransport({ ...transportOptions, baseUrl, interceptors });
  return new EngineClient(transport, {
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(headers !== undefined && { headers }),
    ...(language !== undefined && { language }),
  });
}

export { EngineClient };

// Provably fair deals: the verifier of a record's decks (node:crypto).
export * from "./fairdeal.js";
