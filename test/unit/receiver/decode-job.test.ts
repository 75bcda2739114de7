import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReceivedEvent } from '../../../src/backends/consumer.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import type { DecoderOptions } from '../../../src/decode/decoder.ts';
import { encodeLogsRequest } from '../../../src/exporters/internal/otlp-proto-encoder.ts';
import {
  DECODE_SLICE_EVENTS,
  packDecodeJob,
  unpackDecodeJob,
  type JobEvent,
} from '../../../src/receiver/internal/decode-job.ts';
import { DecodePool } from '../../../src/receiver/internal/decode-pool.ts';
import { decodeLogsRequest } from '../../helpers/otlp-logs-proto.ts';

const context = { namespace: 'ns.example', eventHubName: 'hub', consumerGroup: '$Default', partitionId: '3' };
const time = new Date('2026-05-14T09:12:44Z');

/** Bodies as views into one shared buffer (as rhea hands them over), some events with the optional fields. */
function events(): ReceivedEvent[] {
  const texts = ['{"a":1}', '', 'plain text', '{"records":[{"time":"2026-05-14T09:12:44Z","category":"X"}]}', 'é€😀'];
  const shared = Buffer.from(`xx${texts.join('')}yy`);
  let at = 2;
  return texts.map((text, i) => {
    const length = Buffer.byteLength(text);
    const body = shared.subarray(at, at + length);
    at += length;
    return {
      body,
      sequenceNumber: 2 ** 40 + i,
      offset: String(9_000_000_000 + i),
      enqueuedTime: i === 2 ? new Date(Number.NaN) : new Date(time.getTime() + i),
      ...(i === 1 ? { partitionKey: 'pk-1' } : {}),
      ...(i === 3 ? { properties: { origin: 'test', n: 3, nested: { deep: [1, 'two'] } } } : {}),
      ...(i >= 3 ? { messageId: i === 3 ? 'id-3' : 4 } : {}),
    };
  });
}

test('a packed job gives back every field the decoders read, each body a view of one transferred buffer', () => {
  const given = events();
  const { job, transfer } = packDecodeJob(7, given, context);
  assert.equal(job.id, 7);
  assert.deepEqual(job.context, context);
  assert.equal(
    job.bodies.byteLength,
    given.reduce((n, e) => n + e.body.byteLength, 0),
    'the bodies, not their backing store',
  );
  assert.ok(transfer.includes(job.bodies.buffer as ArrayBuffer));
  const back = unpackDecodeJob(structuredClone(job, { transfer }));
  assert.equal(back.length, given.length);
  back.forEach((e, i) => {
    const g = given[i]!;
    assert.deepEqual(Buffer.from(e.body), Buffer.from(g.body), `body ${i}`);
    assert.equal(e.sequenceNumber, g.sequenceNumber);
    assert.equal(e.offset, g.offset);
    assert.equal(e.enqueuedTime.getTime(), g.enqueuedTime.getTime(), `enqueued time ${i}`);
    assert.equal(e.partitionKey, g.partitionKey);
    assert.deepEqual(e.properties, g.properties);
    assert.equal(e.messageId, g.messageId);
    assert.deepEqual(Object.keys(e).sort(), Object.keys(g).sort(), `no field added for event ${i}`);
  });
  assert.ok(Number.isNaN(back[2]!.enqueuedTime.getTime()), 'an invalid enqueued time stays invalid');
});

test('a job unpacked a slice at a time gives the same events as unpacked whole', () => {
  const { job } = packDecodeJob(1, events(), context);
  // Comparable: the bodies' bytes, the times as numbers (one event's is invalid: NaN).
  const plain = (list: readonly JobEvent[]) =>
    list.map((e) => ({
      ...e,
      body: Buffer.from(e.body).toString('hex'),
      enqueuedTime: String(e.enqueuedTime.getTime()),
    }));
  const whole = plain(unpackDecodeJob(job));
  assert.equal(whole.length, 5);
  for (const size of [1, 2, 3, 5, 8]) {
    const sliced = [];
    for (let from = 0; from < whole.length; from += size)
      sliced.push(...plain(unpackDecodeJob(job, from, from + size)));
    assert.deepEqual(sliced, whole, `slices of ${size}`);
  }
  assert.deepEqual(plain(unpackDecodeJob(job, 4, 99)), whole.slice(4), 'a slice ends at the last event');
  assert.deepEqual(unpackDecodeJob(job, 5), []);
});

test('a job without the optional fields carries no column for them', () => {
  const { job } = packDecodeJob(
    1,
    [{ body: Buffer.from('x'), sequenceNumber: 1, offset: '1', enqueuedTime: time }],
    context,
  );
  assert.deepEqual(Object.keys(job).sort(), [
    'bodies',
    'context',
    'ends',
    'enqueuedMs',
    'id',
    'offsets',
    'sequenceNumbers',
  ]);
});

test('a decode thread writes what the pipeline thread writes: raw format, metadata, properties, ids', async (t) => {
  const options: DecoderOptions = { format: 'raw', eventMetadata: 'messaging', recordUid: true };
  const pool = new DecodePool({ size: 1, decoder: options, logger: noopLogger });
  t.after(() => pool.close());
  // Not the event without an enqueued time: its time is the clock's, which differs between the two decodes.
  const given = events().filter((e) => Number.isFinite(e.enqueuedTime.getTime()));
  const done = await pool.run(given, context);
  const here = createDecoder(options)(given, context).records;
  const strip = (bytes: Uint8Array) =>
    decodeLogsRequest(bytes).resourceLogs.flatMap((rl: any) =>
      rl.scopeLogs.flatMap((sl: any) =>
        sl.logRecords.map(({ observedTimeUnixNano: _o, ...rest }: any) => ({ resource: rl.resource, ...rest })),
      ),
    );
  assert.equal(done.encodedLogs.records, here.length);
  assert.deepEqual(strip(done.encodedLogs.bytes), strip(encodeLogsRequest(here)));
});

test('a job of several slices is one request, grouped by resource as a decode of the whole batch is', async (t) => {
  const options: DecoderOptions = { format: 'azure' };
  const pool = new DecodePool({ size: 1, decoder: options, logger: noopLogger });
  t.after(() => pool.close());
  // Records of several Azure resources, interleaved across slices, and one malformed event.
  const resources = ['/SUBSCRIPTIONS/A/RG/X', '/SUBSCRIPTIONS/B/RG/Y', '/SUBSCRIPTIONS/C/RG/Z'];
  const given: ReceivedEvent[] = Array.from({ length: DECODE_SLICE_EVENTS * 3 + 5 }, (_, i) => ({
    body: Buffer.from(
      i === 20
        ? '{"records": [ not json'
        : JSON.stringify({
            records: [{ time: '2026-05-14T09:12:44Z', category: 'C', resourceId: resources[i % 3], n: i }],
          }),
    ),
    sequenceNumber: i,
    offset: String(i),
    enqueuedTime: new Date(time.getTime() + i),
  }));
  const done = await pool.run(given, context);
  const here = createDecoder(options)(given, context);
  const shape = (bytes: Uint8Array) =>
    decodeLogsRequest(bytes).resourceLogs.map((rl: any) => ({
      resource: rl.resource,
      records: rl.scopeLogs.flatMap((sl: any) =>
        sl.logRecords.map(({ observedTimeUnixNano: _o, ...rest }: any) => rest),
      ),
    }));
  assert.equal(done.encodedLogs.records, here.records.length);
  assert.equal(done.stats.failedEvents, 1);
  const request = shape(done.encodedLogs.bytes);
  assert.equal(request.length, 4, 'one ResourceLogs per resource (and one for the malformed event), not per slice');
  assert.deepEqual(request, shape(encodeLogsRequest(here.records)));
});
