import type { MetricPoint } from '../../../pipeline/signals.ts';
import type { ResourceCache } from '../resource-cache.ts';
import type { TimeLayoutParser } from '../time-layout.ts';
import {
  aggregate,
  AGGREGATION_SUFFIXES,
  BARE_NAME,
  field,
  InvalidMetricRecord,
  minusNanos,
  parseDurationNanos,
  recordTime,
  requiredString,
  type MetricNames,
} from './metric-fields.ts';
import { gaugePoint } from './metric-point.ts';

/** What decoding metric records needs; built once per decoder. */
export interface MetricMapping {
  /** `metric_aggregation: average`: one gauge per record instead of one per aggregation. */
  readonly averageOnly: boolean;
  /** `time_formats.metrics`, compiled. */
  readonly timeParsers: readonly TimeLayoutParser[];
  /** The decoder's cache of gauge names. */
  readonly names: MetricNames;
}

/**
 * An Azure platform metric record (diagnostic settings `AllMetrics`:
 * https://learn.microsoft.com/azure/azure-monitor/platform/stream-monitoring-data-event-hubs#data-formats)
 * → one gauge per aggregation present, named `<metricName>_<aggregation>`, or one gauge
 * `<metricName>` = total / count with `metric_aggregation: average`. The point's time is `time`; its start
 * is `time` minus `timeGrain`. Reads and checks everything before appending, so a record that throws
 * InvalidMetricRecord has appended nothing.
 */
export function appendPlatformMetric(
  record: Readonly<Record<string, unknown>>,
  mapping: MetricMapping,
  resources: ResourceCache,
  out: MetricPoint[],
): void {
  const names = mapping.names.get(requiredString(record, 'metricName'));
  const time = recordTime(record, mapping.timeParsers);
  const grainText = field(record, 'timeGrain');
  if (grainText === undefined) throw new InvalidMetricRecord('timeGrain is missing');
  const grain = typeof grainText === 'string' ? parseDurationNanos(grainText) : undefined;
  if (grain === undefined) {
    throw new InvalidMetricRecord(`timeGrain ${JSON.stringify(grainText)} is not an ISO 8601 duration`);
  }
  const startTime = minusNanos(time, grain);
  const id = field(record, 'resourceId');
  if (id !== undefined && typeof id !== 'string') throw new InvalidMetricRecord('resourceId is not a string');
  const resource = resources.get(id);

  const values = AGGREGATION_SUFFIXES.map((key) => aggregate(record, key));
  if (mapping.averageOnly) {
    const [total, count, , , average] = values;
    // Go divides total by count (Azure rounds `average` in the JSON); `average` is the fallback when a
    // resource does not export both.
    const value = total !== undefined && count !== undefined ? total / count : average;
    if (value === undefined)
      throw new InvalidMetricRecord('metric_aggregation average needs total and count, or average');
    out.push(gaugePoint(resource, names[BARE_NAME]!, startTime, time, value));
    return;
  }
  if (values.every((v) => v === undefined))
    throw new InvalidMetricRecord('no total, count, minimum, maximum or average');
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    // An aggregation the resource does not export is left out rather than written as 0.
    if (value !== undefined) out.push(gaugePoint(resource, names[i]!, startTime, time, value));
  }
}
