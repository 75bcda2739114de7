import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { encodeMetricsRequest } from '../../../src/exporters/internal/otlp-proto-metrics-encoder.ts';
import { encodeMetricsRequestJson } from '../../../src/exporters/internal/otlp-json-metrics-encoder.ts';
import { encodeTraceRequest } from '../../../src/exporters/internal/otlp-proto-trace-encoder.ts';
import { encodeTraceRequestJson } from '../../../src/exporters/internal/otlp-json-trace-encoder.ts';
import { strictDecodeJson, strictDecodeProto } from '../../helpers/otlp-strict.ts';

const context = {
  namespace: 'ns.servicebus.windows.net',
  eventHubName: 'insights',
  consumerGroup: '$Default',
  partitionId: '0',
};
const FIXTURES = new URL('../../fixtures/go-parity/', import.meta.url);

/** The Go-parity cases of a signal: each case folder's input.json. */
function cases(signal: 'metrics' | 'traces'): { name: string; body: Buffer }[] {
  const dir = new URL(`${signal}/`, FIXTURES);
  return readdirSync(dir, { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => ({ name: d.name, body: readFileSync(new URL(`${d.name}/input.json`, dir)) }));
}

function decoded(signal: 'metrics' | 'traces', body: Buffer, metricAggregation: '' | 'average' = '') {
  const decode = createDecoder({ format: 'azure', signals: new Set([signal]), metricAggregation });
  return decode([{ body, sequenceNumber: 7, offset: '700', enqueuedTime: new Date(Date.UTC(2024, 4, 14)) }], context);
}

// What the decoders really produce from the Go receiver's test data, through both encoders, accepted by
// the strict decoders and carrying the same content: the exporters' half of "an independent OTLP decoder
// accepts every request".
describe('decoded metric points and spans (Go-parity inputs) encode to strict, agreeing OTLP', () => {
  for (const { name, body } of cases('metrics')) {
    for (const aggregation of ['', 'average'] as const) {
      test(`metrics/${name}${aggregation ? ' (metric_aggregation: average)' : ''}`, () => {
        const points = decoded('metrics', body, aggregation).metrics ?? [];
        assert.ok(points.length > 0, 'the case decodes to points');
        const fromProto = strictDecodeProto(encodeMetricsRequest(points), 'metrics');
        assert.deepEqual(strictDecodeJson(encodeMetricsRequestJson(points), 'metrics'), fromProto);
        const count = fromProto.resourceMetrics.flatMap((rm: any) =>
          rm.scopeMetrics.flatMap((sm: any) => sm.metrics.flatMap((m: any) => m.gauge.dataPoints)),
        ).length;
        assert.equal(count, points.length, 'every point in the request, once');
      });
    }
  }
  for (const { name, body } of cases('traces')) {
    test(`traces/${name}`, () => {
      const spans = decoded('traces', body).spans ?? [];
      const fromProto = strictDecodeProto(encodeTraceRequest(spans), 'traces');
      assert.deepEqual(strictDecodeJson(encodeTraceRequestJson(spans), 'traces'), fromProto);
      const sent = (fromProto.resourceSpans ?? []).flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans));
      assert.equal(sent.length, spans.length);
      sent.forEach((span: any, i: number) => {
        assert.equal(Buffer.from(span.traceId, 'base64').toString('hex'), spans[i]!.traceId, 'trace ID kept');
        assert.equal(Buffer.from(span.spanId, 'base64').toString('hex'), spans[i]!.spanId, 'span ID kept');
      });
    });
  }
});
