import {
  DEFAULT_MIN_GC_INTERVAL_SOFT_MS,
  memoryLimiterConfigSchema,
  resolveMemoryLimits,
  type MemoryLimiterConfig,
} from './memory-limiter-config.ts';
import { MemoryLimiter } from './memory-limiter.ts';
import type { ProcessorFactory } from './processor-factory.ts';
import { SIGNALS } from '../pipeline/signals.ts';

/**
 * `memory_limiter`: refuses data (retryably; the pumps hold it and the hub keeps it) while the
 * process's memory is above the soft limit, with the collector's keys and validation. Put it first in
 * `processors`, as in the collector.
 */
export const memoryLimiterProcessorFactory: ProcessorFactory<MemoryLimiterConfig> = {
  type: 'memory_limiter',
  stability: 'beta',
  signals: SIGNALS,
  configSchema: memoryLimiterConfigSchema,
  createDefaultConfig: () => ({
    check_interval: 0,
    limit_mib: 0,
    spike_limit_mib: 0,
    limit_percentage: 0,
    spike_limit_percentage: 0,
    min_gc_interval_when_soft_limited: DEFAULT_MIN_GC_INTERVAL_SOFT_MS,
    min_gc_interval_when_hard_limited: 0,
  }),
  async create(settings, config, next) {
    const limits = resolveMemoryLimits(config);
    const mib = (bytes: number) => Math.round(bytes / 1024 / 1024);
    settings.logger.info('memory limiter configured', {
      limit_mib: mib(limits.hardLimitBytes),
      spike_limit_mib: mib(limits.hardLimitBytes - limits.softLimitBytes),
      check_interval_ms: config.check_interval,
      ...(limits.total ? { total_memory_mib: mib(limits.total.bytes), total_memory_source: limits.total.source } : {}),
      gc_exposed: typeof (globalThis as { gc?: unknown }).gc === 'function',
    });
    return new MemoryLimiter(next, {
      checkIntervalMs: config.check_interval,
      hardLimitBytes: limits.hardLimitBytes,
      softLimitBytes: limits.softLimitBytes,
      minGcIntervalSoftMs: config.min_gc_interval_when_soft_limited,
      minGcIntervalHardMs: config.min_gc_interval_when_hard_limited,
      logger: settings.logger,
    });
  },
};
