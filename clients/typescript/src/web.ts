// Browsers (and anything with fetch): the engine over gRPC-Web, through a proxy that translates
// gRPC-Web to gRPC, such as the project's Envoy gateway (deploy/envoy/).

import { createGrpcWebTransport, type GrpcWebTransportOptions } from "@connectrpc/connect-web";

import { EngineClient, type EngineClientOptions } from "./client.js";
import { DEFAULT_RETRY_POLICY, retryInterceptor, type RetryPolicy } from "./retry.js";

/** Options of connectGrpcWeb: the client's, and any of the gRPC-Web transport's. */
export type GrpcWebClientOptions = EngineClientOptions &
  Partial<Omit<GrpcWebTransportOptions, "baseUrl">> & {
    /** The retry policy of UNAVAILABLE calls (default: DEFAULT_RETRY_POLICY); false: none. */
    retry?: RetryPolicy | false;
  };

/** A client over gRPC-Web to the proxy at `baseUrl`, e.g. "http://localhost:8080" or "/api". */
export function connectGrpcWeb(baseUrl: string, options: GrpcWebClientOptions = {}): EngineClient {
  const { timeoutMs, headers, language, retry = DEFAULT_RETRY_POLICY, ...transportOptions } = options;
  const interceptors = [
    ...(retry === false ? [] : [retryInterceptor(retry)]),
    ...(transportOptions.interceptors ?? []),
  ];
  const transport = createGrpcWebTransport({ ...transportOptions, baseUrl, interceptors });
  return new EngineClient(transport, {
    ...(timeoutMs !== undefined && { timeoutMs }),
    ...(headers !== undefined && { headers }),
    ...(language !== undefined && { language }),
  });
}

export { EngineClient };
