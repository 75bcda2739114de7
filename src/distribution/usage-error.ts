/** A mistake in the command line: printed with the command's usage, exit code 2. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
