import { PrometheusExporter } from '@opentelemetry/exporter-prometheus';
import { AggregationTemporality, InstrumentType } from '@opentelemetry/sdk-metrics';

/**
 * A Prometheus exporter whose observable gauges show only what the last callback observed.
 *
 * Written for @opentelemetry/sdk-metrics 2.12 and @opentelemetry/exporter-prometheus 0.223: the exporter
 * asks for cumulative temporality for every instrument, and the SDK's cumulative merge keeps every
 * attribute set a callback ever observed, at its last value, forever (open-telemetry/opentelemetry-js
 * issues 2997 and 4096). For a per-partition gauge that is a lie: a partition this instance gave away,
 * or whose owner changed, would keep its frozen lag. Delta temporality for observable gauges reports only
 * the sets observed since the previous collection; a gauge's last value is the same under both, and the
 * serializer writes gauges the same way whatever the temporality. Counters and histograms stay cumulative.
 * test/unit/telemetry/receiver-metrics.test.ts fails if the SDK changes under this.
 */
export class LiveGaugesPrometheusExporter extends PrometheusExporter {
  override selectAggregationTemporality(instrumentType: InstrumentType): AggregationTemporality {
    if (instrumentType === InstrumentType.OBSERVABLE_GAUGE) return AggregationTemporality.DELTA;
    return super.selectAggregationTemporality(instrumentType);
  }
}
