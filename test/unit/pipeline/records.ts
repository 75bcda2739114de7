/** Builders for log records and batches shared by the pipeline and exporter tests. */
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { SeverityNumber } from '@opentelemetry/api-logs';
import type { BatchSource, LogBatch } from '../../../src/pipeline/log-batch.ts';

const resource = resourceFromAttributes({ 'cloud.provider': 'azure', 'service.name': 'eventhub-test' });
const scope = { name: 'azure_event_hub', version: '0.1.0' };

export function makeRecord(body: string, attributes: Record<string, string | number | boolean> = {}): ReadableLogRecord {
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
  return { namespace: 'ns.example.net', eventHubName: 'hub', consumerGroup: '$default', partitionId, firstSequenceNumber: first, lastSequenceNumber: last };
}

/** A batch of `count` records with bodies `${prefix}-0`, `${prefix}-1`, ... */
export function makeBatch(count: number, prefix = 'r', partitionId = '0'): LogBatch {
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
