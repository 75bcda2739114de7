import { test } from 'node:test';
import assert from 'node:assert/strict';
import avro from 'avsc';
import {
  decodeCaptureFile,
  encodeCaptureFile,
  parseEnqueuedTimeUtc,
  formatEnqueuedTimeUtc,
} from '../../../src/capture/capture-file.ts';
import { CAPTURE_AVRO_SCHEMA, type CaptureRecord } from '../../../src/capture/capture-schema.ts';

const record = (n: number): CaptureRecord => ({
  sequenceNumber: n,
  offset: String(n * 100),
  enqueuedTime: new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 678) + n),
  systemProperties: { 'x-opt-partition-key': `k${n}` },
  properties: { count: n, ratio: n + 0.5, name: `e${n}`, raw: Buffer.from([n]) },
  body: Buffer.from(`{"n":${n}}`),
});

/** The file's header, read with avsc's own container reader: the schema and codec as any Avro tool sees them. */
async function header(bytes: Buffer): Promise<{ schema: any; codec: string }> {
  const decoder = new avro.streams.BlockDecoder();
  const seen = new Promise<{ schema: any; codec: string }>((resolve, reject) => {
    decoder.on('metadata', (type: avro.Type, codec: string) => resolve({ schema: type.schema(), codec }));
    decoder.on('error', reject);
  });
  decoder.resume();
  decoder.end(bytes);
  return seen;
}

for (const [encoding, codec] of [
  ['Avro', 'null'],
  ['AvroDeflate', 'deflate'],
] as const) {
  test(`a ${encoding} file holds the service's schema, codec ${codec}, and reads back every field`, async () => {
    const records = [record(7), record(8), { ...record(9), body: null, properties: {} }];
    const bytes = await encodeCaptureFile(records, encoding);
    const h = await header(bytes);
    assert.equal(h.codec, codec);
    assert.equal(h.schema.name, 'Microsoft.ServiceBus.Messaging.EventData');
    assert.deepEqual(
      h.schema.fields.map((f: any) => f.name),
      CAPTURE_AVRO_SCHEMA.fields.map((f) => f.name),
    );
    assert.deepEqual(h.schema.fields.find((f: any) => f.name === 'Body').type, ['null', 'bytes']);
    const back = await decodeCaptureFile(bytes);
    assert.deepEqual(back, records);
    assert.equal(typeof back[0]!.properties.count, 'number');
    assert.equal(back[0]!.properties.ratio, 7.5, 'a double keeps its fraction');
  });
}

test('an empty capture file is a header without records', async () => {
  const bytes = await encodeCaptureFile([]);
  assert.ok(bytes.length > 0);
  assert.deepEqual(await decodeCaptureFile(bytes), []);
});

test('a blob that is not an Avro container is refused with a clear error', async () => {
  await assert.rejects(decodeCaptureFile(Buffer.from('not avro at all')), /not a capture file/);
});

test('EnqueuedTimeUtc: written with seven fractional digits, read in that form and the US form', () => {
  const t = new Date('2026-01-02T03:04:05.678Z');
  assert.equal(formatEnqueuedTimeUtc(t), '2026-01-02T03:04:05.6780000Z');
  assert.equal(parseEnqueuedTimeUtc('2026-01-02T03:04:05.6780000Z').getTime(), t.getTime());
  assert.equal(parseEnqueuedTimeUtc('2026-01-02T03:04:05Z').getTime(), Date.UTC(2026, 0, 2, 3, 4, 5));
  assert.equal(parseEnqueuedTimeUtc('9/26/2018 3:03:59 PM').getTime(), Date.UTC(2018, 8, 26, 15, 3, 59));
});
