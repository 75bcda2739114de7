import type { PartitionReader, ReceivedEvent, StartPosition } from '../backends/consumer.ts';
import type { PartitionEnd } from '../ownership/coordinator.ts';
import type { PartitionState } from './receiver-status.ts';
import { pause, raceAbort, settleWithin } from '../component/abort.ts';
import { classifyReaderFailure } from './internal/reader-failure.ts';
import {
  DEFAULT_BYTES_IN_FLIGHT,
  DEFAULT_STALL_TIMEOUT_MS,
  type PartitionPumpOptions,
} from './partition-pump-options.ts';
import { DEFAULT_MAX_BATCHES_IN_FLIGHT } from '../config/receiver-defaults.ts';
import { BatchPreparer, type PreparedBatch } from './internal/batch-preparer.ts';
import { BatchExporter } from './internal/batch-exporter.ts';
import { DeliveryWindow } from './internal/delivery-window.ts';
import { writeCheckpoint } from './internal/pump-checkpoint.ts';
import { closeReader, reportReaderFailure } from './internal/reader-supervision.ts';
import { checkStalled } from './internal/stall-watchdog.ts';

export { DEFAULT_BYTES_IN_FLIGHT, DEFAULT_STALL_TIMEOUT_MS, type PartitionPumpOptions };

/**
 * One loop per owned partition: receive a batch, decode it, hand it to the consumer, and when the
 * consumer resolved it and every batch before it, mark it done; checkpoint on a timer or count. Up to
 * `maxBatchesInFlight` batches (and `maxBytesInFlight` bytes) are in the pipeline at once, handed over in
 * order (internal/delivery-window.ts). Reader failures are retried here
 * (transient: short backoff; permanent: long backoff, reported), so the pump ends only when stopped,
 * when the hub gives the partition to a higher owner level, or when its lease is gone (fenced). Two stop
 * modes: `stop()` (graceful: stop reading, finish the batches in flight, write the final checkpoint) and
 * `kill()` (ownership lost: abort the batch, write nothing).
 */
export class PartitionPump {
  readonly #o: PartitionPumpOptions;
  readonly #stopReading = new AbortController();
  readonly #kill = new AbortController();
  #reader: PartitionReader | undefined;
  #done: Promise<PartitionEnd> | undefined;
  #lastSequenceNumber = -1;
  /** The batches handed to the pipeline (or being decoded for it) and not yet marked, in order. */
  readonly #window: DeliveryWindow;
  #lastEnqueuedTime: Date | undefined;
  #lastOffset: string | undefined;
  #state: PartitionState = { state: 'reading', since: Date.now() };
  /** When the loop last made progress: a receive completed, a batch was delivered, the state changed. */
  #progressAt = Date.now();
  /** Set while this pump is announced to the pipeline as a producer (see #fitProducers). */
  #detach: (() => void) | undefined;
  /** The last receive found more to read right away (see hasBacklog), and reading is not paused. */
  #backlog = false;
  /** The last receive ended a backlog: the batches it leaves in flight keep (or regain) their producers. */
  #tail = false;
  /** Events the reader may buffer ahead (`setPrefetch`); a reader opened later gets it too. */
  #prefetch: number;
  /** The decode step; also knows the last sequence number received (see BatchPreparer.lastReceived). */
  readonly #preparer: BatchPreparer;
  readonly #exporter: BatchExporter;

  constructor(options: PartitionPumpOptions) {
    this.#o = options;
    this.#prefetch = options.prefetchCount;
    this.#window = new DeliveryWindow({
      batches: Math.max(1, options.maxBatchesInFlight ?? DEFAULT_MAX_BATCHES_IN_FLIGHT),
      bytes: options.maxBytesInFlight ?? DEFAULT_BYTES_IN_FLIGHT,
      ...(options.inFlightBudget ? { shared: options.inFlightBudget } : {}),
    });
    this.#preparer = new BatchPreparer(options, this.#kill.signal);
    this.#exporter = new BatchExporter({
      options,
      kill: this.#kill.signal,
      stopReading: this.#stopReading.signal,
      state: () => this.#state,
      setState: (next) => this.#setState(next),
      asRecords: (events, batch) => this.#preparer.asRecords(events, batch),
    });
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

  /**
   * When the pump last made progress (a receive completed, a batch was delivered, its state changed), ms
   * since the epoch. A pump `reading` without progress for long is wedged: the liveness probe fails on it.
   */
  get progressAt(): number {
    return this.#progressAt;
  }

  /** Reading, or retrying (a failing reader, or a batch the pipeline refused), and since when. */
  get state(): PartitionState {
    return this.#state;
  }

  /** Events the reader may buffer ahead of the pipeline. */
  get prefetch(): number {
    return this.#prefetch;
  }

  /** Events buffered ahead of the pipeline from now on (and by a reader opened later); see PartitionReader. */
  setPrefetch(prefetchCount: number): void {
    if (prefetchCount === this.#prefetch) return;
    this.#prefetch = prefetchCount;
    this.#reader?.setPrefetch?.(prefetchCount);
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

  /** Graceful: stop reading, let the batches in flight finish, write the final checkpoint. */
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
    this.#progressAt = Date.now();
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
      prefetchCount: this.#prefetch,
      // The backend moves a whole batch at once (the SDK's batch in `polling`), whatever the prefetch.
      maxBatchSize: this.#o.maxBatchSize,
      trackLastEnqueuedEventProperties: true,
      ...(this.#o.startSource
        ? { startPositionKey: position === this.#o.start ? this.#o.startSource : 'checkpoint' }
        : {}),
    });
    return raceAbort(opening, this.#stopReading.signal, (late) => void late.close().catch(() => undefined));
  }

  /**
   * Whether this pump is announced to the pipeline as a producer (`attachProducer`), so a batching stage
   * waits for what will come and never for what will not. With a backlog (see hasBacklog) it will hand over
   * again at once; caught up, it may wait up to `poll_rate` for its next event, so it withdraws, except
   * for the batches its backlog ended with: until those are delivered it is a producer the stage waits
   * for and then one waiting on it, so the last batches of a backlog go out as soon as every producer
   * waits, not on the stage's timer (a drain's tail waited out the `batch` processor's `timeout`, 1 s in
   * config/azure.yaml). A partition read live hands its batches to a stage that waits for more, as the
   * stage's `timeout` says.
   *
   * One producer per pump, whatever its batches in flight: the stage exports once as many batches wait on
   * it as there are producers. Attached as one producer per batch it may have in flight, a pump made the
   * stage wait for its every batch, so the next export's batches were decoded only after the previous
   * export ended instead of during it (pipeline bench, 2026-11-28: 0.38 of the bare SDK against 0.61).
   */
  #fitProducers(): void {
    const want = this.#backlog || (this.#tail && this.#window.unsettled > 0);
    if (!want) this.#withdraw();
    else this.#detach ??= this.#o.consumer.attachProducer?.();
  }

  /** After a receive: whether the partition has more to read at once (see hasBacklog). */
  #received(backlog: boolean): void {
    this.#tail = this.#backlog && !backlog;
    this.#backlog = backlog;
  }

  /** Paused for memory, backing off, or stopping: no producer a batching stage should wait for. */
  #announceIdle(): void {
    this.#backlog = this.#tail = false;
    this.#withdraw();
  }

  #withdraw(): void {
    const detach = this.#detach;
    this.#detach = undefined;
    detach?.();
  }

  async #loop(): Promise<PartitionEnd> {
    try {
      const end = await this.#read();
      // Graceful: the batches in flight finish (a stop past the shutdown timeout kills them); the final
      // checkpoint is the last of those delivered with every batch before it.
      this.#announceIdle();
      await this.#window.drain();
      // Every end but a kill writes the final checkpoint: under a lease it is fenced, so a checkpoint
      // after the lease went is refused by the store rather than written. It is written before the reader
      // closes: while our link is attached, its owner level keeps out a reader that ignores our lease (the
      // Python SDK's processor keeps a claim its store refused, docs/ownership.md), so such a reader starts
      // from the final checkpoint, not the one before it.
      try {
        if (!this.#kill.signal.aborted && end.reason !== 'fenced') await writeCheckpoint(this.#o, true);
      } finally {
        await this.#closeReader();
      }
      return end;
    } finally {
      this.#withdraw();
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
            // Paused for memory: the batches in flight still finish; the hub keeps what is not read yet.
            // A paused pump is no producer a batching stage should wait for.
            this.#announceIdle();
            await gate;
            this.#progressAt = Date.now();
            if (this.#stopReading.signal.aborted) break;
            quietSince = Date.now();
          }
          const waitMs = Math.max(1, Math.min(o.maxWaitMs, o.checkpointer.msUntilDue()));
          const events = await this.#reader.receive(o.maxBatchSize, waitMs, this.#stopReading.signal);
          this.#progressAt = Date.now();
          // A receive that completed (with events or empty) proves the reader works: only now does the
          // failure count reset (some backends accept an open and refuse at the first receive).
          if (failures > 0) {
            failures = 0;
            o.emit({ type: 'backendRecovered', partitionId: o.partitionId });
          }
          // Only the reader's own trouble ends here: a batch the pipeline holds (`waiting`, or `retrying` for
          // an export) is still held while the next batch is received.
          if (this.#state.state === 'retrying' && this.#state.cause !== 'export')
            this.#setState({ state: 'reading', since: Date.now() });
          this.#received(hasBacklog(events, o.maxBatchSize, this.#reader.lastEnqueued()?.sequenceNumber));
          if (events.length > 0) {
            let bytes = 0;
            for (const e of events) bytes += e.body.byteLength;
            // Decoding (here or on a decode thread) overlaps the exports of the batches before it.
            const prepared = this.#preparer.prepare(events);
            if (!(await this.#window.room(bytes))) return { reason: 'stopped' };
            this.#window.add(
              prepared,
              bytes,
              (p) => this.#export(p),
              (p) => this.#mark(p),
              () => this.#fitProducers(),
            );
            quietSince = Date.now();
          } else if (Date.now() - quietSince >= (o.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS)) {
            // Judged by what the consumer resolved: every batch in flight is delivered first.
            if (!(await this.#window.drain())) return { reason: 'stopped' };
            quietSince = Date.now();
            await checkStalled(o, this.#lastSequenceNumber, this.#stopReading.signal);
          }
          this.#fitProducers();
          await writeCheckpoint(this.#o, false);
        }
      } catch (error) {
        if (this.#stopReading.signal.aborted) break;
        const err = error instanceof Error ? error : new Error(String(error));
        const failure = classifyReaderFailure(err);
        if (failure.action === 'ownershipLost') return { reason: 'ownershipLost', error: err };
        if (failure.action === 'fenced') return { reason: 'fenced', error: err };
        failures++;
        // A pump waiting out a backoff is no producer a batching stage should wait for.
        this.#announceIdle();
        const delayMs = reportReaderFailure(o, err, failure, failures, (next) => this.#setState(next));
        await this.#closeReader();
        // The batches in flight are delivered first, so the position below includes them.
        if (!(await this.#window.drain())) break;
        // Resume right after what the consumer resolved: nothing lost, nothing repeated.
        this.#preparer.lastReceived = this.#lastSequenceNumber;
        if (this.#lastSequenceNumber >= 0)
          position = { kind: 'sequenceNumber', sequenceNumber: this.#lastSequenceNumber, inclusive: false };
        // A stop during the wait is a graceful stop like any other: the final checkpoint is still written.
        if (!(await pause(delayMs, this.#stopReading.signal))) break;
      }
    }
    return { reason: 'stopped' };
  }

  async #closeReader(): Promise<void> {
    const reader = this.#reader;
    this.#reader = undefined;
    if (reader) await closeReader(this.#o, reader);
  }

  /** Exports a prepared batch (or dead-letters it). False when stopped or killed first. */
  async #export({ events, batch }: PreparedBatch): Promise<boolean> {
    if (batch && !(await this.#exporter.export(batch, events))) return false;
    this.#progressAt = Date.now();
    return true;
  }

  /** Marks a batch delivered with every batch before it: the checkpoint may pass it now. */
  #mark({ events }: PreparedBatch): void {
    const last = events[events.length - 1]!;
    this.#lastSequenceNumber = last.sequenceNumber;
    this.#lastOffset = last.offset;
    this.#lastEnqueuedTime = last.enqueuedTime;
    this.#o.checkpointer.mark(last.sequenceNumber, last.offset, events.length, last.enqueuedTime?.getTime());
  }
}

/**
 * Whether the partition has more to read right away. The hub's last enqueued event, as the reader last heard
 * it, decides when it is known and not older than what was received: more to read while it is past the last
 * event received. Otherwise a receive that filled a batch counts as a backlog.
 * - The backend may hand events over in smaller pieces than `max_poll_events` (the polling backend's SDK
 *   batches are a third of its prefetch window): judged by the batch alone, every pump of a draining hub
 *   looked caught up, and a `batch` processor exported only on its timer (one request per second).
 * - A partition whose backlog ends on a full batch is caught up too: judged by the batch, the pump stayed a
 *   producer through its next receive (up to `poll_rate`), and the others' last batches waited on the timer.
 */
export function hasBacklog(
  events: readonly ReceivedEvent[],
  maxBatchSize: number,
  lastEnqueued: number | undefined,
): boolean {
  const last = events[events.length - 1];
  if (last === undefined) return false;
  if (lastEnqueued !== undefined && lastEnqueued >= last.sequenceNumber) return lastEnqueued > last.sequenceNumber;
  return events.length >= maxBatchSize;
}
