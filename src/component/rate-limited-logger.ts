import type { Logger } from './logger.ts';

/** The first repeat window of a warning or error: 10 000 ms. It doubles while the problem lasts. */
export const DEFAULT_REPEAT_WINDOW_MS = 10_000;
/** The longest repeat window: 300 000 ms. A problem lasting hours is told every five minutes. */
export const MAX_REPEAT_WINDOW_MS = 300_000;

type Level = 'warn' | 'error';

interface Seen {
  until: number;
  /** The window the next line opens: doubled at every line written while the problem lasts. */
  windowMs: number;
  suppressed: number;
  partitions: Set<string>;
}

/**
 * The text an error is folded by: partition ids, numbers, ports, GUIDs (tracking ids) and times differ between
 * partitions and attempts of one problem, so they are taken out, and so is the backends' `partition N:` /
 * `opening partition N:` context (the same refusal, met at the open or at the first receive).
 */
export function problemKey(text: string): string {
  return text
    .replace(/[0-9a-f]{8}(?:-[0-9a-f]{4}){3}-[0-9a-f]{12}/gi, '<id>')
    .replace(/\d+/g, '#')
    .replace(/^(?:opening )?partition #: /, '');
}

/** Partition ids as ranges, numerically: `0-3,5,7-9`; ids that are not numbers follow, sorted. */
export function partitionRanges(ids: Iterable<string>): string {
  const all = [...new Set(ids)];
  const numbers = all
    .filter((id) => /^\d+$/.test(id))
    .map(Number)
    .sort((a, b) => a - b);
  const parts: string[] = [];
  for (let i = 0; i < numbers.length; ) {
    let j = i;
    while (j + 1 < numbers.length && numbers[j + 1] === numbers[j]! + 1) j++;
    parts.push(j > i ? `${numbers[i]}-${numbers[j]}` : String(numbers[i]));
    i = j + 1;
  }
  return [...parts, ...all.filter((id) => !/^\d+$/.test(id)).sort()].join(',');
}

/**
 * Wraps a logger so that one problem is one line, however many partitions it hits: a warning or error with the
 * same message and the same error text once partition ids, numbers and ids are taken out (see problemKey) is
 * written once per window; the next line written says how often it repeated and for which partitions
 * (`repeated`, `repeatedPartitions: "0-31"`). The window starts at `windowMs` and doubles at each line while
 * the problem lasts (10 s, 20 s, 40 s, ... up to five minutes), and starts over once a window passed without
 * it. A misconfiguration failing on 32 partitions writes 3 lines in its first minute. Debug and info lines pass
 * through. Children share the same memory.
 */
export function rateLimitedLogger(inner: Logger, options: { windowMs?: number; now?: () => number } = {}): Logger {
  const firstWindowMs = options.windowMs ?? DEFAULT_REPEAT_WINDOW_MS;
  const now = options.now ?? Date.now;
  const seen = new Map<string, Seen>();

  const wrap = (logger: Logger, inherited: Record<string, unknown>): Logger => {
    const limited = (level: Level) => (message: string, fields?: Record<string, unknown>) => {
      const all = { ...inherited, ...fields };
      const problem = problemKey(String(all.error ?? ''));
      const key = `${level}\u0000${message}\u0000${problem}\u0000${String(all.configKey ?? '')}`;
      const t = now();
      const entry = seen.get(key);
      const partition = all.partitionId === undefined ? undefined : String(all.partitionId);
      if (entry && t < entry.until) {
        entry.suppressed++;
        if (partition !== undefined) entry.partitions.add(partition);
        return;
      }
      // Still the same problem (it came back within a window of the last line): the next window is longer.
      const lasting = entry !== undefined && t < entry.until + entry.windowMs;
      const windowMs = lasting ? Math.min(entry.windowMs * 2, MAX_REPEAT_WINDOW_MS) : firstWindowMs;
      const extra =
        entry && entry.suppressed > 0
          ? { repeated: entry.suppressed, repeatedPartitions: partitionRanges(entry.partitions) || undefined }
          : {};
      seen.set(key, { until: t + windowMs, windowMs, suppressed: 0, partitions: new Set() });
      if (seen.size > 1_000) for (const [k, v] of seen) if (v.until + v.windowMs <= t) seen.delete(k);
      logger[level](message, { ...fields, ...extra });
    };
    return {
      debug: (m, f) => logger.debug(m, f),
      info: (m, f) => logger.info(m, f),
      warn: limited('warn'),
      error: limited('error'),
      child: (fields) => wrap(logger.child(fields), { ...inherited, ...fields }),
    };
  };
  return wrap(inner, {});
}
