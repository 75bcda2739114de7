/**
 * The one wait-on-state helper for tests: polls `cond` until it holds, and on timeout throws naming
 * `what` (a function is called then, so the message can describe the state at the end).
 * Resolves to the milliseconds waited. The poll timer keeps the process alive while a test waits.
 */
export async function waitUntil(
  cond: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string | (() => string) = 'condition',
  intervalMs = 20,
): Promise<number> {
  const started = Date.now();
  while (!(await cond())) {
    if (Date.now() - started > timeoutMs) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${typeof what === 'function' ? what() : what}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
  return Date.now() - started;
}
