import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { encodeMetricsRequest } from '../../../src/exporters/internal/otlp-proto-metrics-encoder.ts';
import { encodeMetricsRequestJson } from '../../../src/exporters/internal/otlp-json-metrics-encoder.ts';
import { encodeTraceRequest } from '../../../src/exporters/internal/otlp-proto-trace-encoder.ts';
import { encodeTraceRequestJson } from '../../../src/exporters/internal/otlp-json-trace-encoder.ts';
import type { MetricPoint, SpanRecord } from '../../../src/pipeline/signals.ts';
import { OtlpStrictError, strictDecodeJson, strictDecodeProto } from '../../helpers/otlp-strict.ts';
import { appResource, makePoint, makeSpan, scope, vmResource } from './signal-items.ts';

/** Both encodings decoded by the strict decoders; they must carry the same content. Returns it. */
function bothAgree(signal: 'metrics' | 'traces', proto: Uint8Array, json: Uint8Array): any {
  const fromProto = strictDecodeProto(proto, signal);
  const fromJson = strictDecodeJson(json, signal);
  assert.deepEqual(fromJson, fromProto, 'JSON and protobuf carry the same request');
  return fromProto;
}

const metrics = (points: MetricPoint[]) =>
  bothAgree('metrics', encodeMetricsRequest(points), encodeMetricsRequestJson(points));
const traces = (spans: SpanRecord[]) => bothAgree('traces', encodeTraceRequest(spans), encodeTraceRequestJson(spans));
const attrs = (kvs: any[] | undefined) => Object.fromEntries((kvs ?? []).map((kv) => [kv.key, kv.value]));

describe('OTLP metrics encoders (protobuf and strict JSON) for flat gauge points', () => {
  test(
    'groups by resource, scope and metric (name, unit, description); gauge points with as_double and both ' + 'times',
    () => {
      const otherScope = Object.freeze({ name: 'other', version: '2' });
      const decoded = metrics([
        makePoint({ name: 'azure_percentage_cpu_total', value: 50 }),
        makePoint({ name: 'azure_percentage_cpu_average', value: 12.5 }),
        makePoint({ name: 'azure_percentage_cpu_total', value: 51, time: [1_700_000_120, 0] }),
        makePoint({ name: 'azure_percentage_cpu_total', unit: 'Count', value: 3 }),
        makePoint({ resource: appResource, name: 'requests', value: 7, startTime: undefined }),
        makePoint({ scope: otherScope, name: 'azure_percentage_cpu_total', value: 1 }),
      ]);
      assert.equal(decoded.resourceMetrics.length, 2);
      const [vm, app] = decoded.resourceMetrics;
      assert.equal(
        attrs(vm.resource.attributes)['azure.resource.id'].stringValue,
        vmResource.attributes['azure.resource.id'],
      );
      assert.equal(vm.scopeMetrics.length, 2);
      assert.deepEqual(vm.scopeMetrics[0].scope, { name: scope.name, version: scope.version });
      const names = vm.scopeMetrics[0].metrics.map((m: any) => `${m.name}/${m.unit}`);
      assert.deepEqual(names, [
        'azure_percentage_cpu_total/Percent',
        'azure_percentage_cpu_average/Percent',
        'azure_percentage_cpu_total/Count',
      ]);
      const total = vm.scopeMetrics[0].metrics[0];
      assert.deepEqual(
        total.gauge.dataPoints.map((p: any) => p.asDouble),
        [50, 51],
      );
      assert.equal(total.gauge.dataPoints[1].timeUnixNano, '1700000120000000000');
      assert.equal(total.gauge.dataPoints[0].startTimeUnixNano, '1700000000000000000');
      assert.deepEqual(attrs(total.gauge.dataPoints[0].attributes), { 'azure.timegrain': { stringValue: 'PT1M' } });
      assert.equal(total.description, undefined, 'an empty description is left out');
      assert.equal(vm.scopeMetrics[1].scope.name, 'other');
      const requests = app.scopeMetrics[0].metrics[0];
      assert.equal(requests.name, 'requests');
      assert.equal(requests.gauge.dataPoints[0].startTimeUnixNano, undefined, 'no start time: absent');
      assert.equal(requests.gauge.dataPoints[0].asDouble, 7, 'a whole number is still a double (as_double)');
    },
  );

  test('wire values as for logs: NaN and infinities, int64 range, lone surrogates, times outside OTLP', () => {
    const decoded = metrics([
      makePoint({ value: Number.NaN }),
      makePoint({ value: Number.POSITIVE_INFINITY, time: [-5, 0] }),
      makePoint({ value: -0.25, time: [9_999_999_999, 0], startTime: [Number.NaN, 0] }),
      makePoint({
        name: 'bad\ud800name',
        unit: 'u\udfff',
        value: 1,
        attributes: { big: 2 ** 64, min: -(2 ** 63), 'k\ud83d': 'v\ude00' },
      }),
    ]);
    const metricsOut = decoded.resourceMetrics[0].scopeMetrics[0].metrics;
    const points = metricsOut[0].gauge.dataPoints;
    assert.ok(Number.isNaN(points[0].asDouble));
    assert.equal(points[1].asDouble, Number.POSITIVE_INFINITY);
    assert.equal(points[1].timeUnixNano, undefined, 'a time before 1970 is written 0 (absent once pruned)');
    assert.equal(points[2].timeUnixNano, undefined, 'a time after 2262 is written 0');
    assert.equal(points[2].startTimeUnixNano, undefined);
    const odd = metricsOut[1];
    assert.equal(odd.name, 'bad\ufffdname');
    assert.equal(odd.unit, 'u\ufffd');
    const a = attrs(odd.gauge.dataPoints[0].attributes);
    assert.deepEqual(a.big, { doubleValue: 2 ** 64 }, 'beyond int64: a double');
    assert.deepEqual(a.min, { intValue: '-9223372036854775808' });
    assert.deepEqual(a['k\ufffd'], { stringValue: 'v\ufffd' });
  });

  test('an empty list is an empty request', () => {
    assert.deepEqual(metrics([]), {});
  });
});

describe('OTLP trace encoders (protobuf and strict JSON) for span records', () => {
  test('IDs as bytes (protobuf) and hex (JSON), kind, status, events, links, grouped by resource and scope', () => {
    const proto = encodeTraceRequest([
      makeSpan({
        parentSpanId: '00f067aa0ba902b7',
        kind: 3,
        status: { code: 2, message: 'Internal Server Error' },
        traceState: 'congo=t61rcWkgMzE',
        events: [
          {
            time: [1_700_000_000, 750_000_000],
            name: 'exception',
            attributes: { 'exception.type': 'TimeoutException' },
          },
        ],
        links: [
          {
            traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
            spanId: '00f067aa0ba902b7',
            traceState: 'a=b',
            attributes: { n: 1 },
          },
        ],
      }),
      makeSpan({ resource: vmResource, name: 'root' }),
    ]);
    const json = JSON.parse(
      Buffer.from(encodeTraceRequestJson([makeSpan({ parentSpanId: '00f067aa0ba902b7' })])).toString('utf8'),
    );
    const jsonSpan = json.resourceSpans[0].scopeSpans[0].spans[0];
    assert.equal(jsonSpan.traceId, '0af7651916cd43dd8448eb211c80319c', 'hex in JSON, not base64');
    assert.equal(jsonSpan.parentSpanId, '00f067aa0ba902b7');
    assert.equal(jsonSpan.kind, 2, 'enums as integers');
    assert.equal(jsonSpan.startTimeUnixNano, '1700000000500000000');
    const decoded = strictDecodeProto(proto, 'traces');
    assert.equal(decoded.resourceSpans.length, 2);
    const span = decoded.resourceSpans[0].scopeSpans[0].spans[0];
    assert.equal(Buffer.from(span.traceId, 'base64').toString('hex'), '0af7651916cd43dd8448eb211c80319c');
    assert.equal(Buffer.from(span.spanId, 'base64').length, 8);
    assert.equal(Buffer.from(span.parentSpanId, 'base64').toString('hex'), '00f067aa0ba902b7');
    assert.equal(span.kind, 3);
    assert.deepEqual(span.status, { message: 'Internal Server Error', code: 2 });
    assert.equal(span.traceState, 'congo=t61rcWkgMzE');
    assert.equal(span.endTimeUnixNano, '1700000001250000000');
    assert.deepEqual(attrs(span.attributes)['http.response.status_code'], { intValue: '200' });
    assert.equal(span.events[0].name, 'exception');
    assert.equal(span.events[0].timeUnixNano, '1700000000750000000');
    assert.equal(Buffer.from(span.links[0].traceId, 'base64').toString('hex'), '4bf92f3577b34da6a3ce929d0e0e4736');
    assert.deepEqual(attrs(span.links[0].attributes), { n: { intValue: '1' } });
    const root = decoded.resourceSpans[1].scopeSpans[0].spans[0];
    assert.equal(root.parentSpanId, undefined, 'a root span has no parent ID');
    assert.deepEqual(root.status, {}, 'UNSET status: an empty Status, present as upstream writes it');
  });

  test('JSON and protobuf agree, hostile values included; a malformed ID is left out of both', () => {
    const decoded = traces([
      makeSpan({ events: [{ time: [-1, 0], name: 'e\ud800', attributes: { x: 1.5 } }], links: [] }),
      makeSpan({
        traceId: 'XYZ',
        spanId: 'B7AD6B7169203331',
        parentSpanId: 'abc',
        name: '\udfff',
        startTime: [1e12, 0],
        attributes: { huge: 1e20, nan: Number.NaN },
        status: { code: 1 },
      }),
    ]);
    const [first, second] = decoded.resourceSpans[0].scopeSpans[0].spans;
    assert.equal(first.events[0].name, 'e\ufffd');
    assert.equal(first.events[0].timeUnixNano, undefined);
    assert.equal(second.traceId, undefined, 'not hex: left out');
    assert.equal(Buffer.from(second.spanId, 'base64').toString('hex'), 'b7ad6b7169203331', 'uppercase hex: lowercased');
    assert.equal(second.parentSpanId, undefined, 'wrong length: left out');
    assert.equal(second.name, '\ufffd');
    assert.equal(second.startTimeUnixNano, undefined);
    assert.deepEqual(attrs(second.attributes).huge, { doubleValue: 1e20 });
    assert.deepEqual(second.status, { code: 1 });
  });

  test('the strict decoders refuse what a lax encoder writes (the test helper has teeth)', () => {
    const lax = Buffer.from(
      JSON.stringify({ resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: 'AAAA', startTimeUnixNano: 5 }] }] }] }),
    );
    assert.throws(() => strictDecodeJson(lax, 'traces'), OtlpStrictError);
    const laxMetrics = Buffer.from(
      JSON.stringify({
        resourceMetrics: [
          { scopeMetrics: [{ metrics: [{ name: 'm', gauge: { dataPoints: [{ asDouble: null }] } }] }] },
        ],
      }),
    );
    assert.throws(() => strictDecodeJson(laxMetrics, 'metrics'), OtlpStrictError);
  });
});
