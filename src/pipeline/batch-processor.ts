import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { z } from 'zod';
import { durationMs } from '../config/duration.ts';
import type { LogsConsumer } from './consumer.ts';
import type { BatchSource, LogBatch } from './log-batch.ts';
import { abortReason } from '../component/abort.ts';

/** Records that trigger an export regardless of the timeout. 8192, as the collector's `batch` processor. */
export const DEFAULT_SEND_BATCH_SIZE = 8_192;
/** Upper bound of records per export; larger ones are split. 0 = no bound. */
export const DEFAULT_SEND_BATCH_MAX_SIZE = 0;
/** Longest a record waits for more to join its export. 200 ms. */
export const DEFAULT_BATCH_TIMEOUT_MS = 200;

export interface BatchProcessorOptions {
  /** Export as soon as this many records are pending. Default 8192 records. */
  readonly sendBatchSize?: number;
  /** Split exports larger than this. Default 0 records (no limit); when set, at least `sendBatchSize`. */
  readonly sendBatchMaxSize?: number;
  /** Export whatever is pending this long after the first record arrived. Default 200 ms; 0 = export at once. */
  readonly timeoutMs?: number;
  /** Exports running at the same time. Default 1, as the collector's processor (one sender). */
  readonly maxConcurrentExports?: number;
}

interface Caller {
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  /** Records of this caller not yet handed to an export. */
  pendingRecords: number;
  /** Exports holding some of this caller's records and not yet settled. */
  inFlight: number;
  settled: boolean;
  readonly exports: Set<Export>;
}

interface Part {
  readonly caller: Caller;
  readonly source: BatchSource;
  records: readonly ReadableLogRecord[];
}

interface Export {
  readonly callers: Set<Caller>;
  readonly controller: AbortController;
}

/**
 * The collector's `batch` processor as a `LogsConsumer` wrapper: batches arriving from several partitions
 * are combined into one export of up to `sendBatchSize` records (or whatever arrived within `timeoutMs`).
 *
 * At-least-once survives batching: each caller's promise resolves only after every export holding its
 * records resolved, and rejects with that export's error (a caller whose batch was split rejects at the
 * first failed part; its not-yet-exported records are dropped, since the caller will send them again).
 * Nothing is queued beyond what callers are waiting on: each caller (a partition pump) has one batch in
 * flight, so memory is bounded by the callers' batches, and while an export is slow they all wait.
 *
 * The combined batch's `source` is the common source when all parts come from one partition (sequence
 * range widened); otherwise partition ids are joined with ',' and the sequence numbers are -1.
 */
export class BatchProcessor implements LogsConsumer {
  readonly #next: LogsConsumer;
  readonly #sendBatchSize: number;
  readonly #sendBatchMaxSize: number;
  readonly #timeoutMs: number;
  readonly #maxConcurrent: number;
  #pending: Part[] = [];
  #pendingCount = 0;
  #inFlight = 0;
  #flushDue = false;
  #timer: NodeJS.Timeout | undefined;
  #idleWaiters: (() => void)[] = [];
  #closed = false;
  #shutdownPromise: Promise<void> | undefined;

  constructor(next: LogsConsumer, options: BatchProcessorOptions = {}) {
    this.#next = next;
    this.#sendBatchSize = options.sendBatchSize ?? DEFAULT_SEND_BATCH_SIZE;
    this.#sendBatchMaxSize = options.sendBatchMaxSize ?? DEFAULT_SEND_BATCH_MAX_SIZE;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_BATCH_TIMEOUT_MS;
    this.#maxConcurrent = Math.max(1, options.maxConcurrentExports ?? 1);
    if (this.#sendBatchMaxSize > 0 && this.#sendBatchMaxSize < this.#sendBatchSize) {
      throw new RangeError(`sendBatchMaxSize (${this.#sendBatchMaxSize}) must be 0 or at least sendBatchSize (${this.#sendBatchSize})`);
    }
  }

  consume(batch: LogBatch, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.#closed) return Promise.reject(new Error('batch processor is shut down'));
    if (batch.records.length === 0) return Promise.resolve();
    return new Promise<void>((resolve, reject) => {
      const caller: Caller = {
        resolve: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        reject: (error) => {
          signal?.removeEventListener('abort', onAbort);
          reject(error);
        },
        pendingRecords: batch.records.length,
        inFlight: 0,
        settled: false,
        exports: new Set(),
      };
      const onAbort = () => this.#fail(caller, abortReason(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#pending.push({ caller, source: batch.source, records: batch.records });
      this.#pendingCount += batch.records.length;
      this.#pump();
    });
  }

  /** Exports everything pending now and waits for all exports, then flushes the next consumer. */
  async forceFlush(): Promise<void> {
    this.#flushDue = true;
    this.#pump();
    await this.#idle();
    await this.#next.forceFlush?.();
  }

  /** Stops accepting batches, exports what is pending, waits, then shuts the next consumer down. Idempotent. */
  shutdown(): Promise<void> {
    this.#shutdownPromise ??= (async () => {
      this.#closed = true;
      await this.forceFlush();
      await this.#next.shutdown?.();
    })();
    return this.#shutdownPromise;
  }

  #pump(): void {
    while (this.#inFlight < this.#maxConcurrent && this.#pendingCount > 0 && (this.#flushDue || this.#timeoutMs === 0 || this.#pendingCount >= this.#sendBatchSize)) {
      const limit = this.#sendBatchMaxSize > 0 ? Math.min(this.#sendBatchMaxSize, this.#pendingCount) : this.#pendingCount;
      this.#startExport(this.#take(limit));
    }
    if (this.#pendingCount === 0) {
      this.#flushDue = false;
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
    } else if (!this.#timer && !this.#flushDue && this.#timeoutMs > 0) {
      // Records left behind (below send_batch_size, or waiting for a free export slot) go at the latest
      // one timeout from now.
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#flushDue = true;
        this.#pump();
      }, this.#timeoutMs);
      this.#timer.unref();
    }
    this.#checkIdle();
  }

  /** Removes up to `limit` records from the front of the queue, splitting the last part if needed. */
  #take(limit: number): Part[] {
    const taken: Part[] = [];
    let room = limit;
    while (room > 0 && this.#pending.length > 0) {
      const part = this.#pending[0]!;
      if (part.records.length <= room) {
        this.#pending.shift();
        taken.push(part);
        room -= part.records.length;
      } else {
        taken.push({ caller: part.caller, source: part.source, records: part.records.slice(0, room) });
        part.records = part.records.slice(room);
        room = 0;
      }
    }
    const count = limit - room;
    this.#pendingCount -= count;
    for (const part of taken) part.caller.pendingRecords -= part.records.length;
    return taken;
  }

  #startExport(parts: Part[]): void {
    const exp: Export = { callers: new Set(parts.map((p) => p.caller)), controller: new AbortController() };
    for (const caller of exp.callers) {
      caller.inFlight++;
      caller.exports.add(exp);
    }
    const batch: LogBatch = { records: parts.flatMap((p) => p.records), source: combineSources(parts.map((p) => p.source)) };
    this.#inFlight++;
    let result: Promise<void>;
    try {
      result = this.#next.consume(batch, exp.controller.signal);
    } catch (error) {
      result = Promise.reject(error);
    }
    result.then(
      () => this.#finishExport(exp, undefined),
      (error: unknown) => this.#finishExport(exp, error ?? new Error('export failed')),
    );
  }

  #finishExport(exp: Export, error: unknown): void {
    this.#inFlight--;
    for (const caller of exp.callers) {
      caller.inFlight--;
      caller.exports.delete(exp);
      if (error !== undefined) this.#fail(caller, error);
      else if (!caller.settled && caller.inFlight === 0 && caller.pendingRecords === 0) {
        caller.settled = true;
        caller.resolve();
      }
    }
    this.#pump();
  }

  /** Rejects a caller, drops its records not yet exported, and aborts exports no live caller waits on. */
  #fail(caller: Caller, error: unknown): void {
    if (caller.settled) return;
    caller.settled = true;
    if (caller.pendingRecords > 0) {
      this.#pending = this.#pending.filter((p) => p.caller !== caller);
      this.#pendingCount -= caller.pendingRecords;
      caller.pendingRecords = 0;
    }
    for (const exp of caller.exports) {
      if ([...exp.callers].every((c) => c.settled)) exp.controller.abort(error);
    }
    caller.reject(error);
    this.#checkIdle();
  }

  #idle(): Promise<void> {
    if (this.#pendingCount === 0 && this.#inFlight === 0) return Promise.resolve();
    return new Promise((resolve) => this.#idleWaiters.push(resolve));
  }

  #checkIdle(): void {
    if (this.#pendingCount !== 0 || this.#inFlight !== 0) return;
    const waiters = this.#idleWaiters;
    this.#idleWaiters = [];
    for (const w of waiters) w();
  }
}

/** One source for a combined batch (see the class comment). */
function combineSources(sources: readonly BatchSource[]): BatchSource {
  const first = sources[0]!;
  const samePartition = sources.every(
    (s) => s.partitionId === first.partitionId && s.eventHubName === first.eventHubName && s.namespace === first.namespace && s.consumerGroup === first.consumerGroup,
  );
  if (samePartition) {
    return {
      ...first,
      firstSequenceNumber: Math.min(...sources.map((s) => s.firstSequenceNumber)),
      lastSequenceNumber: Math.max(...sources.map((s) => s.lastSequenceNumber)),
    };
  }
  const join = (pick: (s: BatchSource) => string) => [...new Set(sources.map(pick))].join(',');
  return {
    namespace: join((s) => s.namespace),
    eventHubName: join((s) => s.eventHubName),
    consumerGroup: join((s) => s.consumerGroup),
    partitionId: join((s) => s.partitionId),
    firstSequenceNumber: -1,
    lastSequenceNumber: -1,
  };
}

/** The YAML section of the `batch` processor, with the collector's keys and defaults. */
export const batchProcessorConfigSchema = z
  .strictObject({
    send_batch_size: z.number().int().positive().default(DEFAULT_SEND_BATCH_SIZE),
    send_batch_max_size: z.number().int().min(0).default(DEFAULT_SEND_BATCH_MAX_SIZE),
    timeout: durationMs.default(DEFAULT_BATCH_TIMEOUT_MS),
  })
  .refine((c) => c.send_batch_max_size === 0 || c.send_batch_max_size >= c.send_batch_size, {
    message: 'send_batch_max_size must be 0 or at least send_batch_size; raise it or lower send_batch_size',
    path: ['send_batch_max_size'],
  });

export type BatchProcessorConfig = z.output<typeof batchProcessorConfigSchema>;

/** Wraps `next` in a batch processor configured from the parsed YAML section. */
export function createBatchProcessor(next: LogsConsumer, config: BatchProcessorConfig): BatchProcessor {
  return new BatchProcessor(next, {
    sendBatchSize: config.send_batch_size,
    sendBatchMaxSize: config.send_batch_max_size,
    timeoutMs: config.timeout,
  });
}
