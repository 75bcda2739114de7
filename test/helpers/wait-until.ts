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

/**
 * Polls `probe` until it returns a value other than undefined and resolves to that value; a probe that
 * throws counts as not yet, and the last error is named if the wait times out.
 */
export async function waitForValue<T>(
  probe: () => Promise<T | undefined>,
  timeoutMs: number,
  what: string,
  intervalMs = 100,
): Promise<T> {
  let value: T | undefined;
  let last: unknown;
  const ready = async () => {
    try {
      value = await probe();
      return value !== undefined;
    } catch (error) {
      last = error;
      return false;
    }
  };
  await waitUntil(ready, timeoutMs, () => `${what}${last ? `: ${String(last)}` : ''}`, intervalMs);
  return value as T;
}
