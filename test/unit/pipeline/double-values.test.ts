import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { resourceFromAttributes } from '@opentelemetry/resources';
import { markAllDoubles, markDoubleKey } from '../../../src/pipeline/double-values.ts';
import { encodeLogsRequest } from '../../../src/exporters/internal/otlp-proto-encoder.ts';
import { encodeLogsRequestJson } from '../../../src/exporters/internal/otlp-json-encoder.ts';
import { attributes as debugAttributes } from '../../../src/exporters/internal/debug-format.ts';
import { strictDecodeJson, strictDecodeProto } from '../../helpers/otlp-strict.ts';

function record(attributes: Record<string, unknown>, body?: unknown): ReadableLogRecord {
  return {
    hrTime: [1_700_000_000, 0],
    hrTimeObserved: [1_700_000_000, 0],
    attributes,
    body,
    resource: resourceFromAttributes({}),
    instrumentationScope: { name: 's' },
    droppedAttributesCount: 0,
  } as unknown as ReadableLogRecord;
}

/** The attributes (and body) of the one record of an OTLP/JSON request, as the strict decoder returns it. */
const onlyRecord = (request: any) => request.resourceLogs[0].scopeLogs[0].logRecords[0];
const values = (list: any[]) => Object.fromEntries(list.map((kv) => [kv.key, kv.value]));

describe('numbers marked as doubles (Go float64)', () => {
  const properties = markAllDoubles({
    status: 200,
    ratio: 0.5,
    nested: { n: 3, list: [1, 'x'] },
    id: '9007199254740993',
  });
  const attributes: Record<string, unknown> = {
    'azure.properties': properties,
    'azure.duration': 78,
    size: 5,
    count: 5,
  };
  markDoubleKey(attributes, 'size');
  const sent = record(attributes, markAllDoubles({ a: 1 }));

  test('protobuf and JSON write them as double_value, everything else as before, the same in both', () => {
    for (const request of [
      strictDecodeProto(encodeLogsRequest([sent])),
      strictDecodeJson(encodeLogsRequestJson([sent])),
    ]) {
      const lr = onlyRecord(request);
      const a = values(lr.attributes);
      assert.deepEqual(a['azure.duration'], { intValue: '78' });
      assert.deepEqual(a.count, { intValue: '5' }, 'an unmarked key of a marked attributes object');
      assert.deepEqual(a.size, { doubleValue: 5 });
      const p = values(a['azure.properties'].kvlistValue.values);
      assert.deepEqual(p.status, { doubleValue: 200 });
      assert.deepEqual(p.ratio, { doubleValue: 0.5 });
      assert.deepEqual(p.id, { stringValue: '9007199254740993' }, 'big integers stay exact strings');
      const nested = values(p.nested.kvlistValue.values);
      assert.deepEqual(nested.n, { doubleValue: 3 });
      assert.deepEqual(nested.list.arrayValue.values, [{ doubleValue: 1 }, { stringValue: 'x' }]);
      assert.deepEqual(values(lr.body.kvlistValue.values).a, { doubleValue: 1 });
    }
  });

  test('the debug exporter shows them as Double(), as on the wire', () => {
    const text = debugAttributes(attributes);
    assert.match(text, /size: Double\(5\)/);
    assert.match(text, /count: Int\(5\)/);
  });

  test('the mark is invisible to other code: keys, JSON, deep equality; a copy is unmarked', () => {
    assert.deepEqual(Object.keys(properties), ['status', 'ratio', 'nested', 'id']);
    assert.equal(
      JSON.stringify(properties),
      '{"status":200,"ratio":0.5,"nested":{"n":3,"list":[1,"x"]},"id":"9007199254740993"}',
    );
    assert.deepEqual(properties, { status: 200, ratio: 0.5, nested: { n: 3, list: [1, 'x'] }, id: '9007199254740993' });
    const copy = record({ ...attributes, 'azure.properties': { ...properties } });
    const a = values(onlyRecord(strictDecodeJson(encodeLogsRequestJson([copy]))).attributes);
    assert.deepEqual(a.size, { intValue: '5' });
  });
});
