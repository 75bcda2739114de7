import { Worker } from 'node:worker_threads';
import type { ReceivedEvent } from '../../backends/consumer.ts';
import type { DecodeContext, DecoderOptions, DecodeStats } from '../../decode/decoder.ts';
import type { Logger } from '../../component/logger.ts';
import type { EncodedLogs } from '../../pipeline/signal-batch.ts';
import { usableCores } from '../../component/usable-cores.ts';
import { packDecodeJob } from './decode-job.ts';

/**
 * Heap of each decode thread. A job holds one batch (its events, records and bytes), so the old generation
 * stays small; without limits V8 sizes a thread like a process (growing the heap up to 4× its live data
 * before a full collection, and a 48 MiB young generation), which cost 70 MiB of peak RSS per thread in the
 * pipeline bench; with these, about 25 MiB. A batch too large for them ends the thread (out of memory): the
 * partition decodes that batch itself, as after any thread death. Old 128 MiB, young 8 MiB.
 */
const DECODE_THREAD_LIMITS = { maxOldGenerationSizeMb: 128, maxYoungGenerationSizeMb: 8 };

/** Consecutive worker deaths (no job answered in between) after which the pool stops restarting them. 5. */
export const MAX_CONSECUTIVE_WORKER_FAILURES = 5;

export type DecodeJobResult =
  | {
      readonly id: number;
      readonly bytes: Uint8Array;
      readonly records: number;
      readonly metricPoints: number;
      readonly spans: number;
      readonly stats: DecodeStats;
    }
  | { readonly id: number; readonly error: string };

/** What a job gives back: the log records as an OTLP request, and what the receiver counts. */
export interface EncodedDecode {
  readonly encodedLogs: EncodedLogs;
  /** Metric points and spans decoded (a logs-only receiver's decoder makes none; counted if it did). */
  readonly metricPoints: number;
  readonly spans: number;
  readonly stats: DecodeStats;
}

/**
 * Most decode threads `auto` starts per receiver: 2. The pipeline's thread still receives, batches and sends
 * (about 22 µs per event in the pipeline bench, against about 30 µs of decoding and encoding on a decode
 * thread), so two decode threads keep it saturated; more would wait on it.
 */
export const MAX_AUTO_DECODE_WORKERS = 2;

/**
 * Decode threads for `decode_workers`: `auto` is one fewer than the cores this process may use
 * (usable-cores.ts: CPU affinity and a container's CPU quota), at most MAX_AUTO_DECODE_WORKERS, since the
 * pipeline's own thread keeps one core busy: none on a single core, where a thread would only add
 * hand-offs; 0 is off; a number is that many.
 */
export function decodeWorkerCount(setting: 'auto' | number, cores = usableCores()): number {
  if (setting === 'auto') return Math.min(MAX_AUTO_DECODE_WORKERS, Math.max(0, cores - 1));
  return Math.max(0, Math.floor(setting));
}

export interface DecodePoolOptions {
  /** Threads. At least 1. */
  readonly size: number;
  /** The receiver's decoder options, as given to `createDecoder` (structured-cloneable: no `now`). */
  readonly decoder: DecoderOptions;
  readonly logger: Logger;
  /** The worker's module, for tests. Default decode-worker next to this file. */
  readonly entry?: URL;
}

interface Slot {
  worker: Worker;
  readonly jobs: Map<number, { resolve: (r: EncodedDecode) => void; reject: (e: Error) => void }>;
}

/**
 * Worker threads that decode events and encode the log records as OTLP protobuf, off the pipeline's thread.
 * A job goes to the thread with the fewest jobs; callers bound what they send (a partition pump has at most
 * two jobs out: the batch being exported and the next), and await their own jobs in order, so each
 * partition's batches stay in order whatever thread ran them. A thread that dies fails its jobs (the pump
 * then decodes those batches itself) and is replaced at the next job; after
 * MAX_CONSECUTIVE_WORKER_FAILURES deaths in a row the pool turns itself off and every job fails at once.
 */
export class DecodePool {
  readonly #o: DecodePoolOptions;
  readonly #slots: (Slot | undefined)[];
  #nextId = 1;
  #failures = 0;
  #closed = false;

  constructor(options: DecodePoolOptions) {
    if (!(options.size >= 1)) throw new RangeError(`decode pool size (${options.size}) must be at least 1`);
    this.#o = options;
    this.#slots = Array.from({ length: options.size }, () => undefined);
  }

  get size(): number {
    return this.#o.size;
  }

  /** False once closed, or after repeated worker deaths: callers decode on their own thread. */
  get usable(): boolean {
    return !this.#closed && this.#failures < MAX_CONSECUTIVE_WORKER_FAILURES;
  }

  /** Decodes and encodes `events` on a worker. Rejects when the worker fails or dies, or the pool is closed. */
  run(events: readonly ReceivedEvent[], context: DecodeContext): Promise<EncodedDecode> {
    if (!this.usable) return Promise.reject(new Error('decode workers are off'));
    const index = this.#leastBusy();
    const slot = (this.#slots[index] ??= this.#spawn(index));
    const id = this.#nextId++;
    return new Promise<EncodedDecode>((resolve, reject) => {
      slot.jobs.set(id, { resolve, reject });
      // A thread with work holds the process open until it answers; an idle one does not.
      if (slot.jobs.size === 1) slot.worker.ref();
      try {
        const { job, transfer } = packDecodeJob(id, events, context);
        slot.worker.postMessage(job, transfer);
      } catch (error) {
        // e.g. a property value that cannot be cloned: this batch is decoded by the caller.
        slot.jobs.delete(id);
        if (slot.jobs.size === 0) slot.worker.unref();
        reject(error instanceof Error ? error : new Error(String(error)));
      }
    });
  }

  /** Stops the threads; jobs still out fail (their callers decode them). Idempotent. */
  async close(): Promise<void> {
    this.#closed = true;
    const slots = this.#slots.splice(0).filter((s): s is Slot => s !== undefined);
    await Promise.all(
      slots.map(async (slot) => {
        this.#failAll(slot, new Error('decode workers closed'));
        await slot.worker.terminate();
      }),
    );
  }

  #leastBusy(): number {
    let best = 0;
    for (let i = 1; i < this.#slots.length; i++) {
      if ((this.#slots[i]?.jobs.size ?? 0) < (this.#slots[best]?.jobs.size ?? 0)) best = i;
    }
    return best;
  }

  #spawn(index: number): Slot {
    const worker = startWorker(this.#o.entry, { decoder: this.#o.decoder });
    // The receiver keeps the process alive; an idle decode thread must not (see run()).
    worker.unref();
    const slot: Slot = { worker, jobs: new Map() };
    worker.on('message', (result: DecodeJobResult) => {
      const job = slot.jobs.get(result.id);
      if (!job) return;
      slot.jobs.delete(result.id);
      if (slot.jobs.size === 0) worker.unref();
      if ('error' in result) {
        job.reject(new Error(`decode worker: ${result.error}`));
        return;
      }
      this.#failures = 0;
      job.resolve({
        encodedLogs: { bytes: result.bytes, records: result.records },
        metricPoints: result.metricPoints,
        spans: result.spans,
        stats: result.stats,
      });
    });
    let dead = false;
    const died = (why: string) => {
      // An error is followed by an exit: one death.
      if (dead) return;
      dead = true;
      if (this.#slots[index] === slot) this.#slots[index] = undefined;
      if (this.#closed) return;
      this.#failures++;
      this.#o.logger.warn('decode worker thread ended; its batches are decoded on the pipeline thread', {
        reason: why,
        jobs: slot.jobs.size,
        consecutiveFailures: this.#failures,
        ...(this.usable ? {} : { hint: 'decode workers turned off after repeated failures; set decode_workers: 0' }),
      });
      this.#failAll(slot, new Error(`decode worker ended: ${why}`));
    };
    worker.on('error', (error) => died(error.message));
    worker.on('exit', (code) => died(`exit code ${code}`));
    return slot;
  }

  #failAll(slot: Slot, error: Error): void {
    const jobs = [...slot.jobs.values()];
    slot.jobs.clear();
    for (const job of jobs) job.reject(error);
  }
}

/**
 * The worker from dist/ (.js next to this file), or, run from the sources under tsx, through tsx's loader,
 * which the thread must install itself (Node 20 applies no `--import` hooks to a worker; see run-in-worker.ts).
 */
function startWorker(entry: URL | undefined, workerData: unknown): Worker {
  const options = { workerData, resourceLimits: DECODE_THREAD_LIMITS };
  const fromSource = import.meta.url.endsWith('.ts');
  const module = entry ?? new URL(fromSource ? './decode-worker.ts' : './decode-worker.js', import.meta.url);
  if (!module.href.endsWith('.ts')) return new Worker(module, options);
  const api = JSON.stringify(import.meta.resolve('tsx/esm/api'));
  const code = `import(${api}).then(({ register }) => { register(); return import(${JSON.stringify(module.href)}); })`;
  return new Worker(code, { ...options, eval: true });
}
