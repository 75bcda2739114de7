import type { PartitionReader, ReceivedEvent, StartPosition } from '../backends/consumer.ts';
import type { PartitionEnd } from '../ownership/coordinator.ts';
import type { PartitionState } from './receiver-status.ts';
import { pause, raceAbort, settleWithin } from '../component/abort.ts';
import { classifyReaderFailure } from './internal/reader-failure.ts';
import { DEFAULT_STALL_TIMEOUT_MS, type PartitionPumpOptions } from './partition-pump-options.ts';
import { BatchPreparer, type PreparedBatch } from './internal/batch-preparer.ts';
import { BatchExporter } from './internal/batch-exporter.ts';
import { writeCheckpoint } from './internal/pump-checkpoint.ts';
import { closeReader, reportReaderFailure } from './internal/reader-supervision.ts';
import { checkStalled } from './internal/stall-watchdog.ts';

export { DEFAULT_STALL_TIMEOUT_MS, type PartitionPumpOptions };

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
  /**
   * The batch being exported while the next one is received and decoded: resolves true once it was
   * accepted (or dead-lettered, or dropped by choice) and marked, false when the pump stopped first.
   */
  #inFlight: Promise<boolean> | undefined;
  #lastEnqueuedTime: Date | undefined;
  #lastOffset: string | undefined;
  #state: PartitionState = { state: 'reading', since: Date.now() };
  /** When the loop last made progress: a receive completed, a batch was delivered, the state changed. */
  #progressAt = Date.now();
  /** Set while this pump is announced to the pipeline as a producer (see #announce). */
  #detach: (() => void) | undefined;
  /** A caught-up pump's last batch handed over (its last sequence number): it withdraws once that is delivered. */
  #withdrawAfter: number | undefined;
  /** The decode step; also knows the last sequence number received (see BatchPreparer.lastReceived). */
  readonly #preparer: BatchPreparer;
  readonly #exporter: BatchExporter;

  constructor(options: PartitionPumpOptions) {
    this.#o = options;
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
      prefetchCount: this.#o.prefetchCount,
      trackLastEnqueuedEventProperties: true,
      ...(this.#o.startSource
        ? { startPositionKey: position === this.#o.start ? this.#o.startSource : 'checkpoint' }
        : {}),
    });
    return raceAbort(opening, this.#stopReading.signal, (late) => void late.close().catch(() => undefined));
  }

  /**
   * A pump with a backlog (see hasBacklog) announces itself to the pipeline as a producer that will call
   * again at once; a caught-up pump, which may wait up to `poll_rate` for its next event, withdraws, so a
   * batching stage never waits for it while the busy partitions wait on the stage.
   *
   * A pump that caught up with a batch to hand over (`lastHandedOver`: its last sequence number) withdraws
   * only once that batch was delivered: until then it is a producer the stage waits for, and then one
   * waiting on it, so the last batch of a backlog goes out as soon as every producer waits, not on the
   * stage's timer (a drain's tail waited out the `batch` processor's `timeout`, 1 s in config/azure.yaml).
   */
  #announce(backlog: boolean, lastHandedOver?: number): void {
    if (backlog) {
      this.#withdrawAfter = undefined;
      this.#detach ??= this.#o.consumer.attachProducer?.();
    } else if (this.#detach) {
      if (lastHandedOver !== undefined) this.#withdrawAfter = lastHandedOver;
      else if (this.#withdrawAfter === undefined) this.#withdraw();
    }
  }

  #withdraw(): void {
    this.#withdrawAfter = undefined;
    const detach = this.#detach;
    this.#detach = undefined;
    detach?.();
  }

  async #loop(): Promise<PartitionEnd> {
    try {
      const end = await this.#read();
      // Graceful: the batch in flight finishes (a stop past the shutdown timeout kills it).
      await this.#settle();
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
            // Paused for memory: the batch in flight still finishes; the hub keeps what is not read yet.
            // A paused pump is no producer a batching stage should wait for.
            this.#announce(false);
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
          const backlog = hasBacklog(events, o.maxBatchSize, this.#reader.lastEnqueued()?.sequenceNumber);
          this.#announce(backlog, backlog ? undefined : events.at(-1)?.sequenceNumber);
          if (events.length > 0) {
            const prepared = this.#preparer.prepare(events);
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
              await checkStalled(o, this.#lastSequenceNumber, this.#stopReading.signal);
            }
          }
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
        this.#withdraw();
        const delayMs = reportReaderFailure(o, err, failure, failures, (next) => this.#setState(next));
        await this.#closeReader();
        // The batch in flight is delivered first, so the position below includes it.
        if (!(await this.#settle())) break;
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

  /** Exports a prepared batch (or dead-letters it), then marks it. False when stopped or killed first. */
  async #deliver(prepared: PreparedBatch): Promise<boolean> {
    const { events, batch } = prepared;
    const last = events[events.length - 1]!;
    try {
      if (batch && !(await this.#exporter.export(batch, events))) return false;
    } finally {
      if (this.#withdrawAfter !== undefined && last.sequenceNumber >= this.#withdrawAfter) this.#withdraw();
    }
    this.#progressAt = Date.now();
    this.#lastSequenceNumber = last.sequenceNumber;
    this.#lastOffset = last.offset;
    this.#lastEnqueuedTime = last.enqueuedTime;
    this.#o.checkpointer.mark(last.sequenceNumber, last.offset, events.length, last.enqueuedTime?.getTime());
    return true;
  }

  /** Waits for the batch in flight; true when there was none or it was delivered. */
  async #settle(): Promise<boolean> {
    const inFlight = this.#inFlight;
    this.#inFlight = undefined;
    return inFlight ? inFlight : true;
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
export function hasBacklog(events: readonly ReceivedEvent[], maxBatchSize: number, lastEnqueued: number | undefined): boolean {
  const last = events[events.length - 1];
  if (last === undefined) return false;
  if (lastEnqueued !== undefined && lastEnqueued >= last.sequenceNumber) return lastEnqueued > last.sequenceNumber;
  return events.length >= maxBatchSize;
}
