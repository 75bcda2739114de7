import { noopLogger, type Logger } from '../component/logger.ts';
import { exposedGc } from '../component/exposed-gc.ts';
import { GUARD_HEAP_GROWING_PERCENT, holdHeapGrowth } from '../component/heap-growth.ts';
import { readMemoryUsageBytes } from '../pipeline/memory-usage.ts';

/** Least time between two collections the guard forces. 1000 ms. */
export const MIN_FORCED_GC_INTERVAL_MS = 1_000;

export interface MemoryGuardOptions {
  /** Measured memory (bytes) above which the guard collects garbage and, if still above, pauses reading. */
  readonly limitBytes: number;
  /** Time between measurements, ms. */
  readonly checkIntervalMs: number;
  /** Least time between forced collections, ms. Default MIN_FORCED_GC_INTERVAL_MS. */
  readonly minGcIntervalMs?: number;
  /** The measurement, bytes. Default heapUsed + external of this thread (pipeline/internal/memory-usage.ts). */
  readonly readUsage?: () => number;
  /** Forces a full collection. Default: V8's, obtained without a Node flag (component/exposed-gc.ts). */
  readonly gc?: (() => void) | undefined;
  /** Bounds V8's heap growth while the guard runs; returns the release. Default holdHeapGrowth(50 %). */
  readonly holdHeapGrowth?: () => (() => void) | undefined;
  /** Told when reading pauses (true) or resumes (false), with the measurement. */
  readonly onChange?: (paused: boolean, usageBytes: number) => void;
  readonly logger?: Logger;
  /** Clock, ms. Default `Date.now`. */
  readonly now?: () => number;
}

export interface MemoryGuardStats {
  readonly limitBytes: number;
  /** True while partitions wait before their next read. */
  readonly paused: boolean;
  /** The last measurement and the highest one seen, bytes. */
  readonly usageBytes: number;
  readonly maxUsageBytes: number;
  readonly forcedGcs: number;
  /** Times reading paused. */
  readonly pauses: number;
}

/**
 * Keeps the memory of the thread the receiver runs on near `limitBytes` without V8 flags from the user
 * (the receiver's `memory` section; docs/embedding.md#memory). While started it
 *
 * 1. bounds V8's heap growth (component/heap-growth.ts), so garbage does not pile up to several times
 *    the live data before a full collection, which is what makes an embedded receiver's RSS high;
 * 2. measures every `checkIntervalMs`; above the limit it forces a full collection (at most every
 *    `minGcIntervalMs`) and measures again;
 * 3. if the memory is still above the limit, pauses reading: every partition waits before its next
 *    receive (`whenReadable`) until a check finds the memory at or below the limit again. Batches in
 *    flight finish and are checkpointed as usual; the hub keeps what was not read, so nothing is lost.
 */
export class MemoryGuard {
  readonly #o: MemoryGuardOptions;
  readonly #read: () => number;
  readonly #gc: (() => void) | undefined;
  readonly #logger: Logger;
  readonly #now: () => number;
  #timer: NodeJS.Timeout | undefined;
  #releaseGrowth: (() => void) | undefined;
  /** Set while paused: resolves when reading may go on. */
  #resume: { promise: Promise<void>; resolve: () => void } | undefined;
  #lastGcAt = -Infinity;
  #usage = 0;
  #max = 0;
  #gcs = 0;
  #pauses = 0;

  constructor(options: MemoryGuardOptions) {
    if (!(options.limitBytes > 0)) throw new RangeError('limitBytes must be greater than zero');
    if (!(options.checkIntervalMs > 0)) throw new RangeError('checkIntervalMs must be greater than zero');
    this.#o = options;
    this.#read = options.readUsage ?? readMemoryUsageBytes;
    this.#gc = 'gc' in options ? options.gc : exposedGc();
    this.#logger = options.logger ?? noopLogger;
    this.#now = options.now ?? Date.now;
  }

  /** Starts measuring (and bounds heap growth). Idempotent. */
  start(): void {
    if (this.#timer) return;
    this.#releaseGrowth = (this.#o.holdHeapGrowth ?? (() => holdHeapGrowth(GUARD_HEAP_GROWING_PERCENT)))();
    this.#timer = setInterval(() => this.check(), this.#o.checkIntervalMs);
    this.#timer.unref();
    this.check();
  }

  /** Stops measuring, restores V8's heap growth, and lets every waiting partition read. Idempotent. */
  stop(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    this.#releaseGrowth?.();
    this.#releaseGrowth = undefined;
    // Partitions still waiting are stopping too: let them go without announcing a resume.
    this.#resume?.resolve();
    this.#resume = undefined;
  }

  /**
   * Undefined when reading may go on now; otherwise a promise that resolves when it may (or when
   * `signal` aborts, so a stopping partition never waits on memory).
   */
  whenReadable(signal: AbortSignal): Promise<void> | undefined {
    const resume = this.#resume;
    if (!resume || signal.aborted) return undefined;
    return new Promise<void>((resolve) => {
      const done = () => {
        signal.removeEventListener('abort', done);
        resolve();
      };
      signal.addEventListener('abort', done, { once: true });
      void resume.promise.then(done);
    });
  }

  /** One measurement (the timer calls it; public for tests). Returns whether reading is paused now. */
  check(): boolean {
    let usage = this.#measure();
    if (usage > this.#o.limitBytes && this.#gc) {
      const now = this.#now();
      if (now - this.#lastGcAt >= (this.#o.minGcIntervalMs ?? MIN_FORCED_GC_INTERVAL_MS)) {
        this.#lastGcAt = now;
        this.#gc();
        this.#gcs++;
        usage = this.#measure();
      }
    }
    this.#setPaused(usage > this.#o.limitBytes);
    return this.#resume !== undefined;
  }

  stats(): MemoryGuardStats {
    return {
      limitBytes: this.#o.limitBytes,
      paused: this.#resume !== undefined,
      usageBytes: this.#usage,
      maxUsageBytes: this.#max,
      forcedGcs: this.#gcs,
      pauses: this.#pauses,
    };
  }

  #measure(): number {
    const usage = this.#read();
    this.#usage = usage;
    if (usage > this.#max) this.#max = usage;
    return usage;
  }

  #setPaused(paused: boolean): void {
    if (paused === (this.#resume !== undefined)) return;
    const fields = { usage_mib: mib(this.#usage), limit_mib: mib(this.#o.limitBytes) };
    if (paused) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      this.#resume = { promise, resolve };
      this.#pauses++;
      this.#logger.warn(
        'memory above the limit after a collection; pausing reading (the hub holds the events)',
        fields,
      );
    } else {
      this.#resume!.resolve();
      this.#resume = undefined;
      this.#logger.info('memory at or below the limit; reading again', fields);
    }
    this.#o.onChange?.(paused, this.#usage);
  }
}

function mib(bytes: number): number {
  return Math.round(bytes / 1024 / 1024);
}
