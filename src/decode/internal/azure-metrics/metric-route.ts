import type { RecordRoute } from '../../azure-decoder.ts';
import type { DecoderOptions } from '../../decoder.ts';
import { compileTimeLayout } from '../time-layout.ts';
import { appendAppMetric, APP_METRICS_TYPE } from './app-metric.ts';
import { ERROR_INVALID_METRIC, field, InvalidMetricRecord, MetricNames } from './metric-fields.ts';
import { AppMetricResources, createPlatformResources } from './metric-resources.ts';
import { appendPlatformMetric, type MetricMapping } from './platform-metric.ts';

/**
 * The `azure` format's metrics route (used when the receiver feeds a metrics pipeline). Takes:
 * - Azure platform metric records (diagnostic settings `AllMetrics`): a `metricName` field and no
 *   `category` (every resource-log record has a category; no metric record does);
 * - Application Insights metric records: `Type` = `AppMetrics`.
 * Each becomes gauges as the Go receiver's azure metrics unmarshaler makes them (docs/formats.md,
 * Metrics). Every other record is left a log record. A metric record that cannot be decoded (no time,
 * an unknown time grain, a value that is not a number, ...) is not dropped, as Go drops it: it stays a
 * log record with `error.type` = `invalid_metric_record` and `error.message` saying why, and is counted
 * in DecodeStats.refusedRecords.
 *
 * Invalid `metricTimeFormats` throw here, at configuration time.
 */
export function createMetricRoute(options: DecoderOptions): RecordRoute {
  const mapping: MetricMapping = {
    averageOnly: options.metricAggregation === 'average',
    names: new MetricNames(),
    timeParsers: (options.metricTimeFormats ?? []).map((layout, index) => {
      try {
        return compileTimeLayout(layout);
      } catch (error) {
        throw new Error(`metricTimeFormats[${index}]: ${(error as Error).message}`, { cause: error });
      }
    }),
  };
  const platformResources = createPlatformResources();
  const appResources = new AppMetricResources();

  return (record, _enqueuedMs, state) => {
    // The cheap exact-name checks come first: this runs for every record of every event.
    const platform = record.metricName !== undefined && field(record, 'category') === undefined;
    if (!platform && record.Type !== APP_METRICS_TYPE) return false;
    try {
      if (platform) appendPlatformMetric(record, mapping, platformResources, state.metrics);
      else appendAppMetric(record, mapping, appResources, state.metrics);
      return true;
    } catch (error) {
      if (!(error instanceof InvalidMetricRecord)) throw error;
      return { errorType: ERROR_INVALID_METRIC, errorMessage: error.message };
    }
  };
}
