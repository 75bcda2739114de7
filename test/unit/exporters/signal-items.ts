/** Hand-built metric points and spans for the exporter tests (as the decoders will produce them). */
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import type { MetricPoint, SpanRecord } from '../../../src/pipeline/signals.ts';
import { makeRecord, makeSource } from '../pipeline/records.ts';

export const vmResource = resourceFromAttributes({
  'cloud.provider': 'azure',
  'azure.resource.id':
    '/SUBSCRIPTIONS/00000000-0000-0000-0000-000000000000/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.COMPUTE/' +
    'VIRTUALMACHINES/VM1',
});
export const appResource = resourceFromAttributes({ 'cloud.provider': 'azure', 'service.name': 'shop-api' });
export const scope = Object.freeze({ name: 'otelcol/azureeventhubreceiver', version: '0.1.0' });

export function makePoint(overrides: Partial<MetricPoint> = {}): MetricPoint {
  return {
    resource: vmResource,
    scope,
    name: 'azure_percentage_cpu_average',
    unit: 'Percent',
    description: '',
    kind: 'gauge',
    startTime: [1_700_000_000, 0],
    time: [1_700_000_060, 0],
    value: 12.5,
    attributes: { 'azure.timegrain': 'PT1M' },
    ...overrides,
  };
}

export function makeSpan(overrides: Partial<SpanRecord> = {}): SpanRecord {
  return {
    resource: appResource,
    scope,
    traceId: '0af7651916cd43dd8448eb211c80319c',
    spanId: 'b7ad6b7169203331',
    parentSpanId: '',
    name: 'GET /api/orders',
    kind: 2,
    startTime: [1_700_000_000, 500_000_000],
    endTime: [1_700_000_001, 250_000_000],
    attributes: { 'http.response.status_code': 200, 'url.path': '/api/orders' },
    status: { code: 0 },
    ...overrides,
  };
}

/** A batch with `logs` records, `metrics` points and `spans` spans (parts of 0 items left out). */
export function mixedBatch(logs: number, metrics: number, spans: number): SignalBatch {
  return {
    records: Array.from({ length: logs }, (_, i) => makeRecord(`log-${i}`)),
    ...(metrics > 0
      ? { metrics: Array.from({ length: metrics }, (_, i) => makePoint({ value: i, attributes: { index: i } })) }
      : {}),
    ...(spans > 0
      ? {
          spans: Array.from({ length: spans }, (_, i) =>
            makeSpan({ name: `span-${i}`, spanId: `00000000000000${String(i + 1).padStart(2, '0')}` }),
          ),
        }
      : {}),
    source: makeSource('0', 0, 9),
  };
}
