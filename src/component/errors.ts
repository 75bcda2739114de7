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
