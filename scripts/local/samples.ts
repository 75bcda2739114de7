import { metricRecord, minuteIso, SAMPLE_METRIC_RESOURCES } from './sample-metric-records.ts';
import { SAMPLE_BUILDERS } from './sample-records.ts';
import { traceRecords } from './sample-trace-records.ts';

/**
 * Sample Azure resource-log event bodies, as diagnostic settings send them to an Event Hub, for the demo
 * generator (`npm start`), the tests and the benchmark. Each category's records follow the fields Azure
 * documents for it; see scripts/local/sample-records.ts. Platform metrics (`sampleMetricBody`) and
 * Application Insights requests and dependencies (`sampleTraceBody`) come in events of their own, as
 * Azure sends them: scripts/local/sample-metric-records.ts and sample-trace-records.ts.
 */
export type SampleCategory = keyof typeof SAMPLE_BUILDERS;

/** Every category, in a stable order. */
export const SAMPLE_CATEGORIES = Object.keys(SAMPLE_BUILDERS) as readonly SampleCategory[];

export interface SampleOptions {
  /** Time of the first record. Default now. */
  readonly time?: Date;
  /** Records in the body. Default 1. */
  readonly records?: number;
  /** Varies ids, addresses and outcomes between calls; record k uses index + k. Default 0. */
  readonly index?: number;
  /** Spacing between the records' times, in ms. Default 137 ms. */
  readonly spacingMs?: number;
}

/** ISO 8601 with 7 fractional digits (100 ns ticks), as Azure writes times. */
function azureIso(date: Date, tick: number): string {
  const millis = String(date.getUTCMilliseconds()).padStart(3, '0');
  const ticks = String(tick % 10_000).padStart(4, '0');
  return `${date.toISOString().slice(0, 19)}.${millis}${ticks}Z`;
}

/**
 * Writes `properties` the way Azure Functions does: single-quoted keys and strings, inner apostrophes left
 * unescaped. This is not valid JSON; the decoder's `single_quotes` sanitizer repairs it.
 */
function singleQuoted(value: Record<string, unknown>): string {
  const parts = Object.entries(value).map(([k, v]) => `'${k}':${typeof v === 'string' ? `'${v}'` : JSON.stringify(v)}`);
  return `{${parts.join(',')}}`;
}

/** The records (as objects) of one sample body. For `functions` these are the records before Azure's quoting. */
export function sampleResourceLogRecords(
  category: SampleCategory,
  options: SampleOptions = {},
): Record<string, unknown>[] {
  const builder = SAMPLE_BUILDERS[category];
  if (!builder)
    throw new Error(`unknown sample category "${String(category)}"; known: ${SAMPLE_CATEGORIES.join(', ')}`);
  const start = (options.time ?? new Date()).getTime();
  const count = Math.max(1, options.records ?? 1);
  const spacing = options.spacingMs ?? 137;
  const first = options.index ?? 0;
  const records: Record<string, unknown>[] = [];
  for (let k = 0; k < count; k++) {
    const date = new Date(start + k * spacing);
    records.push(builder({ iso: azureIso(date, first + k), date, i: first + k }));
  }
  return records;
}

/** One event body, `{"records":[...]}` text exactly as Azure sends it (Functions' quirks included). */
export function sampleResourceLogBody(category: SampleCategory, options: SampleOptions = {}): string {
  const records = sampleResourceLogRecords(category, options);
  if (category !== 'functions') return JSON.stringify({ records });
  const marker = (k: number): string => `__single_quoted_properties_${k}__`;
  const text = JSON.stringify({ records: records.map((r, k) => ({ ...r, properties: marker(k) })) });
  return records.reduce<string>(
    (acc, r, k) => acc.replace(JSON.stringify(marker(k)), () => singleQuoted(r.properties as Record<string, unknown>)),
    text,
  );
}

/**
 * Azure platform metric records (diagnostic settings, `AllMetrics`) of one resource: record k is metric
 * k of the resource's list, cycling to the minute before when there are more records than metrics. The
 * resource is `SAMPLE_METRIC_RESOURCES[index % length]`; values vary with `index`. `time` is floored to
 * the minute (Azure's `PT1M` grain); `spacingMs` is not used.
 */
export function sampleMetricRecords(options: SampleOptions = {}): Record<string, unknown>[] {
  const i = options.index ?? 0;
  const resource = SAMPLE_METRIC_RESOURCES[i % SAMPLE_METRIC_RESOURCES.length]!;
  const start = (options.time ?? new Date()).getTime();
  const count = Math.max(1, options.records ?? 1);
  const n = resource.metrics.length;
  return Array.from({ length: count }, (_, k) => {
    const minutesBack = Math.floor(k / n);
    return metricRecord(resource, resource.metrics[k % n]!, i + minutesBack, minuteIso(start - minutesBack * 60_000));
  });
}

/** One metric event body, `{"records":[...]}` as diagnostic settings send `AllMetrics`. */
export function sampleMetricBody(options: SampleOptions = {}): string {
  return JSON.stringify({ records: sampleMetricRecords(options) });
}

/**
 * Application Insights records of one operation `index`: record 0 its request (`AppRequests`), the others
 * its dependencies (`AppDependencies`), children of the request. Ids are deterministic for `index`
 * (see `sampleTraceIds`); `time` is the request's start.
 */
export function sampleTraceRecords(options: SampleOptions = {}): Record<string, unknown>[] {
  return traceRecords(options.index ?? 0, (options.time ?? new Date()).getTime(), Math.max(1, options.records ?? 1));
}

/** One trace event body, `{"records":[...]}` as Application Insights' diagnostic settings send it. */
export function sampleTraceBody(options: SampleOptions = {}): string {
  return JSON.stringify({ records: sampleTraceRecords(options) });
}
