/**
 * The error family. A `PermanentError` will never succeed on retry (the collector's
 * `consumererror.NewPermanent`); anything else thrown by a consumer is treated as retryable.
 */
export class PermanentError extends Error {
  override readonly name = 'PermanentError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

export function isPermanentError(error: unknown): boolean {
  return error instanceof PermanentError || (error instanceof Error && error.name === 'PermanentError');
}

/** Raised for invalid configuration; `issues` holds one line per problem, each with its dotted path. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  readonly issues: readonly string[];
  constructor(issues: readonly string[]) {
    super(`invalid configuration:\n${issues.map((i) => `  - ${i}`).join('\n')}`);
    this.issues = issues;
  }
}

/**
 * A retryable failure whose source said how long to wait (an HTTP `Retry-After`): the retry waits at
 * least `retryAfterMs` before the next attempt.
 */
export class RetryLaterError extends Error {
  override readonly name = 'RetryLaterError';
  /** The wait the source asked for, in ms; undefined when it named none. */
  readonly retryAfterMs: number | undefined;
  constructor(message: string, retryAfterMs: number | undefined, options?: { cause?: unknown }) {
    super(message, options);
    this.retryAfterMs = retryAfterMsOf({ retryAfterMs });
  }
}

/** The wait a failure asked for (`retryAfterMs` on it), in ms; undefined when none or not positive. */
export function retryAfterMsOf(error: unknown): number | undefined {
  if (typeof error !== 'object' || error === null) return undefined;
  const ms = (error as { retryAfterMs?: unknown }).retryAfterMs;
  return typeof ms === 'number' && Number.isFinite(ms) && ms > 0 ? ms : undefined;
}

/**
 * A stage refused data to protect the process, not because of the data (the collector's
 * `ErrDataRefused`, raised by its `memory_limiter`). Retryable, and more: the caller must hold the
 * data and try again later, never dead-letter or drop it, since nothing is wrong with it.
 */
export class DataRefusedError extends Error {
  override readonly name = 'DataRefusedError';
  readonly retryable = true;
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

/**
 * Whether `error`, or any failure it wraps (`cause`, and `errors` of a fan-out or AggregateError), is a
 * `DataRefusedError`: a retry wrapper that gave up or a fan-out keeps the refusal as its cause.
 */
export function isDataRefused(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 8) return false;
  if (error instanceof DataRefusedError || (error as { name?: unknown }).name === 'DataRefusedError') return true;
  const e = error as { cause?: unknown; errors?: unknown };
  if (isDataRefused(e.cause, depth + 1)) return true;
  return Array.isArray(e.errors) && e.errors.some((inner) => isDataRefused(inner, depth + 1));
}
