import type { ReceivedEvent } from '../../backends/consumer.ts';
import { batchItemCount, type SignalBatch } from '../../pipeline/signal-batch.ts';
import { raceAbort } from '../../component/abort.ts';
import type { PartitionPumpOptions } from '../partition-pump-options.ts';
import type { EncodedDecode } from './decode-pool.ts';

/** A received batch and what the pipeline gets of it (undefined when decoding left no item). */
export interface PreparedBatch {
  readonly events: ReceivedEvent[];
  readonly batch: SignalBatch | undefined;
}

/** What the decode step reads of the pump's options. */
export type BatchPreparerOptions = Pick<
  PartitionPumpOptions,
  | 'partitionId'
  | 'decode'
  | 'context'
  | 'offload'
  | 'signals'
  | 'receiverId'
  | 'counters'
  | 'logger'
  | 'emit'
  | 'gapsAccounted'
>;

/**
 * The pump's decode step: counts a received batch, notes a retention gap, and decodes it here or on a decode
 * thread into what the pipeline gets (only the items of the signals it takes).
 */
export class BatchPreparer {
  /** Last sequence number received (decoded, maybe still being exported): where the next batch must follow. */
  lastReceived = -1;
  readonly #o: BatchPreparerOptions;
  /** The pump's kill: a decode thread is not waited for once it aborts. */
  readonly #kill: AbortSignal;

  constructor(options: BatchPreparerOptions, kill: AbortSignal) {
    this.#o = options;
    this.#kill = kill;
  }

  /**
   * Counts and decodes a received batch (noting a retention gap). Runs while the previous batch may still
   * be exported: decoding overlaps the export's wait instead of following it. With `offload`, the decode
   * runs on a decode thread and this returns its promise, which never rejects.
   */
  prepare(events: ReceivedEvent[]): PreparedBatch | Promise<PreparedBatch> {
    const o = this.#o;
    const first = events[0]!;
    const last = events[events.length - 1]!;
    let bytes = 0;
    for (const e of events) bytes += e.body.byteLength;
    o.counters.eventsReceived += events.length;
    o.counters.bytesReceived += bytes;
    // Events missing between what we received and what arrived expired before we read them.
    if (!o.gapsAccounted && this.lastReceived >= 0 && first.sequenceNumber > this.lastReceived + 1) {
      const lost = first.sequenceNumber - this.lastReceived - 1;
      o.counters.eventsLostToRetention += lost;
      o.emit({
        type: 'retentionGap',
        partitionId: o.partitionId,
        eventsLost: lost,
        checkpointSequenceNumber: this.lastReceived,
        firstRetainedSequenceNumber: first.sequenceNumber,
      });
      o.logger.error('events expired before they were read (retention gap)', {
        partitionId: o.partitionId,
        eventsLost: lost,
      });
    }
    this.lastReceived = last.sequenceNumber;
    const job = o.offload?.(events, o.context);
    if (job) {
      // A kill does not wait for a decode thread (a stuck one would hold the stop): the batch is decoded
      // here and its export, under the same kill, ends at once without a checkpoint.
      return raceAbort(job, this.#kill).then(
        (done) => this.#fromEncoded(events, done),
        (error: unknown) => {
          if (this.#kill.aborted) return this.#decodeHere(events);
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

  /** `batch` (encoded on a decode thread) with its log records decoded again here, as objects. */
  asRecords(events: ReceivedEvent[], batch: SignalBatch): SignalBatch {
    const decoded = this.#o.decode(events, this.#o.context);
    this.#o.logger.debug('encoded log records refused for their size; sending them as records', {
      partitionId: this.#o.partitionId,
      records: decoded.records.length,
    });
    return { records: decoded.records, source: batch.source };
  }

  /** A batch decoded and encoded on a decode thread, counted as `#decodeHere` counts. */
  #fromEncoded(events: ReceivedEvent[], done: EncodedDecode): PreparedBatch {
    const o = this.#o;
    const records = done.encodedLogs.records;
    o.counters.eventsDecodedOffThread += events.length;
    this.#countDecoded(records, done.metricPoints, done.spans, done.stats.failedEvents);
    // Offloading is for logs-only receivers: other items (none from a logs-only decoder) have no pipeline.
    if (done.metricPoints + done.spans > 0) o.counters.itemsWithoutPipeline += done.metricPoints + done.spans;
    const batch: SignalBatch = { records: [], encodedLogs: done.encodedLogs, source: this.#source(events) };
    return { events, batch: records > 0 ? batch : undefined };
  }

  /** What a decode made, wherever it ran. */
  #countDecoded(records: number, metricPoints: number, spans: number, failedEvents: number): void {
    const c = this.#o.counters;
    c.recordsDecoded += records;
    c.metricPointsDecoded += metricPoints;
    c.spansDecoded += spans;
    c.eventsFailedDecode += failedEvents;
  }

  #source(events: readonly ReceivedEvent[]): SignalBatch['source'] {
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

  #decodeHere(events: ReceivedEvent[]): PreparedBatch {
    const o = this.#o;
    const first = events[0]!;
    const last = events[events.length - 1]!;
    const decoded = o.decode(events, o.context);
    const { records: made, metrics: points, spans: madeSpans, stats } = decoded;
    this.#countDecoded(made.length, points?.length ?? 0, madeSpans?.length ?? 0, stats.failedEvents);
    const { records, metrics, spans } = this.#routable(decoded, first.sequenceNumber, last.sequenceNumber);
    // Events with no item of any signal (e.g. a category filter took all) are marked without an export.
    const batch: SignalBatch = {
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
  #routable<T extends Pick<SignalBatch, 'records' | 'metrics' | 'spans'>>(decoded: T, first: number, last: number) {
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
}
