import type { Logger } from './logger.ts';

/** Identical warnings and errors are written at most once per this window. 10 000 ms. */
export const DEFAULT_REPEAT_WINDOW_MS = 10_000;

type Level = 'warn' | 'error';

interface Seen {
  until: number;
  suppressed: number;
  partitions: Set<string>;
}

/**
 * Wraps a logger so that a warning or error repeated with the same message and error text (whatever
 * the partition) is written once per window; the next line written says how often it repeated and for
 * which partitions. A misconfiguration failing on 32 partitions every backoff step gives one line per
 * step, not 32. Debug and info lines pass through. Children share the same memory.
 */
export function rateLimitedLogger(inner: Logger, options: { windowMs?: number; now?: () => number } = {}): Logger {
  const windowMs = options.windowMs ?? DEFAULT_REPEAT_WINDOW_MS;
  const now = options.now ?? Date.now;
  const seen = new Map<string, Seen>();

  const wrap = (logger: Logger, inherited: Record<string, unknown>): Logger => {
    const limited = (level: Level) => (message: string, fields?: Record<string, unknown>) => {
      const all = { ...inherited, ...fields };
      const key = `${level}\u0000${message}\u0000${String(all.error ?? '')}\u0000${String(all.configKey ?? '')}`;
      const t = now();
      const entry = seen.get(key);
      const partition = all.partitionId === undefined ? undefined : String(all.partitionId);
      if (entry && t < entry.until) {
        entry.suppressed++;
        if (partition !== undefined) entry.partitions.add(partition);
        return;
      }
      const extra = entry && entry.suppressed > 0
        ? { repeated: entry.suppressed, repeatedPartitions: [...entry.partitions].sort().join(',') || undefined }
        : {};
      seen.set(key, { until: t + windowMs, suppressed: 0, partitions: new Set() });
      if (seen.size > 1_000) for (const [k, v] of seen) if (v.until <= t) seen.delete(k);
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
