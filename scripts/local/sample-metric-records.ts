/**
 * Realistic Azure platform metric records, as a diagnostic setting with the `AllMetrics` category streams
 * them to an Event Hub: one record per metric, resource and minute, with the five aggregations (`count`,
 * `total`, `minimum`, `maximum`, `average`), `timeGrain` "PT1M", `metricName` as Azure Monitor names the
 * metric (some with spaces, as the virtual machine ones), the upper-cased `resourceId` and the minute's
 * `time`. Metric names and units come from Azure Monitor's "supported metrics" lists per resource type;
 * values are made up but consistent (average = total / count, minimum ≤ average ≤ maximum).
 */

const SUB = '0C5A2F9E-6D0B-4D4E-9A55-8B1D7B3F9C21';
const RG = 'RG-SHOP-PROD';

function rid(provider: string, type: string, name: string): string {
  return `/SUBSCRIPTIONS/${SUB}/RESOURCEGROUPS/${RG}/PROVIDERS/${provider}/${type}/${name}`;
}

/** How one metric's samples within a minute look: how many, and around what value. */
interface MetricShape {
  readonly name: string;
  /** Samples aggregated into the minute (Azure's `count`). */
  readonly count: (i: number) => number;
  /** A typical sample value; the minute's samples spread around it. */
  readonly level: (i: number) => number;
  /** Relative spread of the samples around `level` (0 = all equal). */
  readonly spread: number;
  /** Whole samples (counts, bytes). Default false. */
  readonly integer?: boolean;
}

export interface SampleMetricResource {
  readonly resourceId: string;
  readonly metrics: readonly MetricShape[];
}

const wave = (i: number, period: number): number => (1 + Math.sin((2 * Math.PI * i) / period)) / 2;

/** The resources the demo reports metrics for, each with the metrics Azure exports for its type. */
export const SAMPLE_METRIC_RESOURCES: readonly SampleMetricResource[] = [
  {
    resourceId: rid('MICROSOFT.COMPUTE', 'VIRTUALMACHINES', 'VM-WEB-0'),
    metrics: [
      { name: 'Percentage CPU', count: () => 4, level: (i) => 12 + 60 * wave(i, 17), spread: 0.3 },
      {
        name: 'Available Memory Bytes',
        count: () => 4,
        level: (i) => 2.1e9 - 4e8 * wave(i, 23),
        spread: 0.02,
        integer: true,
      },
      { name: 'Network In Total', count: () => 1, level: (i) => 3.2e6 + 9e5 * wave(i, 11), spread: 0, integer: true },
      { name: 'Disk Read Operations/Sec', count: () => 4, level: (i) => 3 + 20 * wave(i, 7), spread: 0.5 },
    ],
  },
  {
    resourceId: rid('MICROSOFT.WEB', 'SITES', 'APP-SHOP-FRONTEND'),
    metrics: [
      { name: 'Requests', count: () => 6, level: (i) => 40 + 30 * wave(i, 13), spread: 0.4, integer: true },
      { name: 'Http5xx', count: () => 6, level: (i) => (i % 9 === 8 ? 3 : 0), spread: 1, integer: true },
      { name: 'AverageResponseTime', count: () => 6, level: (i) => 0.08 + 0.05 * wave(i, 19), spread: 0.5 },
      { name: 'CpuTime', count: () => 6, level: (i) => 1.5 + wave(i, 5), spread: 0.3 },
    ],
  },
  {
    resourceId: rid('MICROSOFT.STORAGE', 'STORAGEACCOUNTS', 'STSHOPPROD'),
    metrics: [
      { name: 'Transactions', count: () => 12, level: (i) => 20 + 15 * wave(i, 9), spread: 0.6, integer: true },
      { name: 'Ingress', count: () => 12, level: (i) => 18_344 + 2_000 * wave(i, 3), spread: 0.2, integer: true },
      { name: 'Egress', count: () => 12, level: (i) => 52_000 + 9_000 * wave(i, 4), spread: 0.3, integer: true },
      { name: 'SuccessE2ELatency', count: () => 12, level: (i) => 9 + 6 * wave(i, 6), spread: 0.7 },
    ],
  },
  {
    resourceId: rid('MICROSOFT.EVENTHUB', 'NAMESPACES', 'EVHNS-SHOP'),
    metrics: [
      { name: 'IncomingMessages', count: () => 1, level: (i) => 1_200 + 400 * wave(i, 8), spread: 0, integer: true },
      { name: 'OutgoingMessages', count: () => 1, level: (i) => 1_150 + 420 * wave(i, 8), spread: 0, integer: true },
      { name: 'IncomingBytes', count: () => 1, level: (i) => 2.4e6 + 8e5 * wave(i, 8), spread: 0, integer: true },
      { name: 'ThrottledRequests', count: () => 1, level: (i) => (i % 13 === 12 ? 2 : 0), spread: 0, integer: true },
    ],
  },
  {
    resourceId: rid('MICROSOFT.SQL', 'SERVERS', 'SQL-SHOP-PROD/DATABASES/SHOPDB'),
    metrics: [
      { name: 'cpu_percent', count: () => 4, level: (i) => 8 + 35 * wave(i, 21), spread: 0.4 },
      { name: 'dtu_consumption_percent', count: () => 4, level: (i) => 10 + 40 * wave(i, 21), spread: 0.4 },
      { name: 'connection_successful', count: () => 1, level: (i) => 14 + (i % 5), spread: 0, integer: true },
      { name: 'storage_percent', count: () => 1, level: () => 37.25, spread: 0 },
    ],
  },
];

/** Azure's minute timestamps: the start of the minute, 7 fractional digits. */
export function minuteIso(ms: number): string {
  return `${new Date(Math.floor(ms / 60_000) * 60_000).toISOString().slice(0, 19)}.0000000Z`;
}

const round = (v: number, digits = 4): number => Number(v.toFixed(digits));

/**
 * One metric record: the minute's samples (deterministic for `i`) aggregated as Azure does. Field order as
 * Azure writes it (aggregations first, then the identity).
 */
export function metricRecord(
  resource: SampleMetricResource,
  shape: MetricShape,
  i: number,
  time: string,
): Record<string, unknown> {
  const count = shape.count(i);
  const level = shape.level(i);
  // Samples rounded first, so the aggregations agree exactly (minimum ≤ average ≤ maximum).
  const sample = (s: number) => Math.max(0, level * (1 + shape.spread * Math.sin(i * 7 + s * 2.3)));
  const samples = Array.from({ length: count }, (_, s) => round(sample(s), shape.integer ? 0 : 4));
  const total = round(samples.reduce((a, b) => a + b, 0));
  return {
    count,
    total,
    minimum: Math.min(...samples),
    maximum: Math.max(...samples),
    average: round(total / count, 12),
    resourceId: resource.resourceId,
    time,
    metricName: shape.name,
    timeGrain: 'PT1M',
  };
}
