import type { Counter, Meter } from '@opentelemetry/api';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import { logRecordCount, type SignalBatch } from '../pipeline/signal-batch.ts';
import { isPartialRefusal, type PartialRefusalError } from '../pipeline/partial-refusal.ts';
import { SIGNALS, type Signal } from '../pipeline/signals.ts';
import type { ExportAttempt } from '../pipeline/retry.ts';

/** Failed attempts of each exporter as they happen, retries included (not in the collector). */
export const FAILED_ATTEMPTS_METRIC = 'otelcol_exporter_failed_attempts';

/** The collector's exporter counter names and units, per signal (exporterhelper's obsreport). */
const COUNTERS: Readonly<Record<Signal, { sent: string; failed: string; what: string; unit: string }>> = {
  logs: {
    sent: 'otelcol_exporter_sent_log_records',
    failed: 'otelcol_exporter_send_failed_log_records',
    what: 'log records',
    unit: '{records}',
  },
  metrics: {
    sent: 'otelcol_exporter_sent_metric_points',
    failed: 'otelcol_exporter_send_failed_metric_points',
    what: 'metric points',
    unit: '{datapoints}',
  },
  traces: {
    sent: 'otelcol_exporter_sent_spans',
    failed: 'otelcol_exporter_send_failed_spans',
    what: 'spans',
    unit: '{spans}',
  },
};

/**
 * The collector's exporter counters, per signal: `otelcol_exporter_sent_log_records`,
 * `otelcol_exporter_send_failed_log_records`, `..._sent_metric_points`, `..._send_failed_metric_points`,
 * `..._sent_spans`, `..._send_failed_spans`, labelled `exporter` with the component id. As in the collector,
 * they count at the exporter's edge, outside its `retry_on_failure`: items count as failed once the exporter
 * gave up on them (or refused them permanently), not at every attempt. When the exporter delivered part of a
 * batch and refused the rest for good (a `PartialRefusalError`), only the refused items count as failed and
 * the others as sent. A call stopped by shutdown counts as neither.
 */
export class ExporterMetrics {
  readonly #sent: Record<Signal, Counter>;
  readonly #failed: Record<Signal, Counter>;
  readonly #failedAttempts: Counter;

  constructor(meter: Meter) {
    const counter = (signal: Signal, kind: 'sent' | 'failed') => {
      const c = COUNTERS[signal];
      const description =
        kind === 'sent'
          ? `Number of ${c.what} successfully sent to destination.`
          : `Number of ${c.what} in failed attempts to send to destination.`;
      return meter.createCounter(c[kind], { description, unit: c.unit });
    };
    const counters = (kind: 'sent' | 'failed') => ({
      logs: counter('logs', kind),
      metrics: counter('metrics', kind),
      traces: counter('traces', kind),
    });
    this.#sent = counters('sent');
    this.#failed = counters('failed');
    this.#failedAttempts = meter.createCounter(FAILED_ATTEMPTS_METRIC, {
      description:
        'Export attempts that failed, each retry of retry_on_failure included: it rises from the first failure, ' +
        'while otelcol_exporter_send_failed_* count items only once the exporter gave up on them.',
      unit: '{attempts}',
    });
  }

  /** Counts a failed attempt of `exporterId` (see RetryOptions.onAttempt); delivered ones count nothing here. */
  attempt(exporterId: string, attempt: ExportAttempt): void {
    if (!attempt.ok) this.#failedAttempts.add(1, { exporter: exporterId });
  }

  /**
   * `exporter` counted under `exporterId`; every other method passes through. The series of `signals` (the
   * signals of the pipelines the exporter is in; default logs) exist at 0 from the start, so a rate() or an
   * alert sees 0 rather than nothing; another signal's series appear with its first batch.
   */
  wrap(exporterId: string, exporter: SignalConsumer, signals: readonly Signal[] = ['logs']): SignalConsumer {
    const attributes = { exporter: exporterId };
    this.#failedAttempts.add(0, attributes);
    for (const signal of signals) {
      this.#sent[signal].add(0, attributes);
      this.#failed[signal].add(0, attributes);
    }
    const count = (counters: Record<Signal, Counter>, signal: Signal, n: number) => {
      if (n > 0) counters[signal].add(n, attributes);
    };
    return {
      consume: async (batch, signal) => {
        try {
          await exporter.consume(batch, signal);
        } catch (error) {
          if (!signal?.aborted) {
            const refused = isPartialRefusal(error) ? refusedCounts(error) : undefined;
            for (const s of SIGNALS) {
              const items = itemCount(batch, s);
              const failed = refused ? Math.min(items, refused[s]) : items;
              count(this.#failed, s, failed);
              count(this.#sent, s, items - failed);
            }
          }
          throw error;
        }
        for (const s of SIGNALS) count(this.#sent, s, itemCount(batch, s));
      },
      forceFlush: exporter.forceFlush ? () => exporter.forceFlush!() : undefined,
      shutdown: exporter.shutdown ? () => exporter.shutdown!() : undefined,
      attachProducer: exporter.attachProducer ? () => exporter.attachProducer!() : undefined,
      acceptsEncodedLogs: exporter.acceptsEncodedLogs === true,
    };
  }
}

function itemCount(batch: SignalBatch, signal: Signal): number {
  if (signal === 'logs') return logRecordCount(batch);
  return signal === 'metrics' ? (batch.metrics?.length ?? 0) : (batch.spans?.length ?? 0);
}

/** Refused items per signal, each item once (a fan-out may list one twice). */
function refusedCounts(error: PartialRefusalError): Record<Signal, number> {
  const logs = new Set<unknown>();
  const metrics = new Set<unknown>();
  const traces = new Set<unknown>();
  for (const refusal of error.refusals) {
    for (const r of refusal.records) logs.add(r);
    for (const m of refusal.metrics ?? []) metrics.add(m);
    for (const s of refusal.spans ?? []) traces.add(s);
  }
  return { logs: logs.size, metrics: metrics.size, traces: traces.size };
}
