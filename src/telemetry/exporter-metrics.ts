import type { Counter, Meter } from '@opentelemetry/api';
import type { LogsConsumer } from '../pipeline/consumer.ts';

/**
 * The collector's exporter counters: `otelcol_exporter_sent_log_records` and
 * `otelcol_exporter_send_failed_log_records`, labelled `exporter` with the component id. As in the
 * collector, they count at the exporter's edge, outside its `retry_on_failure`: a batch counts as failed
 * once the exporter gave up on it (or refused it permanently), not at every attempt. A call stopped by
 * shutdown counts as neither.
 */
export class ExporterMetrics {
  readonly #sent: Counter;
  readonly #failed: Counter;

  constructor(meter: Meter) {
    this.#sent = meter.createCounter('otelcol_exporter_sent_log_records', {
      description: 'Number of log records successfully sent to destination.',
      unit: '{records}',
    });
    this.#failed = meter.createCounter('otelcol_exporter_send_failed_log_records', {
      description: 'Number of log records in failed attempts to send to destination.',
      unit: '{records}',
    });
  }

  /** `exporter` counted under `exporterId`; every other method passes through. */
  wrap(exporterId: string, exporter: LogsConsumer): LogsConsumer {
    const attributes = { exporter: exporterId };
    // Both series exist from the start, so a rate() or an alert sees 0 rather than nothing.
    this.#sent.add(0, attributes);
    this.#failed.add(0, attributes);
    return {
      consume: async (batch, signal) => {
        try {
          await exporter.consume(batch, signal);
        } catch (error) {
          if (!signal?.aborted) this.#failed.add(batch.records.length, attributes);
          throw error;
        }
        this.#sent.add(batch.records.length, attributes);
      },
      forceFlush: exporter.forceFlush ? () => exporter.forceFlush!() : undefined,
      shutdown: exporter.shutdown ? () => exporter.shutdown!() : undefined,
      attachProducer: exporter.attachProducer ? () => exporter.attachProducer!() : undefined,
    };
  }
}
