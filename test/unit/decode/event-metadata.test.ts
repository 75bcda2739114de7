import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import type { DecoderOptions, Format } from '../../../src/decode/decoder.ts';
import { FIXTURE_CONTEXT, FIXTURE_ENQUEUED_TIME, fixtureEvent } from '../../fixtures/decode/fixture-support.ts';

const record = (over: Record<string, unknown> = {}) => ({
  time: '2024-05-14T09:30:00Z',
  resourceId: '/subscriptions/s/rg/r',
  category: 'AuditEvent',
  operationName: 'VaultGet',
  ...over,
});
const frontDoor = record({
  category: 'FrontDoorAccessLog',
  properties: {
    requestUri: 'https://h.example/a',
    httpStatusCode: '200',
    timeTaken: '0.035',
    clientIp: '10.9.9.9',
    originIp: '10.0.0.1:443',
  },
});
const decode = (options: DecoderOptions, body: unknown, over: Parameters<typeof fixtureEvent>[1] = {}) =>
  createDecoder(options)([fixtureEvent(typeof body === 'string' ? body : JSON.stringify(body), over)], FIXTURE_CONTEXT)
    .records;
const METADATA = /^(messaging\.|server\.address$|azure\.eventhubs\.)/;
const metadataOf = (attributes: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(attributes).filter(([k]) => METADATA.test(k)));
const enqueuedSeconds = Math.floor(FIXTURE_ENQUEUED_TIME.getTime() / 1000);

describe('event metadata', () => {
  test('off by default in the Go-compatible formats, on (messaging names) by default for raw and json', () => {
    for (const format of ['azure', 'azure_encoding'] as Format[]) {
      const [r] = decode({ format }, { records: [record()] });
      assert.deepEqual(metadataOf(r!.attributes), {}, format);
    }
    const semconv = decode({ format: 'azure', applySemanticConventions: true }, { records: [record()] });
    assert.deepEqual(metadataOf(semconv[0]!.attributes), {});
    for (const format of ['raw', 'json'] as Format[]) {
      const [r] = decode({ format }, '{"a":1}');
      assert.equal(r!.attributes['messaging.destination.name'], 'insights-logs', format);
      assert.equal(r!.attributes['azure.eventhubs.message.sequence_number'], 4711, format);
    }
    assert.deepEqual(metadataOf(decode({ format: 'raw', eventMetadata: false }, 'x')[0]!.attributes), {});
  });

  test('eventhubs (or true): every value under azure.eventhubs.*, content names untouched', () => {
    for (const eventMetadata of ['eventhubs', true] as const) {
      const [r] = decode({ format: 'azure_encoding', eventMetadata }, { records: [frontDoor] }, { messageId: 'm-1' });
      assert.deepEqual(metadataOf(r!.attributes), {
        'server.address': '10.0.0.1', // Front Door's origin, as Go writes it
        'azure.eventhubs.namespace': 'evhns-logs.servicebus.windows.net',
        'azure.eventhubs.name': 'insights-logs',
        'azure.eventhubs.consumer_group': '$Default',
        'azure.eventhubs.partition.id': '3',
        'azure.eventhubs.message.sequence_number': 4711,
        'azure.eventhubs.message.offset': '1048576',
        'azure.eventhubs.message.enqueued_time': enqueuedSeconds,
        'azure.eventhubs.message.partition_key': 'shop',
        'azure.eventhubs.message.id': 'm-1',
      });
    }
  });

  test(
    'messaging: the former names; where the content has one, it keeps it and the metadata takes its ' +
      'azure.eventhubs name',
    () => {
      const [plain] = decode(
        { format: 'azure', eventMetadata: 'messaging' },
        { records: [record()] },
        { partitionKey: undefined },
      );
      assert.deepEqual(metadataOf(plain!.attributes), {
        'messaging.system': 'eventhubs',
        'messaging.destination.name': 'insights-logs',
        'messaging.consumer.group.name': '$Default',
        'messaging.destination.partition.id': '3',
        'server.address': 'evhns-logs.servicebus.windows.net',
        'azure.eventhubs.message.sequence_number': 4711,
        'azure.eventhubs.message.offset': '1048576',
        'azure.eventhubs.message.enqueued_time': enqueuedSeconds,
      });
      const serviceBus = {
        category: 'OperationalLogs',
        EventTimeString: '2022-09-07T14:41:35Z',
        resourceId: '/X/MICROSOFT.SERVICEBUS/Y',
      };
      const [sb] = decode({ format: 'azure_encoding', eventMetadata: 'messaging' }, { records: [serviceBus] });
      assert.equal(sb!.attributes['messaging.system'], 'servicebus', 'the content keeps its value');
      const [fd] = decode({ format: 'azure_encoding', eventMetadata: 'messaging' }, { records: [frontDoor] });
      assert.equal(fd!.attributes['server.address'], '10.0.0.1');
      assert.equal(fd!.attributes['azure.eventhubs.namespace'], 'evhns-logs.servicebus.windows.net');
      assert.equal(fd!.attributes['messaging.destination.name'], 'insights-logs');
    },
  );

  test("a record that went raw gets the mode's metadata too", () => {
    const [r] = decode({ format: 'azure', eventMetadata: true }, '{"records": [');
    assert.equal(r!.attributes['error.type'], 'invalid_json');
    assert.equal(r!.attributes['azure.eventhubs.message.sequence_number'], 4711);
  });

  test('an unknown mode is refused when the decoder is created', () => {
    assert.throws(
      () => createDecoder({ format: 'azure', eventMetadata: 'all' as never }),
      /none, eventhubs or messaging/,
    );
  });
});

describe('log.record.uid', () => {
  const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
  const uids = (
    options: Partial<DecoderOptions>,
    records: number,
    over: Parameters<typeof fixtureEvent>[1] = {},
    context = FIXTURE_CONTEXT,
  ) =>
    createDecoder({ format: 'azure', recordUid: true, ...options })(
      [fixtureEvent(JSON.stringify({ records: Array.from({ length: records }, () => record()) }), over)],
      context,
    ).records.map((r) => r.attributes['log.record.uid']);

  test('absent unless asked for', () => {
    assert.equal(decode({ format: 'azure' }, { records: [record()] })[0]!.attributes['log.record.uid'], undefined);
  });

  test(
    'a ULID whose time part is the enqueued time; the same on every read, another for each record, event and ' +
      'partition',
    () => {
      const first = uids({}, 3);
      for (const uid of first) assert.match(String(uid), ULID);
      assert.equal(new Set(first).size, 3, 'records of one event differ');
      assert.deepEqual(uids({}, 3), first, 'a re-read gives the same ids');
      assert.deepEqual(uids({ applySemanticConventions: true }, 3), first, 'the mapping does not enter the id');
      const upper = { ...FIXTURE_CONTEXT, namespace: FIXTURE_CONTEXT.namespace.toUpperCase(), consumerGroup: 'other' };
      assert.deepEqual(uids({}, 3, {}, upper), first, 'namespace case and consumer group do not enter the id');
      assert.notDeepEqual(uids({}, 1, { sequenceNumber: 4712 }), first.slice(0, 1));
      assert.notDeepEqual(uids({}, 1, {}, { ...FIXTURE_CONTEXT, partitionId: '4' }), first.slice(0, 1));
      // Crockford base32 of the enqueued time in ms, 10 characters.
      let ms = 0;
      for (const c of String(first[0]).slice(0, 10)) ms = ms * 32 + '0123456789ABCDEFGHJKMNPQRSTVWXYZ'.indexOf(c);
      assert.equal(ms, FIXTURE_ENQUEUED_TIME.getTime());
    },
  );

  test("a Function App log's own log.record.uid (its activityId, Go's mapping) is kept beside ours", () => {
    const fn = record({ category: 'FunctionAppLogs', properties: { appName: 'a', activityId: 'act-1', message: 'm' } });
    const [plain] = decode({ format: 'azure_encoding' }, { records: [fn] });
    assert.equal(plain!.attributes['log.record.uid'], 'act-1', "without record_uid, Go's value");
    const [r] = decode({ format: 'azure_encoding', recordUid: true }, { records: [fn] });
    assert.match(String(r!.attributes['log.record.uid']), ULID);
    assert.equal(r!.attributes['azure.record.log.record.uid'], 'act-1');
  });

  test('every format, raw records included', () => {
    for (const format of ['raw', 'json', 'azure_encoding'] as Format[]) {
      const [r] = decode({ format, recordUid: true }, { records: [record()] });
      assert.match(String(r!.attributes['log.record.uid']), ULID, format);
    }
    const [bad] = decode({ format: 'azure', recordUid: true }, 'not json');
    assert.match(String(bad!.attributes['log.record.uid']), ULID);
  });
});
