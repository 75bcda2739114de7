import type { HubClient, PartitionReader, ReceivedEvent, StartPosition } from '../backends/consumer.ts';
import { BackendError, OwnershipLostError } from '../backends/consumer.ts';
import type { Decoder, DecodeContext } from '../decode/decoder.ts';
import type { LogsConsumer } from '../pipeline/consumer.ts';
import type { LogBatch } from '../pipeline/log-batch.ts';
import type { DeadLetterStore } from '../pipeline/dead-letter.ts';
import type { Checkpointer } from './checkpointer.ts';
import type { Logger } from '../component/logger.ts';
import type { ReceiverStatus } from './receiver-status.ts';
import { CheckpointFencedError } from '../ownership/checkpoint.ts';
import { isPermanentError } from '../component/errors.ts';
import { raceAbort, settleWithin, sleep } from '../component/abort.ts';
import { backoffDelayMs } from '../component/backoff.ts';

/**
 * A reader that returns nothing for this long while the hub reports newer events is treated as stalled
 * and reopened after the last processed event (defence against a client stuck on a dead link).
 */
export const DEFAULT_STALL_TIMEOUT_MS = 15_000;

/** Longest wait for a reader to close; a dead connection must not hold a stop. */
const READER_CLOSE_TIMEOUT_MS = 5_000;
import type { PumpCounters } from './internal/pump-counters.ts';

export interface PartitionPumpOptions {
  readonly hub: HubClient;
  readonly partitionId: string;
  readonly start: StartPosition;
  readonly ownerLevel?: number;
  readonly prefetchCount: number;
  /** Most events per batch. */
  readonly maxBatchSize: number;
  /** Longest wait for a batch, ms. */
  readonly maxWaitMs: number;
  readonly decode: Decoder;
  readonly context: DecodeContext;
  /** The pipeline; already wrapped with retry, so a rejection means "gave up" (or the stop signal). */
  readonly consumer: LogsConsumer;
  readonly checkpointer: Checkpointer;
  readonly deadLetter?: DeadLetterStore;
  readonly counters: PumpCounters;
  readonly logger: Logger;
  readonly emit: (status: ReceiverStatus) => void;
  /** Reopen backoff after a reader failure. Defaults 500 ms to 30 s. */
  readonly reopenInitialMs?: number;
  readonly reopenMaxMs?: number;
  /** See DEFAULT_STALL_TIMEOUT_MS. Default 15000 ms. */
  readonly stallTimeoutMs?: number;
}

export type PumpEnd = { readonly reason: 'stopped' | 'ownershipLost' | 'lost' | 'error'; readonly error?: Error };

/**
 * One loop per owned partition: receive a batch, decode it, hand it to the consumer, and when the
 * consumer resolves, mark it done; checkpoint on a timer or count. Two stop modes:
 * `stop()` (graceful: stop reading, finish the batch in flight, write the final checkpoint) and
 * `kill()` (ownership lost: abort the batch, write nothing).
 */
export class PartitionPump {
  readonly #o: PartitionPumpOptions;
  readonly #stopReading = new AbortController();
  readonly #kill = new AbortController();
  #reader: PartitionReader | undefined;
  #done: Promise<PumpEnd> | undefined;
  #lastSequenceNumber = -1;
  #lastEnqueuedTime: Date | undefined;
  #lastOffset: string | undefined;

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

  get reader(): PartitionReader | undefined {
    return this.#reader;
  }

  /** Starts the loop; the returned promise resolves when it ends (never rejects). */
  run(): Promise<PumpEnd> {
    this.#done ??= this.#loop().then(
      (end) => end,
      (error: unknown) => ({ reason: 'error' as const, error: error instanceof Error ? error : new Error(String(error)) }),
    );
    return this.#done;
  }

  /** Graceful: stop reading, let the in-flight batch finish, write the final checkpoint. */
  async stop(timeoutMs: number): Promise<PumpEnd> {
    this.#stopReading.abort(new Error('partition stopping'));
    const done = this.run();
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, timeoutMs);
      timer.unref();
    });
    const first = await Promise.race([done.then(() => 'done' as const), timeout.then(() => 'timeout' as const)]);
    clearTimeout(timer);
    if (first === 'timeout') {
      this.#o.logger.warn('partition did not stop within the shutdown timeout; aborting its batch', { partitionId: this.#o.partitionId, timeoutMs });
      this.#kill.abort(new Error('shutdown timeout'));
    }
    return done;
  }

  /** Ownership lost: abort everything now, write no checkpoint. */
  async kill(): Promise<PumpEnd> {
    this.#stopReading.abort(new Error('ownership lost'));
    this.#kill.abort(new Error('ownership lost'));
    return this.run();
  }

  async #open(position: StartPosition): Promise<PartitionReader> {
    // Opening may wait on a connection the backend keeps retrying; a stop must not wait for it.
    const opening = this.#o.hub.openPartition(this.#o.partitionId, {
      startPosition: position,
      ownerLevel: this.#o.ownerLevel,
      prefetchCount: this.#o.prefetchCount,
      trackLastEnqueuedEventProperties: true,
    });
    return raceAbort(opening, this.#stopReading.signal, (late) => void late.close().catch(() => undefined));
  }

  async #loop(): Promise<PumpEnd> {
    const o = this.#o;
    let position = o.start;
    let failures = 0;
    let end: PumpEnd = { reason: 'stopped' };
    outer: while (!this.#stopReading.signal.aborted) {
      try {
        this.#reader = await this.#open(position);
        if (failures > 0) o.emit({ type: 'backendRecovered', partitionId: o.partitionId });
        failures = 0;
        let quietSince = Date.now();
        while (!this.#stopReading.signal.aborted) {
          const waitMs = Math.max(1, Math.min(o.maxWaitMs, o.checkpointer.msUntilDue()));
          const events = await this.#reader.receive(o.maxBatchSize, waitMs, this.#stopReading.signal);
          if (events.length > 0) {
            const handled = await this.#handle(events);
            if (!handled) break outer; // killed mid-batch
            quietSince = Date.now();
          } else if (Date.now() - quietSince >= (o.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS)) {
            quietSince = Date.now();
            await this.#checkStalled();
          }
          await this.#checkpoint(false);
        }
      } catch (error) {
        const err = error instanceof Error ? error : new Error(String(error));
        if (this.#stopReading.signal.aborted) break;
        if (err instanceof OwnershipLostError || (err instanceof BackendError && err.code === 'OwnershipLost')) {
          end = { reason: 'ownershipLost', error: err };
          break;
        }
        if (err instanceof CheckpointFencedError) {
          end = { reason: 'lost', error: err };
          break;
        }
        failures++;
        o.counters.backendReconnects++;
        o.emit({ type: 'backendDisconnected', partitionId: o.partitionId, error: err });
        o.logger.warn('partition reader failed; reopening after the last processed event', { partitionId: o.partitionId, error: err.message, attempt: failures });
        await this.#closeReader();
        // Resume right after what the consumer resolved: nothing lost, nothing repeated.
        if (this.#lastSequenceNumber >= 0) position = { kind: 'sequenceNumber', sequenceNumber: this.#lastSequenceNumber, inclusive: false };
        await sleep(backoffDelayMs(failures, o.reopenInitialMs ?? 500, o.reopenMaxMs ?? 30_000), this.#stopReading.signal);
      }
    }
    await this.#closeReader();
    if (!this.#kill.signal.aborted && end.reason === 'stopped') {
      await this.#checkpoint(true);
    }
    return end;
  }

  /** Throws a retryable error (so the loop reopens) when the hub holds events this reader is not delivering. */
  async #checkStalled(): Promise<void> {
    const o = this.#o;
    const props = await raceAbort(o.hub.getPartitionProperties(o.partitionId), this.#stopReading.signal);
    const position = this.#lastSequenceNumber >= 0 ? this.#lastSequenceNumber : startSequenceNumber(o.start);
    if (position !== undefined && props.lastEnqueuedSequenceNumber > position) {
      throw new BackendError(`partition ${o.partitionId}: no events for ${o.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS} ms although the hub holds up to ${props.lastEnqueuedSequenceNumber}; reopening`, { retryable: true, code: 'Stalled' });
    }
  }

  async #closeReader(): Promise<void> {
    const reader = this.#reader;
    this.#reader = undefined;
    if (!reader) return;
    const closing = reader.close().catch((e: unknown) => this.#o.logger.debug('reader close failed', { partitionId: this.#o.partitionId, error: String(e) }));
    if (!(await settleWithin(closing, READER_CLOSE_TIMEOUT_MS))) this.#o.logger.warn('reader did not close in time; abandoning it', { partitionId: this.#o.partitionId });
  }

  /** Decode, consume (or dead-letter), mark. Returns false when killed before the batch was resolved. */
  async #handle(events: ReceivedEvent[]): Promise<boolean> {
    const o = this.#o;
    const first = events[0]!;
    const last = events[events.length - 1]!;
    let bytes = 0;
    for (const e of events) bytes += e.body.byteLength;
    o.counters.eventsReceived += events.length;
    o.counters.bytesReceived += bytes;
    // Events missing between what we processed and what arrived expired before we read them.
    if (this.#lastSequenceNumber >= 0 && first.sequenceNumber > this.#lastSequenceNumber + 1) {
      const lost = first.sequenceNumber - this.#lastSequenceNumber - 1;
      o.counters.eventsLostToRetention += lost;
      o.emit({ type: 'retentionGap', partitionId: o.partitionId, eventsLost: lost, checkpointSequenceNumber: this.#lastSequenceNumber, firstRetainedSequenceNumber: first.sequenceNumber });
      o.logger.error('events expired before they were read (retention gap)', { partitionId: o.partitionId, eventsLost: lost });
    }
    const { records, stats } = o.decode(events, o.context);
    o.counters.recordsDecoded += records.length;
    o.counters.eventsFailedDecode += stats.failedEvents;
    if (records.length > 0) {
      const batch: LogBatch = {
        records,
        source: { namespace: o.context.namespace, eventHubName: o.context.eventHubName, consumerGroup: o.context.consumerGroup, partitionId: o.partitionId, firstSequenceNumber: first.sequenceNumber, lastSequenceNumber: last.sequenceNumber },
      };
      const started = performance.now();
      try {
        await o.consumer.consume(batch, this.#kill.signal);
        o.counters.recordsAccepted += records.length;
        o.emit({ type: 'exported', partitionId: o.partitionId, records: records.length, events: events.length, durationMs: performance.now() - started });
      } catch (error) {
        if (this.#kill.signal.aborted) return false;
        const err = error instanceof Error ? error : new Error(String(error));
        o.counters.recordsRefused += records.length;
        o.emit({ type: 'exportFailed', partitionId: o.partitionId, records: records.length, error: err, permanent: true });
        const written = await this.#deadLetter(events, err);
        if (!written) return false;
      }
    }
    this.#lastSequenceNumber = last.sequenceNumber;
    this.#lastOffset = last.offset;
    this.#lastEnqueuedTime = last.enqueuedTime;
    o.checkpointer.mark(last.sequenceNumber, last.offset, events.length);
    return true;
  }

  /** Writes a refused batch to the dead-letter store, retrying until it is durable or the pump is killed. */
  async #deadLetter(events: ReceivedEvent[], error: Error): Promise<boolean> {
    const o = this.#o;
    const type = error.name === 'RetriesExhaustedError' || !isPermanentError(error) ? 'retries_exhausted' : 'permanent';
    if (!o.deadLetter) {
      o.logger.error('export refused and no dead_letter store is configured: records dropped', {
        partitionId: o.partitionId, events: events.length, firstSequenceNumber: events[0]!.sequenceNumber, lastSequenceNumber: events[events.length - 1]!.sequenceNumber, error: error.message, type,
      });
      return true;
    }
    const at = new Date();
    const entries = events.map((event) => ({ event, source: o.context, error: { type, message: error.message }, at }));
    for (let attempt = 1; ; attempt++) {
      try {
        await o.deadLetter.write(entries);
        o.counters.eventsDeadLettered += events.length;
        o.emit({ type: 'deadLettered', partitionId: o.partitionId, events: events.length, error });
        return true;
      } catch (dlError) {
        o.logger.error('dead-letter write failed; retrying (the partition waits: nothing is checkpointed past it)', { partitionId: o.partitionId, attempt, error: String(dlError) });
        try {
          await sleep(backoffDelayMs(attempt, 1_000, 30_000), this.#kill.signal);
        } catch {
          return false;
        }
      }
    }
  }

  async #checkpoint(final: boolean): Promise<void> {
    const o = this.#o;
    try {
      const wrote = final ? await o.checkpointer.flush() : await o.checkpointer.flushIfDue();
      if (wrote) {
        o.counters.checkpointWrites++;
        o.emit({ type: 'checkpointWritten', partitionId: o.partitionId, sequenceNumber: o.checkpointer.writtenSequenceNumber()! });
      }
    } catch (error) {
      const err = error instanceof Error ? error : new Error(String(error));
      o.counters.checkpointFailures++;
      o.emit({ type: 'checkpointFailed', partitionId: o.partitionId, error: err });
      o.logger.warn('checkpoint write failed', { partitionId: o.partitionId, error: err.message, final });
      if (err instanceof CheckpointFencedError && !final) throw err;
    }
  }

  /** Offset of the last processed event, if any. */
  get lastOffset(): string | undefined {
    return this.#lastOffset;
  }
}

/** The sequence number a start position is known to begin after, when it names one. */
function startSequenceNumber(p: StartPosition): number | undefined {
  if (p.kind === 'sequenceNumber') return p.inclusive ? p.sequenceNumber - 1 : p.sequenceNumber;
  if (p.kind === 'earliest') return -1;
  return undefined;
}
