import { test } from 'node:test';
import assert from 'node:assert/strict';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { splitRequest, withEncodedLogs } from '../../../src/exporters/internal/encoded-logs-sender.ts';
import { encodeLogsRequest } from '../../../src/exporters/internal/otlp-proto-encoder.ts';
import { measuredSerializer } from '../../../src/exporters/internal/measured-serializer.ts';
import { OtlpProtoLogsSerializer } from '../../../src/exporters/internal/otlp-proto-encoder.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { RequestTooLargeError } from '../../../src/pipeline/partial-refusal.ts';
import { isEncodedLogsRefused } from '../../../src/pipeline/encoded-logs-refusal.ts';
import { strictDecodeProto } from '../../helpers/otlp-strict.ts';

const source = {
  namespace: 'ns',
  eventHubName: 'hub',
  consumerGroup: '$Default',
  partitionId: '0',
  firstSequenceNumber: 0,
  lastSequenceNumber: 9,
};

/** `count` records over `resources` resources, each with a body of about `size` characters. */
function records(count: number, resources: number, size = 100): ReadableLogRecord[] {
  const res = Array.from({ length: resources }, (_, i) => resourceFromAttributes({ 'azure.resource.id': `r${i}` }));
  return Array.from(
    { length: count },
    (_, i) =>
      ({
        hrTime: [1_700_000_000, i],
        hrTimeObserved: [1_700_000_000, i],
        body: `${i}:`.padEnd(size, 'x'),
        attributes: { seq: i },
        resource: res[i % resources]!,
        instrumentationScope: { name: 's' },
        droppedAttributesCount: 0,
      }) as ReadableLogRecord,
  );
}

const bodies = (bytes: Uint8Array) =>
  strictDecodeProto(bytes).resourceLogs.flatMap((rl: any) =>
    rl.scopeLogs.flatMap((sl: any) => sl.logRecords.map((r: any) => r.body.stringValue)),
  );

test('splitRequest cuts between resource_logs entries below the bound, keeping every record in order', () => {
  const bytes = encodeLogsRequest(records(60, 6, 200));
  const pieces = splitRequest({ bytes, records: 60 }, 4_000, 'otlphttp');
  assert.ok(pieces.length >= 3, `${pieces.length} pieces`);
  for (const p of pieces) assert.ok(p.bytes.byteLength <= 4_000, `${p.bytes.byteLength} bytes`);
  assert.deepEqual(
    pieces.flatMap((p) => bodies(p.bytes)),
    bodies(bytes),
  );
  assert.deepEqual(splitRequest({ bytes, records: 60 }, 0, 'x'), [{ bytes, records: 60 }], 'no bound: one request');
});

test('a resource whose records alone exceed the bound: the batch is asked for as records', async () => {
  const bytes = encodeLogsRequest(records(20, 1, 200));
  assert.throws(
    () => splitRequest({ bytes, records: 20 }, 1_024, 'otlphttp'),
    (e) => isEncodedLogsRefused(e) && /max_request_bytes/.test(String(e)),
  );
  // A server refusing a part for its size (HTTP 413, gRPC RESOURCE_EXHAUSTED) asks the same.
  const serializer = measuredSerializer(OtlpProtoLogsSerializer);
  const tooLarge = {
    consume: async () => {
      throw new RequestTooLargeError('413');
    },
  };
  const sender = withEncodedLogs({ consume: async () => {} }, tooLarge, serializer, { maxBytes: 0, name: 'otlphttp' });
  await assert.rejects(sender.consume({ records: [], encodedLogs: { bytes, records: 20 }, source }), (e) =>
    isEncodedLogsRefused(e),
  );
});

test('withEncodedLogs sends the encoded bytes (and records beside them, first) through the bytes path', async () => {
  const sent: Uint8Array[] = [];
  const serializer = measuredSerializer(OtlpProtoLogsSerializer);
  // Serializes twice, as a retry of the same stand-in batch would: the pinned bytes both times.
  const bytesPath = {
    consume: async (b: SignalBatch) => {
      const items = b.records as ReadableLogRecord[];
      sent.push(serializer.serializeRequest(items)!, serializer.serializeRequest(items)!);
    },
  };
  const recordsPath = { consume: async () => assert.fail('batches with encoded logs go the bytes path') };
  const sender = withEncodedLogs(recordsPath, bytesPath, serializer, { maxBytes: 0, name: 'otlphttp' });
  assert.equal(sender.acceptsEncodedLogs, true);
  const encoded = records(10, 2);
  const beside = records(3, 1).map((r) => ({ ...r, body: `beside ${String(r.body).slice(0, 2)}` }));
  await sender.consume({ records: beside, encodedLogs: { bytes: encodeLogsRequest(encoded), records: 10 }, source });
  assert.equal(sent.length, 2);
  assert.deepEqual(bodies(sent[0]!), [...bodies(encodeLogsRequest(beside)), ...bodies(encodeLogsRequest(encoded))]);
  assert.deepEqual(sent[1], sent[0]);
});
