import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import {
  batchItemCount,
  concatEncodedLogs,
  type BatchSource,
  type EncodedLogs,
  type SignalBatch,
} from '../pipeline/signal-batch.ts';
import type { MetricPoint, SpanRecord } from '../pipeline/signals.ts';
import { abortReason } from '../component/abort.ts';
import { combineSources } from './internal/combine-sources.ts';
import { isPartialRefusal, PartialRefusalError, type Refusal } from '../pipeline/partial-refusal.ts';

/**
 * Items (log records, metric points and spans together) that trigger an export regardless of the timeout.
 * 8192, as the collector's `batch` processor.
 */
export const DEFAULT_SEND_BATCH_SIZE = 8_192;
/** Upper bound of items per export; larger ones are split. 0 = no bound. */
export const DEFAULT_SEND_BATCH_MAX_SIZE = 0;
/** Longest a record waits for more to join its export. 200 ms. */
export const DEFAULT_BATCH_TIMEOUT_MS = 200;
/** Exports running at the same time. 1, as the collector's processor (one sender). */
export const DEFAULT_MAX_CONCURRENT_EXPORTS = 1;

export interface BatchProcessorOptions {
  /** Export as soon as this many items (all signals) are pending. Default 8192 items. */
  readonly sendBatchSize?: number;
  /** Split exports larger than this. Default 0 items (no limit); when set, at least `sendBatchSize`. */
  readonly sendBatchMaxSize?: number;
  /** Export whatever is pending this long after the first record arrived. Default 200 ms; 0 = export at once. */
  readonly timeoutMs?: number;
  /** Exports running at the same time; an integer ≥ 1. Default 1 (one sender, as the collector's processor). */
  readonly maxConcurrentExports?: number;
}

interface Caller {
  readonly resolve: () => void;
  readonly reject: (error: unknown) => void;
  /** Items of this caller not yet handed to an export. */
  pendingItems: number;
  /** Exports holding some of this caller's items and not yet settled. */
  inFlight: number;
  /** Items of this caller's batch. */
  readonly total: number;
  /** Items of this caller that exports refused while delivering the rest (partial refusals). */
  readonly refusals: Refusal[];
  settled: boolean;
  readonly exports: Set<Export>;
}

/**
 * What is left of one caller's batch; a caller has at most one part pending. Its items are taken in one
 * order (records, then metric points, then spans), so a split keeps each signal's items in order.
 */
interface Part {
  readonly caller: Caller;
  readonly source: BatchSource;
  records: readonly ReadableLogRecord[];
  metrics: readonly MetricPoint[];
  spans: readonly SpanRecord[];
  /** Log records encoded off-thread; never split (see #take). */
  readonly encoded?: EncodedLogs;
}

function partSize(part: Part): number {
  return part.records.length + part.metrics.length + part.spans.length + (part.encoded?.records ?? 0);
}

/** The first `count` items of `part` as a new part; `part` keeps the rest. */
function splitPart(part: Part, count: number): Part {
  const records = part.records.slice(0, count);
  const metrics = part.metrics.slice(0, count - records.length);
  const spans = part.spans.slice(0, count - records.length - metrics.length);
  part.records = part.records.slice(records.length);
  part.metrics = part.metrics.slice(metrics.length);
  part.spans = part.spans.slice(spans.length);
  return { caller: part.caller, source: part.source, records, metrics, spans };
}

interface Export {
  readonly parts: readonly Part[];
  readonly callers: Set<Caller>;
  readonly controller: AbortController;
}

/**
 * The collector's `batch` processor as a `SignalConsumer` wrapper: batches arriving from several partitions
 * are combined into fewer, larger exports. Sizes count items over all signals (log records, metric points,
 * spans), as the collector counts each pipeline's items; a pipeline's head sees one signal (signal-router.ts),
 * but a batch carrying several is combined and split the same way. An export starts when any of these holds:
 * - `sendBatchSize` items are pending;
 * - `timeoutMs` passed since the oldest pending record arrived (0: at once);
 * - as many callers wait on this processor as producers are attached with `attachProducer()` (one per
 *   partition pump with a backlog): with one call each, nothing more can arrive until an export settles;
 *   a pump with several batches in flight (`max_batches_in_flight`) counts each, so the export starts
 *   while the pumps decode their next batches. Waiting out the timer would only stall them all. While
 *   an export runs, only callers with records still pending count, so a second export slot leaves with
 *   a batch from every producer, not with the first one handed over.
 *   With no producer attached (a library calling `consume` directly) only the first two apply.
 *
 * At-least-once survives batching: each caller's promise resolves only after every export holding its
 * records resolved, and rejects with that export's error (a caller whose batch was split rejects at the
 * first failed part; its not-yet-exported records are dropped, since the caller will send them again).
 * An export that delivered some records and refused others for good (a `PartialRefusalError`) counts as
 * done for its callers; each caller whose own records were among the refused rejects, once all its parts
 * are done, with a `PartialRefusalError` of just those records.
 * Nothing is queued beyond what callers are waiting on: each caller (a partition pump) has a bounded
 * number of batches in flight, so memory is bounded by the callers' batches, and while exports are slow
 * they all wait.
 *
 * Up to `maxConcurrentExports` exports run at once. A caller's batch split by `sendBatchMaxSize` goes out
 * in order, one part at a time: a part never starts while an earlier part of the same batch is in flight.
 * Towards `next`, this processor attaches itself as that many producers, so a processor behind it does not
 * wait on its timer either.
 *
 * The combined batch's `source` is the common source when all parts come from one partition (sequence
 * range widened); otherwise partition ids are joined with ',' and the sequence numbers are -1.
 */
export class BatchProcessor implements SignalConsumer {
  readonly #next: SignalConsumer;
  readonly #sendBatchSize: number;
  readonly #sendBatchMaxSize: number;
  readonly #timeoutMs: number;
  readonly #maxConcurrent: number;
  readonly #detachFromNext: ((() => void) | undefined)[];
  #pending: Part[] = [];
  #pendingCount = 0;
  #inFlight = 0;
  /** Producers attached and not detached. */
  #producers = 0;
  /** Callers that called `consume` and are not settled yet. */
  #waiting = 0;
  #flushDue = false;
  #timer: NodeJS.Timeout | undefined;
  #idleWaiters: (() => void)[] = [];
  #closed = false;
  #shutdownPromise: Promise<void> | undefined;

  constructor(next: SignalConsumer, options: BatchProcessorOptions = {}) {
    this.#next = next;
    this.#sendBatchSize = options.sendBatchSize ?? DEFAULT_SEND_BATCH_SIZE;
    this.#sendBatchMaxSize = options.sendBatchMaxSize ?? DEFAULT_SEND_BATCH_MAX_SIZE;
    this.#timeoutMs = options.timeoutMs ?? DEFAULT_BATCH_TIMEOUT_MS;
    this.#maxConcurrent = options.maxConcurrentExports ?? DEFAULT_MAX_CONCURRENT_EXPORTS;
    if (this.#sendBatchMaxSize > 0 && this.#sendBatchMaxSize < this.#sendBatchSize) {
      throw new RangeError(
        `sendBatchMaxSize (${this.#sendBatchMaxSize}) must be 0 or at least sendBatchSize (${this.#sendBatchSize})`,
      );
    }
    if (!Number.isInteger(this.#maxConcurrent) || this.#maxConcurrent < 1) {
      throw new RangeError(`maxConcurrentExports (${this.#maxConcurrent}) must be an integer of at least 1`);
    }
    // Each export slot is one caller of `next` with at most one call outstanding.
    this.#detachFromNext = Array.from({ length: this.#maxConcurrent }, () => next.attachProducer?.());
  }

  consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted) return Promise.reject(abortReason(signal));
    if (this.#closed) return Promise.reject(new Error('batch processor is shut down'));
    const items = batchItemCount(batch);
    if (items === 0) return Promise.resolve();
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
        pendingItems: items,
        inFlight: 0,
        total: items,
        refusals: [],
        settled: false,
        exports: new Set(),
      };
      const onAbort = () => this.#fail(caller, abortReason(signal!));
      signal?.addEventListener('abort', onAbort, { once: true });
      this.#waiting++;
      this.#pending.push({
        caller,
        source: batch.source,
        records: batch.records,
        metrics: batch.metrics ?? [],
        spans: batch.spans ?? [],
        ...(batch.encodedLogs ? { encoded: batch.encodedLogs } : {}),
      });
      this.#pendingCount += items;
      this.#pump();
    });
  }

  /**
   * Batches pass through untouched, combined by concatenation, so encoded log records are taken when the
   * next stage takes them, unless `sendBatchMaxSize` may have to split a batch (encoded records cannot be).
   */
  get acceptsEncodedLogs(): boolean {
    return this.#sendBatchMaxSize === 0 && this.#next.acceptsEncodedLogs === true;
  }

  /**
   * Counts one more upstream caller (see `SignalConsumer`); once as many calls wait as callers are
   * attached, pending records are exported without waiting for the timeout.
   */
  attachProducer(): () => void {
    this.#producers++;
    let attached = true;
    return () => {
      if (!attached) return;
      attached = false;
      this.#producers--;
      // The callers still waiting may now be all there is.
      this.#pump();
    };
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
      for (const detach of this.#detachFromNext) detach?.();
      await this.#next.shutdown?.();
    })();
    return this.#shutdownPromise;
  }

  #pump(): void {
    while (this.#inFlight < this.#maxConcurrent) {
      const ready = this.#exportableCount();
      if (ready === 0 || !this.#due(ready)) break;
      this.#startExport(this.#take(this.#sendBatchMaxSize > 0 ? Math.min(this.#sendBatchMaxSize, ready) : ready));
    }
    if (this.#pendingCount === 0) {
      this.#flushDue = false;
      if (this.#timer) clearTimeout(this.#timer);
      this.#timer = undefined;
    } else if (!this.#timer && !this.#flushDue && this.#timeoutMs > 0) {
      // Records left behind (below send_batch_size with producers still to come, or waiting for a free
      // export slot or for an earlier part of their batch) go at the latest one timeout from now.
      this.#timer = setTimeout(() => {
        this.#timer = undefined;
        this.#flushDue = true;
        this.#pump();
      }, this.#timeoutMs);
      this.#timer.unref();
    }
    this.#checkIdle();
  }

  /** Whether `ready` exportable records should go now rather than wait for more. */
  #due(ready: number): boolean {
    if (this.#flushDue || this.#timeoutMs === 0 || ready >= this.#sendBatchSize) return true;
    if (this.#producers === 0) return false;
    // With no export running: as many calls wait here as producers are attached, so with one call each no
    // record can arrive before an export settles. While exports run, the callers inside them count no
    // more: a producer with several batches in flight hands its next one during the export, and the next
    // export waits for a batch from as many callers as there are producers (counting the callers inside
    // the running export, the second slot left with the first batch handed over, half-empty).
    return (this.#inFlight === 0 ? this.#waiting : this.#pending.length) >= this.#producers;
  }

  /** Pending records that may start an export now: those of callers with no earlier part in flight. */
  #exportableCount(): number {
    let count = 0;
    for (const part of this.#pending) if (part.caller.inFlight === 0) count += partSize(part);
    return count;
  }

  /**
   * Removes up to `limit` exportable records from the queue, oldest first, splitting the last part if
   * needed. Parts whose caller still has an export in flight stay (they follow that export, in order).
   */
  #take(limit: number): Part[] {
    const taken: Part[] = [];
    const kept: Part[] = [];
    let room = limit;
    for (const part of this.#pending) {
      if (room === 0 || part.caller.inFlight > 0) {
        kept.push(part);
      } else if (partSize(part) <= room) {
        taken.push(part);
        room -= partSize(part);
      } else if (part.encoded) {
        // Encoded records cannot be split by count: such a part goes whole, alone when it is too large.
        if (taken.length === 0) taken.push(part);
        else kept.push(part);
        room = 0;
      } else {
        taken.push(splitPart(part, room));
        room = 0;
        kept.push(part);
      }
    }
    this.#pending = kept;
    for (const part of taken) {
      const size = partSize(part);
      part.caller.pendingItems -= size;
      this.#pendingCount -= size;
    }
    return taken;
  }

  #startExport(parts: Part[]): void {
    const exp: Export = { parts, callers: new Set(parts.map((p) => p.caller)), controller: new AbortController() };
    for (const caller of exp.callers) {
      caller.inFlight++;
      caller.exports.add(exp);
    }
    const metrics = parts.flatMap((p) => p.metrics);
    const spans = parts.flatMap((p) => p.spans);
    const encodedLogs = concatEncodedLogs(parts.flatMap((p) => (p.encoded ? [p.encoded] : [])));
    const batch: SignalBatch = {
      records: parts.flatMap((p) => p.records),
      ...(metrics.length > 0 ? { metrics } : {}),
      ...(spans.length > 0 ? { spans } : {}),
      ...(encodedLogs ? { encodedLogs } : {}),
      source: combineSources(parts.map((p) => p.source)),
    };
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
    if (isPartialRefusal(error)) {
      // The rest of the export was delivered: each caller keeps the refusals of its own records.
      assignRefusals(exp.parts, error);
      error = undefined;
    }
    for (const caller of exp.callers) {
      caller.inFlight--;
      caller.exports.delete(exp);
      if (error !== undefined) this.#fail(caller, error);
      else if (!caller.settled && caller.inFlight === 0 && caller.pendingItems === 0) {
        this.#settle(caller);
        if (caller.refusals.length === 0) caller.resolve();
        else {
          const refused = new PartialRefusalError(caller.refusals, 0).refusedItemCount();
          caller.reject(new PartialRefusalError(caller.refusals, caller.total - refused));
        }
      }
    }
    this.#pump();
  }

  /** Rejects a caller, drops its records not yet exported, and aborts exports no live caller waits on. */
  #fail(caller: Caller, error: unknown): void {
    if (caller.settled) return;
    this.#settle(caller);
    if (caller.pendingItems > 0) {
      this.#pending = this.#pending.filter((p) => p.caller !== caller);
      this.#pendingCount -= caller.pendingItems;
      caller.pendingItems = 0;
    }
    for (const exp of caller.exports) {
      if ([...exp.callers].every((c) => c.settled)) exp.controller.abort(error);
    }
    caller.reject(error);
    this.#checkIdle();
  }

  #settle(caller: Caller): void {
    caller.settled = true;
    this.#waiting--;
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

/** Hands each caller of an export the refusals of its own items. */
function assignRefusals(parts: readonly Part[], error: PartialRefusalError): void {
  const owner = new Map<object, Caller>();
  for (const part of parts) {
    for (const item of [...part.records, ...part.metrics, ...part.spans]) owner.set(item, part.caller);
  }
  for (const refusal of error.refusals) {
    const byCaller = new Map<Caller, { records: ReadableLogRecord[]; metrics: MetricPoint[]; spans: SpanRecord[] }>();
    const mine = (item: object) => {
      const caller = owner.get(item);
      if (!caller) return undefined;
      let found = byCaller.get(caller);
      if (!found) byCaller.set(caller, (found = { records: [], metrics: [], spans: [] }));
      return found;
    };
    for (const record of refusal.records) mine(record)?.records.push(record);
    for (const point of refusal.metrics ?? []) mine(point)?.metrics.push(point);
    for (const span of refusal.spans ?? []) mine(span)?.spans.push(span);
    for (const [caller, items] of byCaller) {
      caller.refusals.push({
        records: items.records,
        ...(items.metrics.length > 0 ? { metrics: items.metrics } : {}),
        ...(items.spans.length > 0 ? { spans: items.spans } : {}),
        error: refusal.error,
      });
    }
  }
}
