/** Exponential backoff with full jitter in [d/2, d]: attempt 1 → about initialMs, doubling up to maxMs. */
export function backoffDelayMs(attempt: number, initialMs: number, maxMs: number, random: () => number = Math.random): number {
  const base = Math.min(maxMs, initialMs * 2 ** Math.max(0, attempt - 1));
  return Math.round(base / 2 + (random() * base) / 2);
}
