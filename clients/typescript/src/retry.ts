// The default service config of the engine's clients (clients/service_config.json in the
// repository): every RPC of baloot.v1 is safe to retry (each declares its idempotency_level), so
// a call that finds no server, UNAVAILABLE, is tried again with exponential backoff. Connect has
// no service-config support, so an interceptor applies the same policy as gRPC's retry: attempt
// n waits a random time below min(initialBackoff * multiplier^(n-1), maxBackoff).

import { Code, ConnectError, type Interceptor } from "@connectrpc/connect";

/** A gRPC retry policy (the `retryPolicy` of a service config), times in milliseconds. */
export interface RetryPolicy {
  /** Attempts in all, the first one included (gRPC caps it at 5). */
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  backoffMultiplier: number;
  /** The status codes that are retried. */
  retryableCodes: readonly Code[];
}

/** The policy of clients/service_config.json (a test keeps the two equal). */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  maxAttempts: 5,
  initialBackoffMs: 100,
  maxBackoffMs: 2_000,
  backoffMultiplier: 2,
  retryableCodes: [Code.Unavailable],
};

/** How long to wait before retry number `retry` (1 for the first retry), at most. */
export function backoffCeilingMs(policy: RetryPolicy, retry: number): number {
  return Math.min(policy.initialBackoffMs * policy.backoffMultiplier ** (retry - 1), policy.maxBackoffMs);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(ConnectError.from(signal.reason));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(ConnectError.from(signal.reason));
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * An interceptor that retries unary calls failing with a retryable code, as the policy says.
 * `random` (0 to 1) draws the jitter; tests pass their own.
 */
export function retryInterceptor(
  policy: RetryPolicy = DEFAULT_RETRY_POLICY,
  random: () => number = Math.random,
): Interceptor {
  return (next) => async (request) => {
    if (request.stream) return next(request);
    for (let attempt = 1; ; attempt++) {
      try {
        return await next(request);
      } catch (error) {
        const code = ConnectError.from(error).code;
        if (attempt >= policy.maxAttempts || !policy.retryableCodes.includes(code) || request.signal.aborted) {
          throw error;
        }
        await sleep(random() * backoffCeilingMs(policy, attempt), request.signal);
      }
    }
  };
}
