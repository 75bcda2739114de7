import type { ReceivedEvent } from '../../backends/consumer.ts';
import type { SignalBatch } from '../../pipeline/signal-batch.ts';
import type { PartitionState } from '../receiver-status.ts';
import { isDataRefused, isPermanentError } from '../../component/errors.ts';
import { isPartialRefusal, type PartialRefusalError } from '../../pipeline/partial-refusal.ts';
import { isEncodedLogsRefused } from '../../pipeline/encoded-logs-refusal.ts';
import { pause } from '../../component/abort.ts';
import { backoffDelayMs } from '../../component/backoff.ts';
import type { PartitionPumpOptions } from '../partition-pump-options.ts';
import { deadLetterRefused } from './dead-letter-refused.ts';
import { batchSignals, itemCounts, refusedEvents, type ItemCounts } from './refused-events.ts';

/**
 * Refusals of encoded records (`EncodedLogsRefusedError`) answered by sending the batch again at once, as
 * records; past this, such an error is handled as any permanent one (a consumer that keeps asking). 3.
 */
const MAX_ENCODED_REFUSALS = 3;
/** Wait between attempts at a batch the pipeline refused, while the partition holds it: 1 s to 60 s. */
const HOLD_INITIAL_MS = 1_000;
const HOLD_MAX_MS = 60_000;
/**
 * A batch the pipeline has not delivered after this long puts its partition in the `waiting` state (since the
 * hand-over), so health sees a stage that holds it: an exporter retrying inside its `retry_on_failure`, a
 * batch processor waiting. 5 000 ms: longer than a healthy export, well inside the 30 s `degraded_after`.
 */
export const DELIVERY_WAIT_REPORT_MS = 5_000;

/** What the export step needs of its pump. */
export interface BatchExporterDeps {
  readonly options: PartitionPumpOptions;
  /** The pump's kill: aborts the consume call and ends the attempts (ownership lost, shutdown timeout). */
  readonly kill: AbortSignal;
  /** The pump's graceful stop: ends the wait between attempts at a held batch. */
  readonly stopReading: AbortSignal;
  /** The pump's state, and how to change it (announced as `partitionState` when it changes). */
  readonly state: () => PartitionState;
  readonly setState: (next: PartitionState) => void;
  /** The batch's log records decoded again here, as objects (after encoded records were refused). */
  readonly asRecords: (events: ReceivedEvent[], batch: SignalBatch) => SignalBatch;
}

/** Where one batch's delivery stands, for the partition's state. */
interface Ticket {
  /** Undefined while nothing is to report: being exported for less than the report delay. */
  state: PartitionState | undefined;
}

/**
 * The pump's export step: batches to the pipeline, with their refusal, hold and dead-letter handling. Several
 * of a partition's batches may be exported at once; the partition's state follows the oldest one held:
 * `retrying` while any batch is refused and held, else `waiting` while any is undelivered past the report
 * delay (since its hand-over), else `reading`. A later batch delivered does not clear an earlier one's state.
 */
export class BatchExporter {
  readonly #d: BatchExporterDeps;
  /** Batches being exported, in hand-over order. */
  readonly #tickets = new Set<Ticket>();

  constructor(deps: BatchExporterDeps) {
    this.#d = deps;
  }

  /** Sets one batch's state (undefined: delivered or on time) and the partition's from all of them. */
  #report(ticket: Ticket, state: PartitionState | undefined): void {
    ticket.state = state;
    const d = this.#d;
    let held: PartitionState | undefined;
    for (const t of this.#tickets) {
      if (t.state?.state === 'retrying') {
        held = t.state;
        break;
      }
      held ??= t.state;
    }
    const current = d.state();
    if (held) {
      // A reader's own trouble (`retrying` with another cause) is not hidden by a batch merely waiting.
      if (held.state === 'retrying' || current.state === 'reading' || current.cause === 'export') d.setState(held);
    } else if (current.state !== 'reading' && current.cause === 'export') {
      d.setState({ state: 'reading', since: Date.now() });
    }
  }

  /**
   * Hands the batch to the pipeline until it is accepted, dead-lettered or (by explicit choice) dropped.
   * Without a dead-letter store the partition holds the batch and tries again with a capped backoff: the
   * hub is the buffer, so nothing is checkpointed past an unexported event. False when stopped first.
   */
  async export(batch: SignalBatch, events: ReceivedEvent[]): Promise<boolean> {
    const ticket: Ticket = { state: undefined };
    this.#tickets.add(ticket);
    try {
      return await this.#attempts(batch, events, ticket);
    } finally {
      this.#tickets.delete(ticket);
      this.#report(ticket, undefined);
    }
  }

  async #attempts(batch: SignalBatch, events: ReceivedEvent[], ticket: Ticket): Promise<boolean> {
    const d = this.#d;
    const o = d.options;
    // What is still to deliver: after a partial refusal while the partition holds, only the refused records
    // are tried again, so the delivered ones are not sent again on every attempt.
    let pending = batch;
    let encodedRefusals = 0;
    for (let attempt = 1; ; attempt++) {
      const started = performance.now();
      const handedOver = Date.now();
      // No timer of its own per batch when the batch already says why it waits (a held batch is `retrying`).
      const waiting = setTimeout(() => {
        if (!ticket.state) this.#report(ticket, { state: 'waiting', since: handedOver, cause: 'export' });
      }, o.deliveryWaitReportMs ?? DELIVERY_WAIT_REPORT_MS);
      waiting.unref();
      try {
        await o.consumer.consume(pending, d.kill);
        clearTimeout(waiting);
        const counts = itemCounts(pending);
        this.#count('Accepted', counts);
        o.emit({
          type: 'exported',
          partitionId: o.partitionId,
          ...counts,
          events: events.length,
          durationMs: performance.now() - started,
        });
        return true;
      } catch (error) {
        clearTimeout(waiting);
        if (d.kill.aborted) return false;
        if (isEncodedLogsRefused(error) && encodedRefusals++ < MAX_ENCODED_REFUSALS) {
          // The records could not go as encoded bytes (too large for one request): as objects they can be
          // split and refused one by one, as without decode workers. Decoded again here; counted once.
          // A batch already of records was combined (`batch`) with another partition's refused encoded
          // records: that partition now sends records too, so the same batch goes again.
          if (pending.encodedLogs) pending = d.asRecords(events, pending);
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
            return deadLetterRefused(o, partial.events, d.kill);
          }
          this.#count('Refused', counts);
          const signals = batchSignals(pending);
          return deadLetterRefused(
            o,
            events.map((event) => ({ event, error: err, signals })),
            d.kill,
          );
        }
        if (partial && isPartialRefusal(err)) {
          this.#count('Accepted', minus(counts, partial.refused));
          pending = onlyRefused(pending, err);
        }
        const delayMs = backoffDelayMs(attempt, o.holdInitialMs ?? HOLD_INITIAL_MS, o.holdMaxMs ?? HOLD_MAX_MS);
        this.#report(ticket, { state: 'retrying', since: Date.now(), cause: 'export', permanent, error: err });
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
        if (!(await pause(delayMs, d.stopReading))) return false;
      }
    }
  }

  /** Adds a batch's items to the accepted or refused counters of their signals. */
  #count(kind: 'Accepted' | 'Refused', n: ItemCounts): void {
    const c = this.#d.options.counters;
    c[`records${kind}`] += n.records;
    c[`metricPoints${kind}`] += n.metricPoints;
    c[`spans${kind}`] += n.spans;
  }
}

function minus(a: ItemCounts, b: ItemCounts): ItemCounts {
  return { records: a.records - b.records, metricPoints: a.metricPoints - b.metricPoints, spans: a.spans - b.spans };
}

/** What is left to deliver of `batch` after a partial refusal: the refused items of each signal. */
function onlyRefused(batch: SignalBatch, error: PartialRefusalError): SignalBatch {
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
