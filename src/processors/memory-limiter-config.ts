import { z } from 'zod';
import { durationMs } from '../component/duration.ts';
import { readMemoryTotal, type MemoryTotal } from '../pipeline/memory-usage.ts';

/** Minimum time between forced collections while above the soft limit. 10 000 ms, as the collector. */
export const DEFAULT_MIN_GC_INTERVAL_SOFT_MS = 10_000;
/** Spike allowance when none is configured: a fifth of the limit, as the collector. */
export const DEFAULT_SPIKE_FRACTION = 0.2;
const MIB = 1024 * 1024;

const wholeNumber = z.number().int().min(0);

/**
 * The YAML section of the `memory_limiter` processor, with the collector's keys (gcstats model) and its
 * validation: `check_interval` is required, one of `limit_mib` / `limit_percentage` is required
 * (`limit_mib` wins when both are set), and each spike allowance must be below its limit.
 */
export const memoryLimiterConfigSchema = z
  .strictObject({
    /** Time between memory measurements; required, > 0. The collector suggests 1s. */
    check_interval: durationMs.default(0),
    /** Hard limit in MiB of the measured memory (see docs/configuration.md). 0 = use limit_percentage. */
    limit_mib: wholeNumber.default(0),
    /** Expected growth between two checks, MiB; soft limit = limit_mib − spike_limit_mib. Default 20 % of limit_mib. */
    spike_limit_mib: wholeNumber.default(0),
    /** Hard limit as a percentage of the memory total (container limit or V8 heap limit, the smaller). */
    limit_percentage: wholeNumber.default(0),
    /** Spike allowance as a percentage of the same total. Default 20 % of the limit. */
    spike_limit_percentage: wholeNumber.default(0),
    /** Least time between forced collections while above the soft limit. Default 10s. */
    min_gc_interval_when_soft_limited: durationMs.default(DEFAULT_MIN_GC_INTERVAL_SOFT_MS),
    /** Least time between forced collections while above the hard limit. Default 0 (every check). */
    min_gc_interval_when_hard_limited: durationMs.default(0),
  })
  .superRefine((c, ctx) => {
    const issue = (path: string, message: string) => ctx.addIssue({ code: 'custom', path: [path], message });
    if (c.check_interval <= 0) issue('check_interval', 'must be greater than zero; the collector suggests 1s');
    if (c.min_gc_interval_when_soft_limited < c.min_gc_interval_when_hard_limited) {
      issue('min_gc_interval_when_soft_limited', 'must be at least min_gc_interval_when_hard_limited');
    }
    if (c.limit_mib === 0 && c.limit_percentage === 0) {
      issue(
        'limit_mib',
        'limit_mib or limit_percentage must be greater than zero; set one (e.g. limit_percentage: 80)',
      );
    }
    for (const key of ['limit_percentage', 'spike_limit_percentage'] as const) {
      if (c[key] > 100) issue(key, `(${c[key]}) must be at most 100`);
    }
    if (c.limit_mib > 0 && c.spike_limit_mib >= c.limit_mib) {
      issue(
        'spike_limit_mib',
        `(${c.spike_limit_mib}) must be smaller than limit_mib (${c.limit_mib}); about 20 % of it is usual`,
      );
    }
    if (c.limit_mib === 0 && c.limit_percentage > 0 && c.spike_limit_percentage >= c.limit_percentage) {
      issue(
        'spike_limit_percentage',
        `(${c.spike_limit_percentage}) must be smaller than limit_percentage (${c.limit_percentage})`,
      );
    }
  });

export type MemoryLimiterConfig = z.output<typeof memoryLimiterConfigSchema>;

/** The limits in bytes that a config means on this host. */
export interface MemoryLimits {
  readonly hardLimitBytes: number;
  readonly softLimitBytes: number;
  /** Set when the limits came from percentages: the total and where it was read. */
  readonly total?: MemoryTotal;
}

/** Resolves the configured limits to bytes: fixed MiB first, else percentages of the memory total. */
export function resolveMemoryLimits(
  config: MemoryLimiterConfig,
  total: () => MemoryTotal = () => readMemoryTotal(),
): MemoryLimits {
  if (config.limit_mib > 0) {
    const hard = config.limit_mib * MIB;
    const spike = config.spike_limit_mib > 0 ? config.spike_limit_mib * MIB : hard * DEFAULT_SPIKE_FRACTION;
    return { hardLimitBytes: hard, softLimitBytes: hard - spike };
  }
  const t = total();
  const hard = (t.bytes * config.limit_percentage) / 100;
  const spike =
    config.spike_limit_percentage > 0 ? (t.bytes * config.spike_limit_percentage) / 100 : hard * DEFAULT_SPIKE_FRACTION;
  return { hardLimitBytes: hard, softLimitBytes: hard - spike, total: t };
}
