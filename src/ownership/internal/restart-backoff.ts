import { performance } from 'node:perf_hooks';
import { backoffDelayMs } from '../../component/backoff.ts';

/** First wait before a partition whose start failed or whose reading ended is started again. 1000 ms. */
export const DEFAULT_RESTART_INITIAL_MS = 1_000;
/** Longest such wait. 60 000 ms. */
export const DEFAULT_RESTART_MAX_MS = 60_000;
/** A partition that read this long before it ended starts its backoff afresh. 60 000 ms. */
export const RESTART_RESET_AFTER_MS = 60_000;

/**
 * Per-partition restart backoff for the pump managers: every failed start or unexpected end of a
 * partition doubles the wait before this instance starts it again (capped), so a partition that cannot
 * be read (a bad start position, a refused reader) is retried, never in a hot loop.
 */
export class RestartBackoff {
  readonly #failures = new Map<string, { count: number; until: number }>();
  readonly #initialMs: number;
  readonly #maxMs: number;
  readonly #now: () => number;

  constructor(options: { initialMs?: number; maxMs?: number; now?: () => number } = {}) {
    this.#initialMs = options.initialMs ?? DEFAULT_RESTART_INITIAL_MS;
    this.#maxMs = options.maxMs ?? DEFAULT_RESTART_MAX_MS;
    this.#now = options.now ?? (() => performance.now());
  }

  /**
   * Records a failure of `partitionId`; `ranMs` is how long it read before it ended (0 for a failed
   * start). Returns the wait before it may be started again.
   */
  failed(partitionId: string, ranMs = 0): number {
    const previous = ranMs >= RESTART_RESET_AFTER_MS ? 0 : (this.#failures.get(partitionId)?.count ?? 0);
    const count = previous + 1;
    const delayMs = backoffDelayMs(count, this.#initialMs, this.#maxMs);
    this.#failures.set(partitionId, { count, until: this.#now() + delayMs });
    return delayMs;
  }

  /** Milliseconds until `partitionId` may be started again; 0 when it may be now. */
  waitMs(partitionId: string): number {
    const f = this.#failures.get(partitionId);
    return f ? Math.max(0, f.until - this.#now()) : 0;
  }

  /** Failures in a row of `partitionId`. */
  failures(partitionId: string): number {
    return this.#failures.get(partitionId)?.count ?? 0;
  }

  /** A start that led to reading forgets nothing yet: only a long enough run resets (see `failed`). */
  forget(partitionId: string): void {
    this.#failures.delete(partitionId);
  }
}
