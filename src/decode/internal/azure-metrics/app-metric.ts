import type { MetricPoint } from '../../../pipeline/signals.ts';
import {
  aggregate,
  BARE_NAME,
  field,
  InvalidMetricRecord,
  minusNanos,
  recordTime,
  requiredString,
} from './metric-fields.ts';
import { gaugePoint } from './metric-point.ts';
import { ATTR_AZURE_RESOURCE_ID, type AppMetricResources } from './metric-resources.ts';
import type { MetricMapping } from './platform-metric.ts';

/**
 * `Type` of an Application Insights metric record
 * (https://learn.microsoft.com/azure/azure-monitor/reference/tables/appmetrics).
 */
export const APP_METRICS_TYPE = 'AppMetrics';

/** AppMetrics records carry no time grain: Go takes one minute, the grain App Insights pre-aggregates to. */
const APP_METRIC_GRAIN_NANOS = 60_000_000_000;

/** AppMetrics columns of total, count, minimum and maximum: AGGREGATION_SUFFIXES' order (no average column). */
const COLUMNS = ['Sum', 'ItemCount', 'Min', 'Max'] as const;

/** Record fields → resource attributes, in the order Go puts them (after `cloud.provider`); "" when absent. */
const RESOURCE_FIELDS = [
  ['ClientCountryOrRegion', 'cloud.region'],
  ['AppRoleInstance', 'service.instance.id'],
  ['AppRoleName', 'service.name'],
  ['AppVersion', 'service.version'],
  ['ClientOS', 'os.name'],
] as const;

/**
 * An Application Insights `AppMetrics` record → gauges `<Name>_total|_count|_minimum|_maximum` from `Sum`,
 * `ItemCount`, `Min`, `Max` (each only when present), or one gauge `<Name>` = Sum / ItemCount with
 * `metric_aggregation: average`. The resource describes the application (role, version, region, OS) plus
 * the record's `Properties`, as the Go receiver builds it. Appends nothing when it throws.
 */
export function appendAppMetric(
  record: Readonly<Record<string, unknown>>,
  mapping: MetricMapping,
  resources: AppMetricResources,
  out: MetricPoint[],
): void {
  const names = mapping.names.get(requiredString(record, 'Name'));
  const time = recordTime(record, mapping.timeParsers);
  const startTime = minusNanos(time, APP_METRIC_GRAIN_NANOS);
  const resource = resources.get(resourceAttributes(record));
  const values = COLUMNS.map((key) => aggregate(record, key));
  if (mapping.averageOnly) {
    const [total, count] = values;
    if (total === undefined || count === undefined) {
      throw new InvalidMetricRecord('metric_aggregation average needs Sum and ItemCount');
    }
    out.push(gaugePoint(resource, names[BARE_NAME]!, startTime, time, total / count));
    return;
  }
  if (values.every((v) => v === undefined)) throw new InvalidMetricRecord('no Sum, ItemCount, Min or Max');
  for (let i = 0; i < values.length; i++) {
    const value = values[i];
    if (value !== undefined) out.push(gaugePoint(resource, names[i]!, startTime, time, value));
  }
}

function resourceAttributes(record: Readonly<Record<string, unknown>>): Record<string, string> {
  // telemetry.sdk.version names the application's SDK here, not this receiver (Go does the same).
  const attributes: Record<string, string> = {
    'telemetry.sdk.version': text(field(record, 'SDKVersion'), 'SDKVersion'),
    'cloud.provider': 'azure',
  };
  for (const [key, attribute] of RESOURCE_FIELDS) attributes[attribute] = text(field(record, key), key);
  const id = field(record, 'resourceId');
  if (id !== undefined && id !== '') attributes[ATTR_AZURE_RESOURCE_ID] = text(id, 'resourceId');
  const properties = field(record, 'Properties');
  if (properties !== undefined) {
    if (typeof properties !== 'object' || Array.isArray(properties)) {
      throw new InvalidMetricRecord('Properties is not an object');
    }
    // After the fixed attributes, as in Go: a property of the same name wins.
    for (const [key, value] of Object.entries(properties as Record<string, unknown>)) {
      attributes[key] = text(value, `Properties.${key}`);
    }
  }
  return attributes;
}

/** A field Go reads as a string: "" when absent; a number or boolean as its JSON text; nothing nested. */
function text(value: unknown, name: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new InvalidMetricRecord(`${name} is not a string`);
}
