/**
 * Cross-SDK interop with the Azure SDK for Python (Debian's azure-eventhub 5.11.0, unmodified): events,
 * management reads and error cases through the emulator, Python to Python, Python to the JS SDK and our
 * receiver, JS to Python. Skipped, with the packages to install, when the system Python lacks the SDK.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventHubConsumerClient,
  EventHubProducerClient,
  earliestEventPosition,
  type ReceivedEventData,
} from '@azure/event-hubs';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { startReceiver, until } from '../receiver/harness.ts';
import { cleanupsOf, runScript, SKIP, startPythonWorld, type PythonWorld } from './python-world.ts';

interface Typed {
  readonly type: string;
  readonly value: unknown;
}
interface PyEvent {
  readonly partition: string;
  readonly sequence_number: number;
  readonly offset: string;
  readonly enqueued_time: number;
  readonly partition_key: string | null;
  readonly body: string;
  readonly properties: Record<string, Typed>;
  readonly message_id: string | null;
  readonly content_type: string | null;
  readonly correlation_id: string | null;
}

const b64 = (s: string): string => Buffer.from(s).toString('base64');
/** Bytes from a Buffer or from the `{ 0: n, 1: n, ... }` objects the JS SDK makes of AMQP binary and uuid values. */
const bytesOf = (v: unknown): Buffer => Buffer.from(Object.values(v as Record<string, number>));
const DATETIME_MS = Date.UTC(2026, 0, 2, 3, 4, 5, 678);
const LONG = 2 ** 40 + 5;
/** "alphabet" hashes to partition 0 of 3 (the service's test vector, docs/emulator.md). */
const KEY = 'alphabet';

/** Sends python/send_typed.py's events (typed ones to partition 1, two keyed ones) and returns what Python reports. */
async function sendFromPython(world: PythonWorld) {
  return runScript<{ long_plain_int: { type: string; message: string } | null }>(world, 'send_typed.py', ['1', KEY]);
}

/** Every event of the hub through the JS SDK, from the start. */
async function receiveWithJs(world: PythonWorld, count: number): Promise<ReceivedEventData[]> {
  const client = world.track(new EventHubConsumerClient('$Default', world.connectionString));
  const events: ReceivedEventData[] = [];
  const subscription = world.track(
    client.subscribe(
      { processEvents: async (batch) => void events.push(...batch), processError: async () => undefined },
      { startPosition: earliestEventPosition, maxBatchSize: 50, maxWaitTimeInSeconds: 1 },
    ),
  );
  await until(() => events.length >= count, 30_000, `${count} events through the JS SDK (have ${events.length})`);
  await subscription.close();
  return events;
}

describe('events from the Python producer', { skip: SKIP }, () => {
  let world: PythonWorld;
  let sent: Awaited<ReturnType<typeof sendFromPython>>;
  let received: { events: PyEvent[]; errors: unknown[] };
  const cleanups = cleanupsOf();
  after(() => cleanups.run());
  before(
    async () => {
      world = await startPythonWorld(cleanups, { partitions: 3 });
      sent = await sendFromPython(world);
      received = await runScript(world, 'receive.py', ['6', '30']);
    },
    { timeout: 60_000 },
  );

  test(
    'Python producer → emulator → Python consumer: bodies, every property type, message properties and partition ' +
      'keys',
    () => {
      // A plain Python int beyond 32 bits is refused by the SDK itself (pyamqp encodes int as AMQP int).
      assert.equal(sent.long_plain_int?.type, 'ValueError');
      const { events, errors } = received;
      assert.deepEqual(errors, []);
      const p1 = events.filter((e) => e.partition === '1').sort((a, b) => a.sequence_number - b.sequence_number);
      const p0 = events.filter((e) => e.partition === '0').sort((a, b) => a.sequence_number - b.sequence_number);
      assert.deepEqual(
        p1.map((e) => e.sequence_number),
        [0, 1, 2, 3],
      );
      assert.deepEqual(
        p0.map((e) => [e.sequence_number, e.partition_key, e.body]),
        [
          [0, KEY, b64('keyed 0')],
          [1, KEY, b64('keyed 1')],
        ],
      );
      const [typed, binary, json, single] = p1 as [PyEvent, PyEvent, PyEvent, PyEvent];
      assert.equal(typed.body, b64('text body: ü ✓'));
      assert.deepEqual(
        [typed.message_id, typed.content_type, typed.correlation_id],
        ['message-1', 'text/plain; charset=utf-8', 'correlation-1'],
      );
      assert.equal(typed.partition_key, null);
      // What the Python SDK gives back for each type it sent: AMQP strings come back as bytes and timestamps
      // as milliseconds since the epoch (pyamqp's decoder, azure/eventhub/_pyamqp/_decode.py), the rest as sent.
      assert.deepEqual(typed.properties, {
        str: { type: 'bytes', value: b64('värde ✓') },
        int: { type: 'int', value: '42' },
        negative_int: { type: 'int', value: '-7' },
        int32_max: { type: 'int', value: '2147483647' },
        long: { type: 'int', value: String(LONG) },
        float: { type: 'float', value: 3.25 },
        bool_true: { type: 'bool', value: true },
        bool_false: { type: 'bool', value: false },
        bytes: { type: 'bytes', value: Buffer.from([0, 1, 0xfe, 0xff]).toString('base64') },
        none: { type: 'None', value: null },
        uuid: { type: 'uuid', value: '12345678-1234-5678-9abc-def012345678' },
        datetime: { type: 'int', value: String(DATETIME_MS) },
      });
      assert.equal(binary.body, Buffer.from('\x00\xffbinary\x10', 'latin1').toString('base64'));
      assert.deepEqual([binary.message_id, binary.content_type], ['message-2', 'application/octet-stream']);
      assert.equal(Buffer.from(json.body, 'base64').toString(), '{"records":[{"category":"Test","n":1}]}');
      assert.deepEqual(json.properties, { kind: { type: 'bytes', value: b64('json') } });
      // send_event: one plain AMQP message (format 0), not a batch; its boolean in pyamqp's one-octet form.
      assert.equal(Buffer.from(single.body, 'base64').toString(), 'single');
      assert.deepEqual(single.properties, { single: { type: 'bool', value: true } });
      // Offsets are strings, increasing; enqueued times are real times.
      const offsets = p1.map((e) => Number(e.offset));
      assert.deepEqual(
        [...offsets].sort((a, b) => a - b),
        offsets,
      );
      for (const e of events)
        assert.ok(Math.abs(e.enqueued_time - Date.now()) < 120_000, `enqueued time ${e.enqueued_time}`);
    },
  );

  test('Python producer → JS SDK consumer and our receiver: the AMQP types on the wire', {
    timeout: 60_000,
  }, async (t) => {
    const events = await receiveWithJs(world, 6);
    const typed = events.find((e) => e.messageId === 'message-1');
    assert.ok(typed, 'the typed event arrived');
    // The JS SDK parses a data body that is JSON and gives any other as bytes.
    assert.deepEqual(Buffer.from(typed.body as Uint8Array).toString(), 'text body: ü ✓');
    assert.deepEqual(events.find((e) => e.contentType === 'application/json')?.body, {
      records: [{ category: 'Test', n: 1 }],
    });
    assert.equal(typed.contentType, 'text/plain; charset=utf-8');
    assert.equal(typed.correlationId, 'correlation-1');
    const p = typed.properties!;
    assert.equal(p.str, 'värde ✓', 'an AMQP string');
    assert.equal(p.int, 42);
    assert.equal(p.negative_int, -7);
    assert.equal(p.int32_max, 2_147_483_647);
    assert.equal(p.long, LONG, 'an AMQP long');
    assert.equal(p.float, 3.25);
    // pyamqp writes booleans in the one-octet form (0x56 0x01 / 0x56 0x00); rhea 3.0.5, under the JS SDK, reads
    // that form as the numbers 1 and 0 (its Boolean type's reader). So does every rhea client, on Azure too.
    assert.equal(p.bool_true, 1);
    assert.equal(p.bool_false, 0);
    // The JS SDK 6.0.4 hands binary and uuid values over as plain objects of byte values, timestamps as ms.
    assert.deepEqual(bytesOf(p.bytes), Buffer.from([0, 1, 0xfe, 0xff]), 'AMQP binary');
    assert.equal(bytesOf(p.uuid).toString('hex'), '12345678123456789abcdef012345678', 'an AMQP uuid');
    assert.equal(p.none, null);
    assert.equal(p.datetime, DATETIME_MS, 'an AMQP timestamp');
    const keyed = events.filter((e) => e.partitionKey === KEY);
    assert.equal(keyed.length, 2, 'the partition key as the x-opt-partition-key annotation');
    const binary = events.find((e) => e.messageId === 'message-2');
    assert.deepEqual(Buffer.from(binary!.body as Uint8Array), Buffer.from('\x00\xffbinary\x10', 'latin1'));

    // Our receiver (raw format): application properties become attributes.
    const consumer = new InMemorySignalConsumer();
    await startReceiver(
      t,
      { connection: world.connectionString, format: 'raw', start_position: 'earliest' },
      consumer,
    ).start();
    await until(() => consumer.records().length >= 6, 30_000, 'six records through our receiver');
    const record = consumer.records().find((r) => r.attributes['str'] !== undefined);
    assert.ok(record, 'the typed event as a record');
    const a = record.attributes;
    assert.deepEqual(
      [a.str, a.int, a.long, a.float, a.bool_true, a.bool_false, a.none],
      ['värde ✓', 42, LONG, 3.25, 1, 0, null],
    );
    t.diagnostic(
      `our receiver's attributes: bytes ${JSON.stringify(a.bytes)}, uuid ${JSON.stringify(a.uuid)}, datetime ` +
        `${JSON.stringify(a.datetime)}`,
    );
  });
});

test('JS SDK producer → emulator → Python consumer: bodies, property types, message properties, partition key', {
  skip: SKIP,
  timeout: 90_000,
}, async (t) => {
  const world = await startPythonWorld(t, { partitions: 3 });
  const producer = world.track(new EventHubProducerClient(world.connectionString));
  const batch = await producer.createBatch({ partitionId: '2' });
  batch.tryAdd({
    body: Buffer.from([0, 0xff, 0x10, 0x41]),
    properties: {
      str: 'värde ✓',
      int: 42,
      long: LONG,
      float: 3.25,
      yes: true,
      no: false,
      bytes: Buffer.from([1, 2, 3]),
      none: null,
      when: new Date(DATETIME_MS),
    },
    messageId: 'js-1',
    contentType: 'application/octet-stream',
    correlationId: 'js-correlation',
  });
  batch.tryAdd({ body: { records: [{ n: 1 }] }, contentType: 'application/json' });
  await producer.sendBatch(batch);
  await producer.sendBatch([{ body: Buffer.from('keyed') }], { partitionKey: KEY });
  const { events, errors } = await runScript<{ events: PyEvent[]; errors: unknown[] }>(world, 'receive.py', [
    '3',
    '30',
  ]);
  assert.deepEqual(errors, []);
  const [first, second] = events
    .filter((e) => e.partition === '2')
    .sort((a, b) => a.sequence_number - b.sequence_number) as [PyEvent, PyEvent];
  assert.equal(first.body, Buffer.from([0, 0xff, 0x10, 0x41]).toString('base64'));
  assert.deepEqual(
    [first.message_id, first.content_type, first.correlation_id],
    ['js-1', 'application/octet-stream', 'js-correlation'],
  );
  assert.deepEqual(first.properties, {
    str: { type: 'bytes', value: b64('värde ✓') },
    int: { type: 'int', value: '42' },
    long: { type: 'int', value: String(LONG) },
    float: { type: 'float', value: 3.25 },
    yes: { type: 'bool', value: true },
    no: { type: 'bool', value: false },
    bytes: { type: 'bytes', value: Buffer.from([1, 2, 3]).toString('base64') },
    none: { type: 'None', value: null },
    when: { type: 'int', value: String(DATETIME_MS) },
  });
  // The JS SDK writes a body that is not bytes as JSON.
  assert.equal(Buffer.from(second.body, 'base64').toString(), '{"records":[{"n":1}]}');
  const keyed = events.find((e) => e.partition_key === KEY);
  assert.deepEqual([keyed?.partition, keyed && Buffer.from(keyed.body, 'base64').toString()], ['0', 'keyed']);
});

test('management reads: hub properties, partition ids and each partition, as the JS SDK reads them', {
  skip: SKIP,
  timeout: 60_000,
}, async (t) => {
  const world = await startPythonWorld(t, { partitions: 3 });
  world.emulator.append(world.hubName, '0', [{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
  world.emulator.append(world.hubName, '2', [{ body: 'only' }]);
  const py = await runScript<{ hub: any; partition_ids: string[]; partitions: any[] }>(world, 'management.py');
  const js = world.track(new EventHubConsumerClient('$Default', world.connectionString));
  const hub = await js.getEventHubProperties();
  assert.deepEqual(py.hub, {
    eventhub_name: world.hubName,
    created_at: hub.createdOn.getTime(),
    partition_ids: ['0', '1', '2'],
  });
  assert.deepEqual(py.partition_ids, ['0', '1', '2']);
  for (const p of py.partitions) {
    const j = await js.getPartitionProperties(p.id);
    assert.deepEqual(
      p,
      {
        eventhub_name: world.hubName,
        id: j.partitionId,
        beginning_sequence_number: j.beginningSequenceNumber,
        last_enqueued_sequence_number: j.lastEnqueuedSequenceNumber,
        last_enqueued_offset: j.lastEnqueuedOffset,
        is_empty: j.isEmpty,
        last_enqueued_time_utc: j.lastEnqueuedOnUtc.getTime(),
      },
      `partition ${p.id}`,
    );
  }
  const [p0, p1, p2] = py.partitions;
  assert.deepEqual(
    [
      p0.last_enqueued_sequence_number,
      p0.is_empty,
      p1.last_enqueued_sequence_number,
      p1.is_empty,
      p2.last_enqueued_sequence_number,
    ],
    [2, false, -1, true, 0],
  );
  assert.equal(typeof p0.last_enqueued_offset, 'string');
});

test("errors: wrong hub, wrong consumer group and wrong key surface as the SDK's errors with the service's texts", {
  skip: SKIP,
  timeout: 90_000,
}, async (t) => {
  const world = await startPythonWorld(t, {
    partitions: 1,
    sasKeys: { RootManageSharedAccessKey: 'the-right-key-0123456789' },
  });
  const [hub, group, key] = await Promise.all([
    runScript(world, 'errors.py', ['wrong-hub', 'nosuchhub', '5']),
    runScript(world, 'errors.py', ['wrong-consumer-group', 'nosuchgroup', '5']),
    runScript(world, 'errors.py', ['wrong-key', Buffer.from('wrong key').toString('base64'), '5']),
  ]);
  for (const operation of ['management', 'send', 'receive']) {
    const e = hub[operation];
    assert.ok(e.classes?.includes('EventHubError'), `wrong hub, ${operation}: ${JSON.stringify(e)}`);
    assert.match(
      e.message,
      /The messaging entity 'sb:\/\/[^']*\/nosuchhub' could not be found/,
      `wrong hub, ${operation}`,
    );
    assert.doesNotMatch(e.message, /list index out of range/);
    const k = key[operation];
    assert.equal(k.type, 'AuthenticationError', `wrong key, ${operation}: ${JSON.stringify(k)}`);
  }
  // The consumer group is refused at attach (amqp:not-found naming it). azure-eventhub 5.11 passes that on to
  // on_error only when the refusing Attach has a source; when it has none (the emulator's, and by all
  // accounts the service's, form) the SDK logs "Unable to attach new link: ValueError('Invalid link')" and
  // attaches again, and the error stays in its frame trace: either is accepted, the text must be the service's.
  const r = group.receive;
  const texts = [r.message, ...(r.link_errors ?? []).map((e: any) => `${e.condition} ${e.description}`)]
    .filter(Boolean)
    .join('\n');
  assert.match(texts, /amqp:not-found|NotFound/i, JSON.stringify(r));
  assert.match(texts, /The messaging entity 'sb:\/\/[^']*\/ConsumerGroups\/nosuchgroup' could not be found/);
  if (r.ok)
    t.diagnostic(
      `wrong consumer group: no on_error within 5 s; ${r.link_error_count} refused attaches (the SDK attaches again)`,
    );
  else assert.ok(r.classes.includes('EventHubError'), JSON.stringify(r));
});
