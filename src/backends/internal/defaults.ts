/** Defaults shared by both backends; `HubClientOptions` and `OpenOptions` document them. */
import type { HubClientOptions } from '../hub-client-options.ts';
import { DEFAULT_PREFETCH_COUNT } from '../consumer.ts';
/** The consumer group every hub has. */
export const DEFAULT_CONSUMER_GROUP = '$Default';
export const DEFAULT_MAX_RETRIES = 3;
export const DEFAULT_RETRY_DELAY_MS = 500;
export const DEFAULT_MAX_RETRY_DELAY_MS = 30_000;
/** Time allowed for one attempt of an operation (attach, CBS, management request). */
export const DEFAULT_OPERATION_TIMEOUT_MS = 60_000;

export interface ResolvedRetry {
  readonly maxRetries: number;
  readonly retryDelayMs: number;
  readonly maxRetryDelayMs: number;
  readonly timeoutMs: number;
}

export function resolveRetry(retry: HubClientOptions['retry']): ResolvedRetry {
  return {
    maxRetries: Math.max(0, retry?.maxRetries ?? DEFAULT_MAX_RETRIES),
    retryDelayMs: Math.max(0, retry?.retryDelayMs ?? DEFAULT_RETRY_DELAY_MS),
    maxRetryDelayMs: Math.max(0, retry?.maxRetryDelayMs ?? DEFAULT_MAX_RETRY_DELAY_MS),
    timeoutMs: Math.max(1, retry?.timeoutMs ?? DEFAULT_OPERATION_TIMEOUT_MS),
  };
}

/** Prefetch and batch size of a reader: prefetch at least 1, batch within [1, prefetch]. */
export function resolveWindow(
  prefetchCount: number | undefined,
  maxBatchSize: number | undefined,
): { prefetch: number; batch: number } {
  const prefetch = Math.max(1, Math.floor(prefetchCount ?? DEFAULT_PREFETCH_COUNT));
  // A third of the window per batch keeps two batches queued while one is handed over, so fetching
  // overlaps consuming (the SDK's own default prefetch is three batches).
  const batch = Math.min(prefetch, Math.max(1, Math.floor(maxBatchSize ?? Math.ceil(prefetch / 3))));
  return { prefetch, batch };
}
