/**
 * The one backoff policy of the product: capped exponential growth, then proportional jitter.
 *
 *   interval(n) = min(maxMs, initialMs × multiplier^(n − 1))        n = 1, 2, ... (the failed attempt)
 *   wait(n)     = interval(n) × (1 + randomizationFactor × (2r − 1))  r uniform in [0, 1)
 *
 * Why this jitter model: `retry_on_failure` exposes the collector's keys (`multiplier`,
 * `randomization_factor`), whose meaning is fixed by the collector's `cenkalti/backoff`, which computes
 * waits exactly this way; keeping it means a config ported from the collector retries on the same
 * schedule. The jitter is symmetric around the capped interval, so a fleet of partitions failing
 * together stays spread out even at the cap (clamping after the jitter would pile half the waits onto
 * `maxMs` exactly). The price: one wait can reach `maxMs × (1 + randomizationFactor)`.
 */

/** Growth per attempt when a caller does not choose one. 2 (doubling). */
export const DEFAULT_BACKOFF_MULTIPLIER = 2;
/** Jitter fraction when a caller does not choose one: each wait is interval × [0.5, 1.5). 0.5. */
export const DEFAULT_BACKOFF_RANDOMIZATION_FACTOR = 0.5;

export interface BackoffPolicy {
  /** Interval after the first failure, before jitter. In ms. */
  readonly initialMs: number;
  /** Cap of the interval, before jitter. In ms. */
  readonly maxMs: number;
  /** Growth of the interval per attempt, at least 1. Default 2. */
  readonly multiplier?: number;
  /** Jitter fraction in [0, 1]. Default 0.5. */
  readonly randomizationFactor?: number;
}

/** The interval before jitter for failed attempt `attempt` (1-based; values below 1 count as 1). In ms. */
export function backoffIntervalMs(attempt: number, policy: BackoffPolicy): number {
  const multiplier = Math.max(1, policy.multiplier ?? DEFAULT_BACKOFF_MULTIPLIER);
  const initial = Math.max(0, policy.initialMs);
  const exponent = Math.max(0, Math.floor(attempt) - 1);
  // `multiplier ** exponent` overflows to Infinity for long outages; the cap absorbs it.
  return Math.min(Math.max(0, policy.maxMs), initial * multiplier ** exponent);
}

/** The wait after failed attempt `attempt` (1-based) under `policy`, jittered. Whole ms, never negative. */
export function backoffPolicyDelayMs(
  attempt: number,
  policy: BackoffPolicy,
  random: () => number = Math.random,
): number {
  const factor = Math.min(1, Math.max(0, policy.randomizationFactor ?? DEFAULT_BACKOFF_RANDOMIZATION_FACTOR));
  const interval = backoffIntervalMs(attempt, policy);
  return Math.max(0, Math.round(interval * (1 + factor * (2 * random() - 1))));
}

/**
 * The wait after failed attempt `attempt` (1-based): `initialMs` doubling up to `maxMs`, each wait
 * jittered by ±50 %. The short form for internal loops (reopen, reconnect, hub discovery).
 */
export function backoffDelayMs(
  attempt: number,
  initialMs: number,
  maxMs: number,
  random: () => number = Math.random,
): number {
  return backoffPolicyDelayMs(attempt, { initialMs, maxMs }, random);
}
