/**
 * The one backoff policy of the product: capped exponential growth, then proportional jitter, and no
 * wait ever longer than the cap.
 *
 *   interval(n) = min(maxMs, initialMs × multiplier^(n − 1))        n = 1, 2, ... (the failed attempt)
 *   wait(n)     = uniform in [interval(n) × (1 − f), min(maxMs, interval(n) × (1 + f))]   f = randomizationFactor
 *
 * Why this jitter model: `retry_on_failure` exposes the collector's keys (`multiplier`,
 * `randomization_factor`), whose meaning comes from the collector's `cenkalti/backoff`: while the jitter
 * window stays below the cap, waits are drawn exactly as there, so a config ported from the collector
 * retries on the same schedule. Where the window would cross the cap, cenkalti/backoff lets the wait pass
 * it (up to `maxMs × (1 + f)`: 2983 ms was seen with `max_interval: 2s`); we cut the window at the cap
 * instead, because our docs promise `max_interval` as the longest wait. Cutting the window rather than
 * clamping the drawn value keeps waits spread at the cap (uniform in [maxMs × (1 − f), maxMs]), so a fleet
 * of partitions failing together does not retry in lockstep.
 */

/** Growth per attempt when a caller does not choose one. 2 (doubling). */
export const DEFAULT_BACKOFF_MULTIPLIER = 2;
/** Jitter fraction when a caller does not choose one: each wait is interval × [0.5, 1.5). 0.5. */
export const DEFAULT_BACKOFF_RANDOMIZATION_FACTOR = 0.5;

export interface BackoffPolicy {
  /** Interval after the first failure, before jitter. In ms. */
  readonly initialMs: number;
  /** Cap of the interval, and the longest wait (jitter never goes past it). In ms. */
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
  const low = interval * (1 - factor);
  const high = Math.min(Math.max(0, policy.maxMs), interval * (1 + factor));
  return Math.max(0, Math.round(low + (high - low) * random()));
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
