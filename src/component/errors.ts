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
