import type { HubClient, PartitionReader, ReceivedEvent, StartPosition } from '../backends/consumer.ts';
import { BackendError } from '../backends/consumer.ts';
import type { Decoder, DecodeContext } from '../decode/decoder.ts';
import type { LogsConsumer } from '../pipeline/consumer.ts';
import { batchItemCount, type LogBatch } from '../pipeline/log-batch.ts';
import type { Signal } from '../pipeline/signals.ts';
import type { DeadLetterStore } from '../pipeline/dead-letter.ts';
import type { PartitionEnd } from '../ownership/coordinator.ts';
import type { Checkpointer } from './checkpointer.ts';
import type { Logger } from '../component/logger.ts';
import type { PartitionState, ReceiverStatus } from './receiver-status.ts';
import { CheckpointFencedError } from '../ownership/checkpoint.ts';
import { isDataRefused, isPermanentError } from '../component/errors.ts';
import { isPartialRefusal, isRequestTooLarge, type PartialRefusalError } from '../pipeline/partial-refusal.ts';
import { RetriesExhaustedError } from '../pipeline/retry.ts';
import { isEncodedLogsRefused } from '../pipeline/encoded-logs-refusal.ts';
import { pause, raceAbort, settleWithin } from '../component/abort.ts';
import { backoffDelayMs } from '../component/backoff.ts';
import { classifyReaderFailure } from './internal/reader-failure.ts';
import type { PumpCounters } from './internal/pump-counters.ts';
import type { EncodedDecode } from './internal/decode-pool.ts';
import {
  batchSignals, itemCounts, refusedEvents, type ItemCounts, type RefusedEvent,
} from './internal/refused-events.ts';

/**
 * A reader that returns nothing for this long while the hub reports newer events is treated as stalled
 * and reopened after the last processed event (defence against a client stuck on a dead link).
 */
export const DEFAULT_STALL_TIMEOUT_MS = 15_000;
/** Longest wait for a reader to close; a dead connection must not hold a stop. */
const READER_CLOSE_TIMEOUT_MS = 5_000;
/** Longest wait for the stall watchdog's partition properties. */
const WATCHDOG_TIMEOUT_MS = 10_000;
/** Reopen backoff after a transient reader failure: 500 ms doubling to 30 s. */
const TRANSIENT_INITIAL_MS = 500;
const TRANSIENT_MAX_MS = 30_000;
/** Reopen backoff after a permanent reader failure (misconfiguration): 1 s doubling to 5 min. */
const PERMANENT_INITIAL_MS = 1_000;
const PERMANENT_MAX_MS = 300_000;
/**
 * Refusals of encoded records (`EncodedLogsRefusedError`) answered by sending the batch again at once, as
 * records; past this, such an error is handled as any permanent one (a consumer that keeps asking). 3.
 */
const MAX_ENCODED_REFUSALS = 3;
/** Wait between attempts at a batch the pipeline refused, while the partition holds it: 1 s to 60 s. */
const HOLD_INITIAL_MS = 1_000;
const HOLD_MAX_MS = 60_000;

export interface PartitionPumpOptions {
  readonly hub: HubClient;
  readonly partitionId: string;
  readonly start: StartPosition;
  /** The config key `start` came from (`checkpoint`, `partition_start`, `offset`, `start_position`), named if the hub refuses it. */
  readonly startSource?: string;
  readonly ownerLevel?: number;
  readonly prefetchCount: number;
  /** Most events per batch. */
  readonly maxBatchSize: number;
  /** Longest wait for a batch, ms. */
  readonly maxWaitMs: number;
  readonly decode: Decoder;
  readonly context: DecodeContext;
  /**
   * Decodes a batch and encodes its log records off this thread (the receiver's decode pool), or undefined
   * when it cannot now. A rejected job is decoded here with `decode` instead, so nothing is lost or held.
   * Only given when the consumer takes encoded log records (`acceptsEncodedLogs`). Default: decode here.
   */
  readonly offload?: (events: ReceivedEvent[], context: DecodeContext) => Promise<EncodedDecode> | undefined;
  /** The pipeline; already wrapped with retry, so a rejection means "gave up" (or the stop signal). */
  readonly consumer: LogsConsumer;
  readonly checkpointer: Checkpointer;
  /** Where refused batches go. Without it (and without `dropRefused`) the partition holds and retries. */
  readonly deadLetter?: DeadLetterStore;
  /** The receiver's id (`azure_event_hub/logs`), named in dead-letter log lines. Default unnamed. */
  readonly receiverId?: string;
  /**
   * The signals the pipeline takes (the receiver's pipelines). Decoded items of any other signal (log records
   * of a receiver listed only by a metrics pipeline) are counted (`itemsWithoutPipeline`), logged and not
   * handed over: no pipeline could take them. Default every signal.
   */
  readonly signals?: ReadonlySet<Signal>;
  /** The user chose to drop batches the pipeline refuses (`dead_letter.drop`). Default false. */
  readonly dropRefused?: boolean;
  readonly counters: PumpCounters;
  readonly logger: Logger;
  readonly emit: (status: ReceiverStatus) => void;
  /** Reopen backoff after a transient reader failure, ms. Defaults 500 to 30000. */
  readonly reopenInitialMs?: number;
  readonly reopenMaxMs?: number;
  /** See DEFAULT_STALL_TIMEOUT_MS. Default 15000 ms. */
  readonly stallTimeoutMs?: number;
  /** Wait between attempts at a refused batch the partition holds, ms (the receiver passes retry_on_failure's intervals). Defaults 1000 to 60000. */
  readonly holdInitialMs?: number;
  readonly holdMaxMs?: number;
  /** Undefined when the partition may read now, else resolves when it may (the memory guard's pause). */
  readonly readGate?: (signal: AbortSignal) => Promise<void> | undefined;
}

/**
 * One loop per owned partition: receive a batch, decode it, hand it to the consumer, and when the
 * consumer resolves, mark it done; checkpoint on a timer or count. Reader failures are retried here
 * (transient: short backoff; permanent: long backoff, reported), so the pump ends only when stopped,
 * when the hub gives the partition to a higher owner level, or when its lease is gone (fenced). Two stop
 * modes: `stop()` (graceful: stop reading, finish the batch in flight, write the final checkpoint) and
 * `kill()` (ownership lost: abort the batch, write nothing).
 */
export class PartitionPump {
  readonly #o: PartitionPumpOptions;
  readonly #stopReading = new AbortController();
  readonly #kill = new AbortController();
  #reader: PartitionReader | undefined;
  #done: Promise<PartitionEnd> | undefined;
  #lastSequenceNumber = -1;
  /** Last sequence number received (decoded, maybe still being exported): where the next batch must follow. */
  #lastReceived = -1;
  /**
   * The batch being exported while the next one is received and decoded: resolves true once it was
   * accepted (or dead-lettered, or dropped by choice) and marked, false when the pump stopped first.
   */
  #inFlight: Promise<boolean> | undefined;
  #lastEnqueuedTime: Date | undefined;
  #lastOffset: string | undefined;
  #state: PartitionState = { state: 'reading', since: Date.now() };
  /** Set while this pump is announced to the pipeline as a producer (see #announce). */
  #detach: (() => void) | undefined;

  constructor(options: PartitionPumpOptions) {
    this.#o = options;
  }

  get partitionId(): string {
    return this.#o.partitionId;
  }

  /** Last sequence number resolved by the consumer; -1 before the first. */
  get lastSequenceNumber(): number {
    return this.#lastSequenceNumber;
  }

  get lastEnqueuedTime(): Date | undefined {
    return this.#lastEnqueuedTime;
  }

  /** Offset of the last processed event, if any. */
  get lastOffset(): string | undefined {
    return this.#lastOffset;
  }

  get reader(): PartitionReader | undefined {
    return this.#reader;
  }

  /** Reading, or retrying (a failing reader, or a batch the pipeline refused), and since when. */
  get state(): PartitionState {
    return this.#state;
  }

  /** Starts the loop; the returned promise resolves when it ends (never rejects). */
  run(): Promise<PartitionEnd> {
    this.#done ??= this.#loop().then(
      (end) => end,
      (error: unknown) => ({
        reason: 'error' as const,
        error: error instanceof Error ? error : new Error(String(error)),
      }),
    );
    return this.#done;
  }

  /** Graceful: stop reading, let the in-flight batch finish, write the final checkpoint. */
  async stop(timeoutMs: number): Promise<PartitionEnd> {
    this.#stopReading.abort(new Error('partition stopping'));
    const done = this.run();
    if (!(await settleWithin(done, timeoutMs))) {
      this.#o.logger.warn('partition did not stop within the shutdown timeout; aborting its batch', {
        partitionId: this.#o.partitionId,
        timeoutMs,
      });
      this.#kill.abort(new Error('shutdown timeout'));
    }
    return done;
  }

  /** Ownership lost: abort everything now, write no checkpoint. */
  async kill(): Promise<PartitionEnd> {
    this.#stopReading.abort(new Error('ownership lost'));
    this.#kill.abort(new Error('ownership lost'));
    return this.run();
  }

  #setState(next: PartitionState): void {
    const prev = this.#state;
    if (prev.state === next.state && prev.cause === next.cause && prev.permanent === next.permanent) {
      this.#state = { ...next, since: prev.since };
      return;
    }
    this.#state = next;
    this.#o.emit({ type: 'partitionState', partitionId: this.#o.partitionId, ...next });
  }

  async #open(position: StartPosition): Promise<PartitionReader> {
    // Opening may wait on a connection the backend keeps retrying; a stop must not wait for it.
    const opening = this.#o.hub.openPartition(this.#o.partitionId, {
      startPosition: position,
      ownerLevel: this.#o.ownerLevel,
      prefetchCount: this.#o.prefetchCount,
      trackLastEnqueuedEventProperties: true,
      ...(this.#o.startSource
        ? { startPositionKey: position === this.#o.start ? this.#o.startSource : 'checkpoint' }
        : {}),
    });
    return raceAbort(opening, this.#stopReading.signal, (late) => void late.close().catch(() => undefined));
  }

  /**
   * A pump with a backlog (its last receive filled a batch) announces itself to the pipeline as a producer
   * that will call again at once; a caught-up pump, which may wait up to `poll_rate` for its next event,
   * withdraws, so a batching stage never waits for it while the busy partitions wait on the stage.
   */
  #announce(backlog: boolean): void {
    if (backlog && !this.#detach) this.#detach = this.#o.consumer.attachProducer?.();
    else if (!backlog && this.#detach) {
      this.#detach();
      this.#detach = undefined;
    }
  }

  async #loop(): Promise<PartitionEnd> {
    try {
      const end = await this.#read();
      // Graceful: the batch in flight finishes (a stop past the shutdown timeout kills it).
      await this.#settle();
      await this.#closeReader();
      // Every end but a kill writes the final checkpoint: under a lease it is fenced, so a checkpoint
      // after the lease went is refused by the store rather than written.
      if (!this.#kill.signal.aborted && end.reason !== 'fenced') await this.#checkpoint(true);
      return end;
    } finally {
      this.#announce(false);
    }
  }

  async #read(): Promise<PartitionEnd> {
    const o = this.#o;
    let position = o.start;
    let failures = 0;
    while (!this.#stopReading.signal.aborted) {
      try {
        this.#reader = await this.#open(position);
        let quietSince = Date.now();
        while (!this.#stopReading.signal.aborted) {
          const gate = o.readGate?.(this.#stopReading.signal);
          if (gate) {
            // Paused for memory: the batch in flight still finishes; the hub keeps what is not read yet.
            // A paused pump is no producer a batching stage should wait for.
            this.#announce(false);
            await gate;
            if (this.#stopReading.signal.aborted) break;
            quietSince = Date.now();
          }
          const waitMs = Math.max(1, Math.min(o.maxWaitMs, o.checkpointer.msUntilDue()));
          const events = await this.#reader.receive(o.maxBatchSize, waitMs, this.#stopReading.signal);
          // A receive that completed (with events or empty) proves the reader works: only now does the
          // failure count reset (some backends accept an open and refuse at the first receive).
          if (failures > 0) {
            failures = 0;
            o.emit({ type: 'backendRecovered', partitionId: o.partitionId });
          }
          if (this.#state.state !== 'reading') this.#setState({ state: 'reading', since: Date.now() });
          this.#announce(events.length >= o.maxBatchSize);
          if (events.length > 0) {
            const prepared = this.#prepare(events);
            // One batch in the pipeline at a time, in order: the next is handed over once the previous
            // was delivered, and it is exported while the one after it is received and decoded (here or
            // on a decode thread: then this batch's decode overlaps the previous one's export too).
            if (!(await this.#settle())) return { reason: 'stopped' };
            this.#inFlight = prepared instanceof Promise
              ? prepared.then((p) => this.#deliver(p))
              : this.#deliver(prepared);
            quietSince = Date.now();
          } else {
            if (!(await this.#settle())) return { reason: 'stopped' };
            if (Date.now() - quietSince >= (o.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS)) {
              quietSince = Date.now();
              await this.#checkStalled();
            }
          }
          await this.#checkpoint(false);
        }
      } catch (error) {
        if (this.#stopReading.signal.aborted) break;
        const err = error instanceof Error ? error : new Error(String(error));
        const failure = classifyReaderFailure(err);
        if (failure.action === 'ownershipLost') return { reason: 'ownershipLost', error: err };
        if (failure.action === 'fenced') return { reason: 'fenced', error: err };
        failures++;
        o.counters.backendReconnects++;
        o.counters.restarts[
          failure.permanent
            ? 'permanent'
            : err instanceof BackendError && err.code === 'Stalled'
              ? 'stalled'
              : 'transient'
        ]++;
        const delayMs = failure.permanent
          ? backoffDelayMs(failures, PERMANENT_INITIAL_MS, PERMANENT_MAX_MS)
          : backoffDelayMs(failures, o.reopenInitialMs ?? TRANSIENT_INITIAL_MS, o.reopenMaxMs ?? TRANSIENT_MAX_MS);
        this.#setState({
          state: 'retrying',
          since: Date.now(),
          cause: 'reader',
          permanent: failure.permanent,
          error: err,
          ...(failure.configKey ? { configKey: failure.configKey } : {}),
        });
        o.emit({ type: 'backendDisconnected', partitionId: o.partitionId, error: err });
        const fields = {
          partitionId: o.partitionId,
          error: err.message,
          attempt: failures,
          retryInMs: delayMs,
          configKey: failure.configKey,
          hint: failure.hint,
        };
        if (failure.permanent)
          o.logger.error('partition reader refused: check the configuration; retrying with backoff', fields);
        else o.logger.warn('partition reader failed; reopening after the last processed event', fields);
        await this.#closeReader();
        // The batch in flight is delivered first, so the position below includes it.
        if (!(await this.#settle())) break;
        // Resume right after what the consumer resolved: nothing lost, nothing repeated.
        this.#lastReceived = this.#lastSequenceNumber;
        if (this.#lastSequenceNumber >= 0)
          position = { kind: 'sequenceNumber', sequenceNumber: this.#lastSequenceNumber, inclusive: false };
        // A stop during the wait is a graceful stop like any other: the final checkpoint is still written.
        if (!(await pause(delayMs, this.#stopReading.signal))) break;
      }
    }
    return { reason: 'stopped' };
  }

  /** Throws a retryable error (so the loop reopens) when the hub holds events this reader is not delivering. */
  async #checkStalled(): Promise<void> {
    const o = this.#o;
    const signal = AbortSignal.any([this.#stopReading.signal, AbortSignal.timeout(WATCHDOG_TIMEOUT_MS)]);
    const props = await raceAbort(o.hub.getPartitionProperties(o.partitionId, signal), signal);
    const position = this.#lastSequenceNumber >= 0 ? this.#lastSequenceNumber : startSequenceNumber(o.start);
    if (position !== undefined && props.lastEnqueuedSequenceNumber > position) {
      const stallMs = o.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS;
      throw new BackendError(
        `partition ${o.partitionId}: no events for ${stallMs} ms although the hub holds up to ${props.lastEnqueuedSequenceNumber}; reopening`,
        { retryable: true, code: 'Stalled' },
      );
    }
  }

  async #closeReader(): Promise<void> {
    const reader = this.#reader;
    this.#reader = undefined;
    if (!reader) return;
    const closing = reader
      .close()
      .catch((e: unknown) =>
        this.#o.logger.debug('reader close failed', { partitionId: this.#o.partitionId, error: String(e) }),
      );
    if (!(await settleWithin(closing, READER_CLOSE_TIMEOUT_MS)))
      this.#o.logger.warn('reader did not close in time; abandoning it', { partitionId: this.#o.partitionId });
  }

  /**
   * Counts and decodes a received batch (noting a retention gap). Runs while the previous batch may still
   * be exported: decoding overlaps the export's wait instead of following it. With `offload`, the decode
   * runs on a decode thread and this returns its promise, which never rejects.
   */
  #prepare(events: ReceivedEvent[]): Prepared | Promise<Prepared> {
    const o = this.#o;
    const first = events[0]!;
    const last = events[events.length - 1]!;
    let bytes = 0;
    for (const e of events) bytes += e.body.byteLength;
    o.counters.eventsReceived += events.length;
    o.counters.bytesReceived += bytes;
    // Events missing between what we received and what arrived expired before we read them.
    if (this.#lastReceived >= 0 && first.sequenceNumber > this.#lastReceived + 1) {
      const lost = first.sequenceNumber - this.#lastReceived - 1;
      o.counters.eventsLostToRetention += lost;
      o.emit({
        type: 'retentionGap',
        partitionId: o.partitionId,
        eventsLost: lost,
        checkpointSequenceNumber: this.#lastReceived,
        firstRetainedSequenceNumber: first.sequenceNumber,
      });
      o.logger.error('events expired before they were read (retention gap)', {
        partitionId: o.partitionId,
        eventsLost: lost,
      });
    }
    this.#lastReceived = last.sequenceNumber;
    const job = o.offload?.(events, o.context);
    if (job) {
      // A kill does not wait for a decode thread (a stuck one would hold the stop): the batch is decoded
      // here and its export, under the same kill, ends at once without a checkpoint.
      return raceAbort(job, this.#kill.signal).then(
        (done) => this.#fromEncoded(events, done),
        (error: unknown) => {
          if (this.#kill.signal.aborted) return this.#decodeHere(events);
          o.counters.eventsDecodeFallbacks += events.length;
          o.logger.warn('decode thread failed a batch; decoding it on the pipeline thread', {
            partitionId: o.partitionId,
            firstSequenceNumber: first.sequenceNumber,
            error: error instanceof Error ? error.message : String(error),
          });
          return this.#decodeHere(events);
        },
      );
    }
    return this.#decodeHere(events);
  }

  /** A batch decoded and encoded on a decode thread, counted as `#decodeHere` counts. */
  #fromEncoded(events: ReceivedEvent[], done: EncodedDecode): Prepared {
    const o = this.#o;
    const records = done.encodedLogs.records;
    o.counters.eventsDecodedOffThread += events.length;
    o.counters.recordsDecoded += records;
    o.counters.metricPointsDecoded += done.metricPoints;
    o.counters.spansDecoded += done.spans;
    o.counters.eventsFailedDecode += done.stats.failedEvents;
    // Offloading is for logs-only receivers: other items (none from a logs-only decoder) have no pipeline.
    if (done.metricPoints + done.spans > 0) o.counters.itemsWithoutPipeline += done.metricPoints + done.spans;
    const batch: LogBatch = { records: [], encodedLogs: done.encodedLogs, source: this.#source(events) };
    return { events, batch: records > 0 ? batch : undefined };
  }

  #source(events: readonly ReceivedEvent[]): LogBatch['source'] {
    const o = this.#o;
    return {
      namespace: o.context.namespace,
      eventHubName: o.context.eventHubName,
      consumerGroup: o.context.consumerGroup,
      partitionId: o.partitionId,
      firstSequenceNumber: events[0]!.sequenceNumber,
      lastSequenceNumber: events[events.length - 1]!.sequenceNumber,
    };
  }

  #decodeHere(events: ReceivedEvent[]): Prepared {
    const o = this.#o;
    const first = events[0]!;
    const last = events[events.length - 1]!;
    const decoded = o.decode(events, o.context);
    o.counters.recordsDecoded += decoded.records.length;
    o.counters.metricPointsDecoded += decoded.metrics?.length ?? 0;
    o.counters.spansDecoded += decoded.spans?.length ?? 0;
    o.counters.eventsFailedDecode += decoded.stats.failedEvents;
    const { records, metrics, spans } = this.#routable(decoded, first.sequenceNumber, last.sequenceNumber);
    // Events with no item of any signal (e.g. a category filter took all) are marked without an export.
    const batch: LogBatch = {
      records,
      ...(metrics?.length ? { metrics } : {}),
      ...(spans?.length ? { spans } : {}),
      source: this.#source(events),
    };
    return { events, batch: batchItemCount(batch) > 0 ? batch : undefined };
  }

  /**
   * The decoded items of the signals the pipeline takes; the others are counted and logged (rate-limited by
   * the receiver's logger): e.g. Azure resource logs arriving at a receiver listed only by a metrics pipeline.
   */
  #routable<T extends Pick<LogBatch, 'records' | 'metrics' | 'spans'>>(decoded: T, first: number, last: number) {
    const o = this.#o;
    const signals = o.signals;
    if (!signals) return decoded;
    const out = {
      records: signals.has('logs') ? decoded.records : [],
      metrics: signals.has('metrics') ? decoded.metrics : undefined,
      spans: signals.has('traces') ? decoded.spans : undefined,
    };
    const setAside = {
      records: decoded.records.length - out.records.length,
      metricPoints: (decoded.metrics?.length ?? 0) - (out.metrics?.length ?? 0),
      spans: (decoded.spans?.length ?? 0) - (out.spans?.length ?? 0),
    };
    const total = setAside.records + setAside.metricPoints + setAside.spans;
    if (total > 0) {
      o.counters.itemsWithoutPipeline += total;
      o.logger.warn('decoded items of a signal no pipeline of this receiver takes: counted, not exported', {
        ...(o.receiverId ? { receiver: o.receiverId } : {}),
        partitionId: o.partitionId,
        ...setAside,
        firstSequenceNumber: first,
        lastSequenceNumber: last,
        hint: 'add the receiver to a pipeline of that signal (docs/signals.md)',
      });
    }
    return out;
  }

  /** Exports a prepared batch (or dead-letters it), then marks it. False when stopped or killed first. */
  async #deliver(prepared: Prepared): Promise<boolean> {
    const { events, batch } = prepared;
    if (batch && !(await this.#export(batch, events))) return false;
    const last = events[events.length - 1]!;
    this.#lastSequenceNumber = last.sequenceNumber;
    this.#lastOffset = last.offset;
    this.#lastEnqueuedTime = last.enqueuedTime;
    this.#o.checkpointer.mark(last.sequenceNumber, last.offset, events.length);
    return true;
  }

  /** Waits for the batch in flight; true when there was none or it was delivered. */
  async #settle(): Promise<boolean> {
    const inFlight = this.#inFlight;
    this.#inFlight = undefined;
    return inFlight ? inFlight : true;
  }

  /**
   * Hands the batch to the pipeline until it is accepted, dead-lettered or (by explicit choice) dropped.
   * Without a dead-letter store the partition holds the batch and tries again with a capped backoff: the
   * hub is the buffer, so nothing is checkpointed past an unexported event. False when stopped first.
   */
  async #export(batch: LogBatch, events: ReceivedEvent[]): Promise<boolean> {
    const o = this.#o;
    // What is still to deliver: after a partial refusal while the partition holds, only the refused records
    // are tried again, so the delivered ones are not sent again on every attempt.
    let pending = batch;
    let encodedRefusals = 0;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      try {
        await o.consumer.consume(pending, this.#kill.signal);
        const counts = itemCounts(pending);
        this.#count('Accepted', counts);
        if (this.#state.state !== 'reading') this.#setState({ state: 'reading', since: Date.now() });
        o.emit({
          type: 'exported',
          partitionId: o.partitionId,
          ...counts,
          events: events.length,
          durationMs: performance.now() - started,
        });
        return true;
      } catch (error) {
        if (this.#kill.signal.aborted) return false;
        if (isEncodedLogsRefused(error) && encodedRefusals++ < MAX_ENCODED_REFUSALS) {
          // The records could not go as encoded bytes (too large for one request): as objects they can be
          // split and refused one by one, as without decode workers. Decoded again here; counted once.
          // A batch already of records was combined (`batch`) with another partition's refused encoded
          // records: that partition now sends records too, so the same batch goes again.
          if (pending.encodedLogs) pending = this.#asRecords(events, pending);
          continue;
        }
        const err = error instanceof Error ? error : new Error(String(error));
        // A stage that refused to protect the process (memory_limiter) says nothing about the batch:
        // it is held and retried even with a dead-letter store or dead_letter.drop, never given up on.
        const refusedForPressure = isDataRefused(err);
        const permanent = isPermanentError(err) && !refusedForPressure;
        const counts = itemCounts(pending);
        o.emit({
          type: 'exportFailed',
          partitionId: o.partitionId,
          ...counts,
          error: err,
          permanent,
        });
        // Part of the batch delivered, part refused for good: only the refused items' events are concerned.
        const partial = refusedEvents(err, pending, events);
        if ((o.deadLetter || o.dropRefused) && !refusedForPressure) {
          if (partial) {
            this.#count('Accepted', minus(counts, partial.refused));
            this.#count('Refused', partial.refused);
            return this.#deadLetter(partial.events);
          }
          this.#count('Refused', counts);
          const signals = batchSignals(pending);
          return this.#deadLetter(events.map((event) => ({ event, error: err, signals })));
        }
        if (partial && isPartialRefusal(err)) {
          this.#count('Accepted', minus(counts, partial.refused));
          pending = onlyRefused(pending, err);
        }
        const delayMs = backoffDelayMs(attempt, o.holdInitialMs ?? HOLD_INITIAL_MS, o.holdMaxMs ?? HOLD_MAX_MS);
        this.#setState({ state: 'retrying', since: Date.now(), cause: 'export', permanent, error: err });
        o.counters.exportHolds++;
        const log = refusedForPressure ? o.logger.warn.bind(o.logger) : o.logger.error.bind(o.logger);
        log(
          refusedForPressure
            ? 'data refused by the memory limiter; the partition holds the batch and retries'
            : 'export refused; the partition holds the batch and retries (no dead_letter store: nothing is dropped)',
          {
            partitionId: o.partitionId,
            events: events.length,
            ...itemCounts(pending),
            firstSequenceNumber: batch.source.firstSequenceNumber,
            lastSequenceNumber: batch.source.lastSequenceNumber,
            error: err.message,
            attempt,
            retryInMs: Math.round(delayMs),
          },
        );
        if (!(await pause(delayMs, this.#stopReading.signal))) return false;
      }
    }
  }

  /** `batch` (encoded on a decode thread) with its log records decoded again here, as objects. */
  #asRecords(events: ReceivedEvent[], batch: LogBatch): LogBatch {
    const decoded = this.#o.decode(events, this.#o.context);
    this.#o.logger.debug('encoded log records refused for their size; sending them as records', {
      partitionId: this.#o.partitionId,
      records: decoded.records.length,
    });
    return { records: decoded.records, source: batch.source };
  }

  /** Adds a batch's items to the accepted or refused counters of their signals. */
  #count(kind: 'Accepted' | 'Refused', n: ItemCounts): void {
    const c = this.#o.counters;
    c[`records${kind}`] += n.records;
    c[`metricPoints${kind}`] += n.metricPoints;
    c[`spans${kind}`] += n.spans;
  }

  /**
   * Writes refused events to the dead-letter store (or drops them, when chosen), retrying until durable or
   * killed; then logs one error line (rate-limited by the receiver's logger) saying what went where and why.
   */
  async #deadLetter(refused: readonly RefusedEvent[]): Promise<boolean> {
    const o = this.#o;
    const first = refused[0]!;
    const reasons = [...new Set(refused.map((r) => r.error.message))];
    const fields = {
      ...(o.receiverId ? { receiver: o.receiverId } : {}),
      partitionId: o.partitionId,
      events: refused.length,
      firstSequenceNumber: first.event.sequenceNumber,
      lastSequenceNumber: refused[refused.length - 1]!.event.sequenceNumber,
      error: reasons.join('; '),
      type: [...new Set(refused.map((r) => deadLetterType(r.error)))].join(','),
    };
    if (!o.deadLetter) {
      o.counters.eventsDropped += refused.length;
      o.logger.error('export refused: records dropped (dead_letter.drop is set)', fields);
      return true;
    }
    const at = new Date();
    const entries = refused.map(({ event, error, signals }) => ({
      event,
      source: o.context,
      error: { type: deadLetterType(error), message: error.message },
      at,
      // Logs-only receivers write the line as before; with other signals, the line says which were refused.
      ...(signals && signals.some((s) => s !== 'logs') ? { signals } : {}),
    }));
    for (let attempt = 1; ; attempt++) {
      try {
        await o.deadLetter.write(entries);
        o.counters.eventsDeadLettered += refused.length;
        o.emit({ type: 'deadLettered', partitionId: o.partitionId, events: refused.length, error: first.error });
        const store = o.deadLetter.locationOf?.(entries[0]!) ?? o.deadLetter.constructor?.name ?? 'dead-letter store';
        o.logger.error('export refused: events written to the dead-letter store', { ...fields, store });
        return true;
      } catch (dlError) {
        o.logger.error('dead-letter write failed; retrying (the partition waits: nothing is checkpointed past it)', {
          partitionId: o.partitionId,
          attempt,
          error: String(dlError),
        });
        if (!(await pause(backoffDelayMs(attempt, 1_000, 30_000), this.#kill.signal))) return false;
      }
    }
  }

  async #checkpoint(final: boolean): Promise<void> {
    const o = this.#o;
    try {
      const wrote = final ? await o.checkpointer.flush() : await o.checkpointer.flushIfDue();
      if (wrote) {
        o.counters.checkpointWrites++;
        o.emit({
          type: 'checkpointWritten',
          partitionId: o.partitionId,
          sequenceNumber: o.checkpointer.writtenSequenceNumber()!,
        });
      }
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      o.counters.checkpointFailures++;
      o.emit({ type: 'checkpointFailed', partitionId: o.partitionId, error: err });
      o.logger.warn('checkpoint write failed', { partitionId: o.partitionId, error: err.message, final });
      if (err instanceof CheckpointFencedError && !final) throw err;
    }
  }
}

/** A received batch and what the pipeline gets of it (undefined when decoding left no item). */
interface Prepared {
  readonly events: ReceivedEvent[];
  readonly batch: LogBatch | undefined;
}

function minus(a: ItemCounts, b: ItemCounts): ItemCounts {
  return { records: a.records - b.records, metricPoints: a.metricPoints - b.metricPoints, spans: a.spans - b.spans };
}

/** What is left to deliver of `batch` after a partial refusal: the refused items of each signal. */
function onlyRefused(batch: LogBatch, error: PartialRefusalError): LogBatch {
  const records = error.refusedRecords();
  const metrics = error.refusedMetrics();
  const spans = error.refusedSpans();
  const keptMetrics = batch.metrics?.filter((m) => metrics.has(m)) ?? [];
  const keptSpans = batch.spans?.filter((m) => spans.has(m)) ?? [];
  return {
    records: batch.records.filter((r) => records.has(r)),
    ...(keptMetrics.length > 0 ? { metrics: keptMetrics } : {}),
    ...(keptSpans.length > 0 ? { spans: keptSpans } : {}),
    source: batch.source,
  };
}

/** The dead-letter entry's `error.type`: why the pipeline refused the event. */
function deadLetterType(error: Error): string {
  if (isRequestTooLarge(error)) return 'request_too_large';
  if (error instanceof RetriesExhaustedError || !isPermanentError(error)) return 'retries_exhausted';
  return 'permanent';
}

/** The sequence number a start position is known to begin after, when it names one. */
function startSequenceNumber(p: StartPosition): number | undefined {
  if (p.kind === 'sequenceNumber') return p.inclusive ? p.sequenceNumber - 1 : p.sequenceNumber;
  if (p.kind === 'earliest') return -1;
  return undefined;
}
