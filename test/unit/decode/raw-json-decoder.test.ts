import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { FIXTURE_CONTEXT, FIXTURE_ENQUEUED_TIME, fixtureEvent } from '../../fixtures/decode/fixture-support.ts';

const enqueuedHr: [number, number] = [
  Math.floor(FIXTURE_ENQUEUED_TIME.getTime() / 1000),
  (FIXTURE_ENQUEUED_TIME.getTime() % 1000) * 1e6,
];

describe('raw format', () => {
  const raw = createDecoder({ format: 'raw' });

  test('body is the UTF-8 text, timestamp the enqueued time, one record per event, even for JSON bodies', () => {
    const { records, stats } = raw(
      [fixtureEvent('plain text line ✓'), fixtureEvent('{"records":[{},{}]}')],
      FIXTURE_CONTEXT,
    );
    assert.equal(records.length, 2);
    assert.equal(records[0]!.body, 'plain text line ✓');
    assert.equal(records[1]!.body, '{"records":[{},{}]}');
    assert.deepEqual(records[0]!.hrTime, enqueuedHr);
    assert.equal(records[0]!.attributes['messaging.system'], 'eventhubs');
    assert.deepEqual(stats, { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 });
  });

  test('bytes that are not UTF-8 stay bytes, without error.type', () => {
    const bytes = new Uint8Array([0xff, 0x00, 0xfe, 0x41]);
    const [r] = raw([fixtureEvent(bytes)], FIXTURE_CONTEXT).records;
    assert.deepEqual(r!.body, bytes);
    assert.equal(r!.attributes['error.type'], undefined);
  });

  test(
    'AMQP application properties become attributes, converted to AnyValue; a clash keeps the property, the ' +
      'metadata moves to azure.eventhubs.*',
    () => {
      const properties = {
        source: 'sensor-7',
        count: 3,
        ok: true,
        big: 2n ** 70n,
        small: 5n,
        when: new Date('2024-05-14T09:30:00Z'),
        raw: Buffer.from('hi'),
        nested: { list: [1, 'a', null] },
        nothing: null,
        'messaging.system': 'spoofed',
        __proto__x: 1,
      };
      const [r] = raw([fixtureEvent('x', { properties })], FIXTURE_CONTEXT).records;
      const a = r!.attributes;
      assert.equal(a.source, 'sensor-7');
      assert.equal(a.count, 3);
      assert.equal(a.ok, true);
      assert.equal(a.big, (2n ** 70n).toString());
      assert.equal(a.small, 5);
      assert.equal(a.when, '2024-05-14T09:30:00.000Z');
      assert.deepEqual(Buffer.from(a.raw as Uint8Array).toString(), 'hi');
      assert.deepEqual(a.nested, { list: [1, 'a', null] });
      assert.equal(a.nothing, null);
      assert.equal(a['messaging.system'], 'spoofed');
      assert.equal(
        a['messaging.destination.name'],
        FIXTURE_CONTEXT.eventHubName,
        'raw keeps the messaging names by default',
      );
    },
  );

  test('a __proto__ application property is kept as data', () => {
    const properties = JSON.parse('{"__proto__": "p"}') as Record<string, unknown>;
    const [r] = raw([fixtureEvent('x', { properties })], FIXTURE_CONTEXT).records;
    assert.equal(Object.getOwnPropertyDescriptor(r!.attributes, '__proto__')?.value, 'p');
  });
});

describe('json format', () => {
  const json = createDecoder({ format: 'json' });

  test('body is the parsed value: objects, arrays and scalars, one record per event', () => {
    const { records } = json(
      [fixtureEvent('{"a":{"b":[1,2]}}'), fixtureEvent('[1,"two"]'), fixtureEvent('42'), fixtureEvent('null')],
      FIXTURE_CONTEXT,
    );
    assert.deepEqual(
      records.map((r) => r.body),
      [{ a: { b: [1, 2] } }, [1, 'two'], 42, null],
    );
    assert.deepEqual(records[0]!.hrTime, enqueuedHr);
    assert.equal(records[0]!.attributes['azure.eventhubs.message.offset'], '1048576');
  });

  test('does not interpret Azure records', () => {
    const [r] = json(
      [fixtureEvent('{"records":[{"time":"2024-05-14T09:30:00Z","category":"x"}]}')],
      FIXTURE_CONTEXT,
    ).records;
    assert.deepEqual(r!.body, { records: [{ time: '2024-05-14T09:30:00Z', category: 'x' }] });
    assert.equal(r!.attributes['azure.category'], undefined);
  });

  test('malformed JSON is sanitized, else exported raw with error.type', () => {
    const { records, stats } = json([fixtureEvent("{'a':'b'}"), fixtureEvent('{broken')], FIXTURE_CONTEXT);
    assert.deepEqual(records[0]!.body, { a: 'b' });
    assert.equal(records[1]!.body, '{broken');
    assert.equal(records[1]!.attributes['error.type'], 'invalid_json');
    assert.deepEqual(stats, { failedEvents: 1, sanitizedEvents: 1, timestampFallbacks: 0 });
  });
});
