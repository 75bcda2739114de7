import { DataRefusedError } from '../component/errors.ts';
import { noopLogger, type Logger } from '../component/logger.ts';
import { exposedGc } from '../component/exposed-gc.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import { batchItemCount, type SignalBatch } from '../pipeline/signal-batch.ts';
import { readMemoryUsageBytes } from '../pipeline/memory-usage.ts';

/** The refusal message, as the collector's `ErrDataRefused`. */
export const DATA_REFUSED_MESSAGE = 'data refused due to high memory usage';

export interface MemoryLimiterOptions {
  /** Time between measurements, ms. Required, > 0. */
  readonly checkIntervalMs: number;
  /** Above this (bytes) a check forces a collection when it can. */
  readonly hardLimitBytes: number;
  /** Above this (bytes) data is refused until a check finds usage below it again. */
  readonly softLimitBytes: number;
  /** Least time between forced collections above the soft limit, ms. Default 10 000. */
  readonly minGcIntervalSoftMs?: number;
  /** Least time between forced collections above the hard limit, ms. Default 0. */
  readonly minGcIntervalHardMs?: number;
  /** The measurement, bytes. Default heapUsed + external (internal/memory-usage.ts). */
  readonly readUsage?: () => number;
  /** Forces a collection. Default `globalThis.gc` when Node runs with --expose-gc, else none. */
  readonly gc?: (() => void) | undefined;
  readonly logger?: Logger;
  /** Clock, ms. Default `Date.now`. */
  readonly now?: () => number;
}

export interface MemoryLimiterStats {
  readonly refusing: boolean;
  /** The last measurement and the highest one seen, bytes. */
  readonly lastUsageBytes: number;
  readonly maxUsageBytes: number;
  readonly checks: number;
  readonly forcedGcs: number;
  readonly refusedBatches: number;
  /** Items of the refused batches: log records, metric points and spans. */
  readonly refusedRecords: number;
}

/**
 * The collector's `memory_limiter` as a logs consumer in front of `next`. Every `checkIntervalMs` it
 * measures memory; above the soft limit (hard − spike) it refuses every batch with a `DataRefusedError`
 * until a check finds usage below the soft limit again. The partition pumps hold a refused batch and
 * retry it later (never dead-letter it), so the hub keeps the data meanwhile and nothing is checkpointed
 * past it. Above the hard limit, and at most every `minGcIntervalSoftMs` above the soft limit, a check
 * forces a garbage collection when one is exposed (`node --expose-gc`) and measures again.
 */
export class MemoryLimiter implements SignalConsumer {
  readonly #next: SignalConsumer;
  readonly #o: MemoryLimiterOptions;
  readonly #read: () => number;
  readonly #gc: (() => void) | undefined;
  readonly #logger: Logger;
  readonly #now: () => number;
  readonly #timer: NodeJS.Timeout;
  #refusing = false;
  #lastGcAt = -Infinity;
  #last = 0;
  #max = 0;
  #checks = 0;
  #gcs = 0;
  #refusedBatches = 0;
  #refusedRecords = 0;

  constructor(next: SignalConsumer, options: MemoryLimiterOptions) {
    if (!(options.checkIntervalMs > 0)) throw new RangeError('checkIntervalMs must be greater than zero');
    if (!(options.softLimitBytes <= options.hardLimitBytes))
      throw new RangeError('softLimitBytes must not exceed hardLimitBytes');
    this.#next = next;
    this.#o = options;
    this.#read = options.readUsage ?? readMemoryUsageBytes;
    this.#gc = 'gc' in options ? options.gc : exposedGc();
    this.#logger = options.logger ?? noopLogger;
    this.#now = options.now ?? Date.now;
    this.check();
    this.#timer = setInterval(() => this.check(), options.checkIntervalMs);
    this.#timer.unref();
  }

  /** Passes batches through, counting only: takes encoded log records when what follows does. */
  get acceptsEncodedLogs(): boolean {
    return this.#next.acceptsEncodedLogs === true;
  }

  async consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
    if (this.#refusing) {
      this.#refusedBatches++;
      this.#refusedRecords += batchItemCount(batch);
      throw new DataRefusedError(DATA_REFUSED_MESSAGE);
    }
    return this.#next.consume(batch, signal);
  }

  /** One measurement (the timer calls it; public for tests). Returns whether data is refused now. */
  check(): boolean {
    const o = this.#o;
    this.#checks++;
    let usage = this.#measure();
    if (usage > o.hardLimitBytes) usage = this.#collect(usage, o.minGcIntervalHardMs ?? 0);
    if (usage > o.softLimitBytes) usage = this.#collect(usage, o.minGcIntervalSoftMs ?? 10_000);
    const refusing = usage > o.softLimitBytes;
    if (refusing !== this.#refusing) {
      const fields = {
        usage_mib: mib(usage),
        soft_limit_mib: mib(o.softLimitBytes),
        hard_limit_mib: mib(o.hardLimitBytes),
      };
      if (refusing) this.#logger.warn('memory usage above the soft limit; refusing data (the hub holds it)', fields);
      else this.#logger.info('memory usage below the soft limit; accepting data again', fields);
    }
    this.#refusing = refusing;
    return refusing;
  }

  stats(): MemoryLimiterStats {
    return {
      refusing: this.#refusing,
      lastUsageBytes: this.#last,
      maxUsageBytes: this.#max,
      checks: this.#checks,
      forcedGcs: this.#gcs,
      refusedBatches: this.#refusedBatches,
      refusedRecords: this.#refusedRecords,
    };
  }

  forceFlush(): Promise<void> {
    return this.#next.forceFlush?.() ?? Promise.resolve();
  }

  async shutdown(): Promise<void> {
    clearInterval(this.#timer);
    await this.#next.shutdown?.();
  }

  attachProducer(): () => void {
    return this.#next.attachProducer?.() ?? (() => {});
  }

  #measure(): number {
    const usage = this.#read();
    this.#last = usage;
    if (usage > this.#max) this.#max = usage;
    return usage;
  }

  /** Forces a collection when one is exposed and `minIntervalMs` passed since the last; the new usage. */
  #collect(usage: number, minIntervalMs: number): number {
    const now = this.#now();
    if (!this.#gc || now - this.#lastGcAt < minIntervalMs) return usage;
    this.#lastGcAt = now;
    this.#gc();
    this.#gcs++;
    this.#logger.debug('memory limiter forced a garbage collection', { usage_mib: mib(usage) });
    return this.#measure();
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}
