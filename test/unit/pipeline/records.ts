/** Builders for log records and batches shared by the pipeline and exporter tests. */
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SeverityNumber } from '@opentelemetry/api-logs';
import type { BatchSource, SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import type { MetricPoint, SpanRecord } from '../../../src/pipeline/signals.ts';

const resource = resourceFromAttributes({ 'cloud.provider': 'azure', 'service.name': 'eventhub-test' });
const scope = { name: 'azure_event_hub', version: '0.1.0' };

export function makeRecord(
  body: string,
  attributes: Record<string, string | number | boolean> = {},
): ReadableLogRecord {
  return {
    hrTime: [1_700_000_000, 123_000_000],
    hrTimeObserved: [1_700_000_001, 0],
    severityNumber: SeverityNumber.INFO,
    severityText: 'Information',
    body,
    resource,
    instrumentationScope: scope,
    attributes,
    droppedAttributesCount: 0,
  };
}

export function makeSource(partitionId = '0', first = 0, last = 0): BatchSource {
  return {
    namespace: 'ns.example.net',
    eventHubName: 'hub',
    consumerGroup: '$default',
    partitionId,
    firstSequenceNumber: first,
    lastSequenceNumber: last,
  };
}

/** A batch of `count` records with bodies `${prefix}-0`, `${prefix}-1`, ... */
export function makeBatch(count: number, prefix = 'r', partitionId = '0'): SignalBatch {
  return {
    records: Array.from({ length: count }, (_, i) => makeRecord(`${prefix}-${i}`, { 'test.index': i })),
    source: makeSource(partitionId, 0, Math.max(0, count - 1)),
  };
}

/**
 * The pipeline unref()s its timers so it never holds a process open; a test that waits only on such a
 * timer would see the event loop drain. Call this at the top of a test file to hold it open meanwhile.
 */
export function holdEventLoopOpen(after: (fn: () => void) => void): void {
  const hold = setInterval(() => {}, 60_000);
  after(() => clearInterval(hold));
}

/** A gauge point named `name` with `test.index` set, as the metrics route makes them (hand-made here). */
export function makePoint(
  name: string,
  index: number,
  attributes: Record<string, string | number | boolean> = {},
): MetricPoint {
  return {
    resource,
    scope,
    name,
    unit: 'Count',
    description: '',
    kind: 'gauge',
    time: [1_700_000_000, 0],
    value: index,
    attributes: { 'test.index': index, ...attributes },
  };
}

/** A server span named `name` with `test.index` set (hand-made). */
export function makeSpan(
  name: string,
  index: number,
  attributes: Record<string, string | number | boolean> = {},
): SpanRecord {
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');
  return {
    resource,
    scope,
    traceId: hex(index + 1, 32),
    spanId: hex(index + 1, 16),
    parentSpanId: '',
    name,
    kind: 2,
    startTime: [1_700_000_000, 0],
    endTime: [1_700_000_001, 0],
    attributes: { 'test.index': index, ...attributes },
    status: { code: 0 },
  };
}

/** A batch with `logs` records, `metrics` points and `spans` spans, each named `${prefix}-<i>`. */
export function makeMixedBatch(
  logs: number,
  metrics: number,
  spans: number,
  prefix = 'm',
  partitionId = '0',
): SignalBatch {
  return {
    records: Array.from({ length: logs }, (_, i) => makeRecord(`${prefix}-${i}`, { 'test.index': i })),
    ...(metrics > 0 ? { metrics: Array.from({ length: metrics }, (_, i) => makePoint(`${prefix}-${i}`, i)) } : {}),
    ...(spans > 0 ? { spans: Array.from({ length: spans }, (_, i) => makeSpan(`${prefix}-${i}`, i)) } : {}),
    source: makeSource(partitionId, 0, Math.max(0, logs + metrics + spans - 1)),
  };
}
