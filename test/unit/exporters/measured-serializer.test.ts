import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { ISerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { measuredSerializer } from '../../../src/exporters/internal/measured-serializer.ts';
import { makeBatch } from '../pipeline/records.ts';

function counting(): ISerializer<ReadableLogRecord[], unknown> & { calls: number } {
  const inner = {
    calls: 0,
    serializeRequest: (records: ReadableLogRecord[]) => (
      inner.calls++, new TextEncoder().encode(records.map((r) => String(r.body)).join('|'))
    ),
    deserializeResponse: () => ({}),
  };
  return inner;
}

describe('measuredSerializer', () => {
  test('measure then send encodes once: the exporter gets the measured bytes', () => {
    const inner = counting();
    const serializer = measuredSerializer(inner);
    const records = makeBatch(3).records as ReadableLogRecord[];
    assert.equal(serializer.measure(records), 'r-0|r-1|r-2'.length);
    assert.equal(serializer.measure(records), 11, 'measuring again reuses the bytes');
    assert.deepEqual(new TextDecoder().decode(serializer.serializeRequest(records)), 'r-0|r-1|r-2');
    assert.equal(inner.calls, 1);
  });

  test(
    'the kept bytes are handed over once: a second send (a retry) encodes again; unmeasured arrays encode as ' +
      'usual',
    () => {
      const inner = counting();
      const serializer = measuredSerializer(inner);
      const records = makeBatch(2).records as ReadableLogRecord[];
      serializer.measure(records);
      serializer.serializeRequest(records);
      serializer.serializeRequest(records);
      serializer.serializeRequest(makeBatch(1).records as ReadableLogRecord[]);
      assert.equal(inner.calls, 3);
    },
  );
});
