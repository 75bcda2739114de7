import { z } from 'zod';
import { PermanentError, isPermanentError, retryAfterMsOf } from '../component/errors.ts';
import type { Logger } from '../component/logger.ts';
import { durationMs, formatDurationMs } from '../component/duration.ts';
import type { SignalConsumer } from './consumer.ts';
import type { SignalBatch } from './signal-batch.ts';
import { abortReason, raceAbort, sleep } from '../component/abort.ts';
import { describeError } from './internal/classify-export-error.ts';
import { backoffPolicyDelayMs, type BackoffPolicy } from '../component/backoff.ts';

/** Wait before the first retry. 5 000 ms, as the collector's exporter helper. */
export const DEFAULT_INITIAL_INTERVAL_MS = 5_000;
/**
 * The longest wait between retries, jitter included. 10 000 ms (the collector's is 30 s): the wait is also how
 * late a recovered backend is noticed, and health turns ready again within 10 s of a recovery.
 */
export const DEFAULT_MAX_INTERVAL_MS = 10_000;
/** Total time spent retrying one batch before giving up. 300 000 ms; 0 retries forever. */
export const DEFAULT_MAX_ELAPSED_TIME_MS = 300_000;
/** Factor applied to the wait after each failed attempt. 1.5. */
export const DEFAULT_MULTIPLIER = 1.5;
/** Jitter: each wait is drawn from interval × [1 − f, 1 + f]. 0.5. */
export const DEFAULT_RANDOMIZATION_FACTOR = 0.5;

/** The collector exporter helper's `retry_on_failure`, in milliseconds. */
export interface RetryOptions {
  /** Retry retryable failures at all. Default true. */
  readonly enabled?: boolean;
  /** Wait before the first retry. Default 5 000 ms. */
  readonly initialIntervalMs?: number;
  /** The longest wait, jitter included (the jitter window is cut here). Default 30 000 ms. */
  readonly maxIntervalMs?: number;
  /**
   * Give up once the next wait would end later than this after the first attempt. Default 300 000 ms; 0 = never give
   * up.
   */
  readonly maxElapsedTimeMs?: number;
  /** Growth of the wait per attempt. Default 1.5. */
  readonly multiplier?: number;
  /** Jitter fraction in [0, 1]. Default 0.5. */
  readonly randomizationFactor?: number;
  /** Where retries are logged (warn). Default: not logged. */
  readonly logger?: Logger;
  /** Called before each wait; for self-telemetry and tests. */
  readonly onRetry?: (info: { attempt: number; delayMs: number; error: unknown }) => void;
  /**
   * Called after every attempt as it ends, delivered or failed (a failure says whether it will be retried);
   * not for an attempt stopped by the caller's signal. Self-telemetry counts failed attempts with it, and
   * health learns which exporter a waiting batch waits on. Also called with `enabled: false`.
   */
  readonly onAttempt?: (attempt: ExportAttempt) => void;
  /** Source of randomness in [0, 1). Default Math.random. */
  readonly random?: () => number;
  /** Clock and sleep, replaceable so tests can run the schedule without waiting. Default real time. */
  readonly clock?: { now(): number; sleep(ms: number, signal?: AbortSignal): Promise<void> };
}

/** How one attempt of a retried export ended (RetryOptions.onAttempt). */
export type ExportAttempt =
  | { readonly ok: true }
  | { readonly ok: false; readonly error: unknown /** Another attempt follows. */; readonly retrying: boolean };

/**
 * Raised when retries ran out (max elapsed time reached): a `PermanentError`, so the caller dead-letters
 * the batch instead of retrying again; `cause` is the last failure.
 */
export class RetriesExhaustedError extends PermanentError {
  readonly attempts: number;
  readonly elapsedMs: number;
  constructor(attempts: number, elapsedMs: number, lastError: unknown) {
    super(
      `gave up after ${attempts} attempts in ${formatDurationMs(Math.round(elapsedMs))}: ${describeError(lastError)}`,
      { cause: lastError },
    );
    this.attempts = attempts;
    this.elapsedMs = elapsedMs;
  }
}

const realClock = { now: () => Date.now(), sleep };

/** `options` as the product's backoff policy (src/component/backoff.ts), with this section's defaults. */
function retryBackoffPolicy(options: RetryOptions): BackoffPolicy {
  return {
    initialMs: options.initialIntervalMs ?? DEFAULT_INITIAL_INTERVAL_MS,
    maxMs: options.maxIntervalMs ?? DEFAULT_MAX_INTERVAL_MS,
    multiplier: options.multiplier ?? DEFAULT_MULTIPLIER,
    randomizationFactor: options.randomizationFactor ?? DEFAULT_RANDOMIZATION_FACTOR,
  };
}

/**
 * Retries a consumer's retryable failures with exponential backoff while the caller waits: the waiting
 * is the backpressure (the pump does not read more meanwhile). A `PermanentError` is never retried.
 * A failure carrying `retryAfterMs` (a `RetryLaterError`: the server's Retry-After) waits at least that.
 * After `maxElapsedTimeMs` it rejects with a `RetriesExhaustedError` (permanent, last error as cause).
 * An aborted signal rejects at once with the signal's reason, during a wait or an attempt.
 */
export function withRetry(consumer: SignalConsumer, options: RetryOptions = {}): SignalConsumer {
  if (options.enabled === false) return options.onAttempt ? observeAttempts(consumer, options.onAttempt) : consumer;
  const onAttempt = options.onAttempt;
  const maxElapsed = options.maxElapsedTimeMs ?? DEFAULT_MAX_ELAPSED_TIME_MS;
  const random = options.random ?? Math.random;
  const clock = options.clock ?? realClock;
  const policy = retryBackoffPolicy(options);

  async function consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
    const started = clock.now();
    for (let attempt = 1; ; attempt++) {
      if (signal?.aborted) throw abortReason(signal);
      try {
        await raceAbort(consumer.consume(batch, signal), signal);
        onAttempt?.({ ok: true });
        return;
      } catch (error) {
        if (signal?.aborted) throw abortReason(signal);
        if (isPermanentError(error)) {
          onAttempt?.({ ok: false, error, retrying: false });
          throw error;
        }
        // A server that said when to come back (HTTP Retry-After) is not asked again sooner.
        const retryAfterMs = retryAfterMsOf(error);
        const delayMs = Math.max(backoffPolicyDelayMs(attempt, policy, random), retryAfterMs ?? 0);
        const elapsed = clock.now() - started;
        const exhausted = maxElapsed > 0 && elapsed + delayMs > maxElapsed;
        onAttempt?.({ ok: false, error, retrying: !exhausted });
        if (exhausted) throw new RetriesExhaustedError(attempt, elapsed, error);
        options.onRetry?.({ attempt, delayMs, error });
        options.logger?.warn('export failed; retrying', {
          attempt,
          delay_ms: Math.round(delayMs),
          ...(retryAfterMs !== undefined ? { retry_after_ms: Math.round(retryAfterMs) } : {}),
          partition_id: batch.source.partitionId,
          error: describeError(error),
        });
        await clock.sleep(delayMs, signal);
      }
    }
  }

  return {
    consume,
    forceFlush: consumer.forceFlush ? () => consumer.forceFlush!() : undefined,
    shutdown: consumer.shutdown ? () => consumer.shutdown!() : undefined,
    // One call in flight here is at most one call in flight below: retries are sequential.
    attachProducer: consumer.attachProducer ? () => consumer.attachProducer!() : undefined,
    // Retries resend the same batch, as it is.
    acceptsEncodedLogs: consumer.acceptsEncodedLogs === true,
  };
}

/** `consumer` with every call's outcome told to `onAttempt` (calls stopped by their signal excepted). */
function observeAttempts(consumer: SignalConsumer, onAttempt: (attempt: ExportAttempt) => void): SignalConsumer {
  return {
    async consume(batch, signal) {
      try {
        await consumer.consume(batch, signal);
      } catch (error) {
        if (!signal?.aborted) onAttempt({ ok: false, error, retrying: false });
        throw error;
      }
      onAttempt({ ok: true });
    },
    forceFlush: consumer.forceFlush ? () => consumer.forceFlush!() : undefined,
    shutdown: consumer.shutdown ? () => consumer.shutdown!() : undefined,
    attachProducer: consumer.attachProducer ? () => consumer.attachProducer!() : undefined,
    acceptsEncodedLogs: consumer.acceptsEncodedLogs === true,
  };
}

/**
 * The YAML section `retry_on_failure`, durations as Go strings ("5s", "1m30s") or milliseconds.
 * Every key is optional; the defaults above apply.
 */
export const retryOnFailureSchema = z
  .strictObject({
    /** Retry retryable failures at all. Default true. */
    enabled: z.boolean().default(true),
    /** Wait before the first retry. Default 5s. */
    initial_interval: durationMs.default(DEFAULT_INITIAL_INTERVAL_MS),
    /** The longest wait, jitter included; at least initial_interval. Default 10s (the collector: 30s). */
    max_interval: durationMs.default(DEFAULT_MAX_INTERVAL_MS),
    /**
     * Give up on a batch once the next wait would end later than this after its first attempt; 0 = never.
     * The receiver then writes it to its dead-letter store if one is configured, drops it if
     * `dead_letter.drop` is set, and otherwise keeps the partition retrying. Default 300s.
     */
    max_elapsed_time: durationMs.default(DEFAULT_MAX_ELAPSED_TIME_MS),
    /** Growth of the wait per attempt. Default 1.5. */
    multiplier: z.number().min(1).default(DEFAULT_MULTIPLIER),
    /** Jitter: each wait is the interval × a random factor in [1 − f, 1 + f], cut at max_interval. Default 0.5. */
    randomization_factor: z.number().min(0).max(1).default(DEFAULT_RANDOMIZATION_FACTOR),
  })
  .superRefine((c, ctx) => {
    if (c.max_interval >= c.initial_interval) return;
    const [max, initial] = [formatDurationMs(c.max_interval), formatDurationMs(c.initial_interval)];
    ctx.addIssue({
      code: 'custom',
      path: ['max_interval'],
      message: `(${max}) must be at least initial_interval (${initial}); raise max_interval or lower initial_interval`,
    });
  });

export type RetryOnFailureConfig = z.output<typeof retryOnFailureSchema>;

/** Maps the parsed YAML section to `RetryOptions`. */
export function retryOptionsFromConfig(
  config: RetryOnFailureConfig,
  extra: Pick<RetryOptions, 'logger' | 'onRetry' | 'onAttempt'> = {},
): RetryOptions {
  return {
    enabled: config.enabled,
    initialIntervalMs: config.initial_interval,
    maxIntervalMs: config.max_interval,
    maxElapsedTimeMs: config.max_elapsed_time,
    multiplier: config.multiplier,
    randomizationFactor: config.randomization_factor,
    ...extra,
  };
}
