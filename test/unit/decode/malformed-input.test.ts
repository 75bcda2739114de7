import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import type { Format } from '../../../src/decode/decoder.ts';
import { FIXTURE_CONTEXT, FIXTURE_ENQUEUED_TIME, fixtureEvent } from '../../fixtures/decode/fixture-support.ts';

const azure = createDecoder({ format: 'azure' });
const enqueuedHr: [number, number] = [
  Math.floor(FIXTURE_ENQUEUED_TIME.getTime() / 1000),
  (FIXTURE_ENQUEUED_TIME.getTime() % 1000) * 1e6,
];

describe('malformed input never stops a partition', () => {
  test(
    'JSON that does not parse, even after sanitizers, is exported raw with error.type, the enqueued time and no ' +
      'metadata by default',
    () => {
      const body = '{"records": [ {"time": "2024-05-14T09:30:00Z", ';
      const { records, stats } = azure([fixtureEvent(body)], FIXTURE_CONTEXT);
      assert.equal(records.length, 1);
      assert.equal(records[0]!.body, body);
      assert.equal(records[0]!.attributes['error.type'], 'invalid_json');
      assert.match(String(records[0]!.attributes['error.message']), /JSON/);
      assert.equal(records[0]!.attributes['azure.eventhubs.message.sequence_number'], undefined);
      assert.deepEqual(records[0]!.hrTime, enqueuedHr);
      assert.deepEqual(stats, { failedEvents: 1, sanitizedEvents: 0, timestampFallbacks: 0 });
    },
  );

  test('raw newlines inside strings are repaired and counted as sanitized', () => {
    const body = '{"records":[{"time":"2024-05-14T09:30:00Z","resultDescription":"Exception:\n   at Foo()"}]}';
    const { records, stats } = azure([fixtureEvent(body)], FIXTURE_CONTEXT);
    assert.equal(records[0]!.attributes['azure.result.description'], 'Exception:\n   at Foo()');
    assert.equal(stats.sanitizedEvents, 1);
    assert.equal(stats.failedEvents, 0);
  });

  test('sanitizers can be switched off: the same body then goes raw', () => {
    const strict = createDecoder({ format: 'azure', builtinSanitizers: [] });
    const body = `{"records":[{"properties":{'a':'b'}}]}`;
    assert.equal(strict([fixtureEvent(body)], FIXTURE_CONTEXT).records[0]!.attributes['error.type'], 'invalid_json');
    assert.deepEqual(azure([fixtureEvent(body)], FIXTURE_CONTEXT).records[0]!.attributes['azure.properties'], {
      a: 'b',
    });
  });

  test('a configured regex sanitizer repairs what the built-ins cannot', () => {
    const custom = createDecoder({ format: 'azure', sanitizers: [{ pattern: '\\bNaN\\b', replacement: 'null' }] });
    const body = '{"records":[{"time":"2024-05-14T09:30:00Z","durationMs":NaN}]}';
    const { records, stats } = custom([fixtureEvent(body)], FIXTURE_CONTEXT);
    assert.equal(records[0]!.attributes['error.type'], undefined);
    assert.equal(stats.sanitizedEvents, 1);
  });

  test('invalid UTF-8 keeps its bytes: the body is the original Uint8Array', () => {
    const bytes = Buffer.concat([
      Buffer.from('{"records":[{"message":"caf'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from('"}]}'),
    ]);
    for (const format of ['azure', 'json', 'raw'] as Format[]) {
      const { records } = createDecoder({ format })([fixtureEvent(bytes)], FIXTURE_CONTEXT);
      assert.ok(records[0]!.body instanceof Uint8Array, format);
      assert.deepEqual(Buffer.from(records[0]!.body as Uint8Array), bytes, format);
      if (format !== 'raw') assert.equal(records[0]!.attributes['error.type'], 'invalid_utf8', format);
    }
  });

  test('a UTF-8 byte-order mark is ignored', () => {
    const body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"records":[{"category":"x"}]}')]);
    assert.equal(azure([fixtureEvent(body)], FIXTURE_CONTEXT).records[0]!.attributes['azure.category'], 'x');
  });

  test('deep nesting is bounded: 100,000 levels are exported raw, not a stack overflow', () => {
    const deep = `{"records":[{"properties":${'['.repeat(100_000)}${']'.repeat(100_000)}}]}`;
    const { records, stats } = azure([fixtureEvent(deep)], FIXTURE_CONTEXT);
    assert.equal(records.length, 1);
    assert.equal(records[0]!.attributes['error.type'], 'nesting_too_deep');
    assert.equal(records[0]!.body, deep);
    assert.equal(stats.failedEvents, 1);
    const json = createDecoder({ format: 'json' })([fixtureEvent(deep)], FIXTURE_CONTEXT);
    assert.equal(json.records[0]!.attributes['error.type'], 'nesting_too_deep');
  });

  test('nesting up to the limit is kept; one level more is refused', () => {
    const nest = (levels: number) =>
      `{"records":[{"properties":${'{"a":'.repeat(levels - 1)}{}${'}'.repeat(levels - 1)}}]}`;
    const limited = createDecoder({ format: 'azure', maxNestingDepth: 8 });
    assert.equal(limited([fixtureEvent(nest(8))], FIXTURE_CONTEXT).records[0]!.attributes['error.type'], undefined);
    assert.equal(
      limited([fixtureEvent(nest(9))], FIXTURE_CONTEXT).records[0]!.attributes['error.type'],
      'nesting_too_deep',
    );
  });

  test('a huge event (16 MB, 40,000 records) decodes completely', () => {
    const rec = { time: '2024-05-14T09:30:00Z', category: 'StorageRead', properties: { blob: 'x'.repeat(400) } };
    const body = JSON.stringify({ records: Array.from({ length: 40_000 }, () => rec) });
    assert.ok(body.length > 16_000_000);
    const { records } = azure([fixtureEvent(body)], FIXTURE_CONTEXT);
    assert.equal(records.length, 40_000);
  });

  test('one bad event does not affect its neighbours in the batch', () => {
    const good = JSON.stringify({ records: [{ category: 'ok' }] });
    const { records, stats } = azure(
      [fixtureEvent(good), fixtureEvent('garbage'), fixtureEvent(good)],
      FIXTURE_CONTEXT,
    );
    assert.deepEqual(
      records.map((r) => r.attributes['error.type'] ?? r.attributes['azure.category']),
      ['ok', 'invalid_json', 'ok'],
    );
    assert.equal(stats.failedEvents, 1);
  });

  test('hostile events never throw: broken event objects become decoder_error records', () => {
    const hostile = [
      { body: undefined, sequenceNumber: 1, offset: '1', enqueuedTime: new Date(Number.NaN) },
      { body: 'not bytes', sequenceNumber: 2, offset: '2', enqueuedTime: undefined },
      null,
      {
        get body(): Uint8Array {
          throw new Error('boom');
        },
        sequenceNumber: 3,
        offset: '3',
        enqueuedTime: new Date(),
      },
    ] as never[];
    for (const format of ['azure', 'json', 'raw'] as Format[]) {
      const { records, stats } = createDecoder({ format })(hostile, FIXTURE_CONTEXT);
      assert.equal(records.length, hostile.length, format);
      assert.equal(stats.failedEvents >= 1, true, format);
      for (const r of records) assert.ok(Array.isArray(r.hrTime) && Number.isFinite(r.hrTime[0]), format);
    }
  });

  test('__proto__ and constructor keys stay data', () => {
    const body = '{"records":[{"__proto__":{"polluted":true},"constructor":"c","properties":{"__proto__":{"x":1}}}]}';
    const [r] = azure([fixtureEvent(body)], FIXTURE_CONTEXT).records;
    assert.deepEqual(r!.attributes['azure.__proto__'], { polluted: true });
    assert.equal(r!.attributes['azure.constructor'], 'c');
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    const semconv = createDecoder({ format: 'azure', applySemanticConventions: true });
    const [s] = semconv([fixtureEvent(body)], FIXTURE_CONTEXT).records;
    const properties = (s!.body as Record<string, unknown>).properties;
    assert.deepEqual(Object.getOwnPropertyDescriptor(properties, '__proto__')?.value, { x: 1 });
    assert.deepEqual(s!.attributes['azure.__proto__'], { polluted: true });
  });

  test('randomly corrupted fixtures never throw and always yield at least one record per event', () => {
    const seedBody = JSON.stringify({
      records: [{ time: '2024-05-14T09:30:00Z', properties: { a: [1, { b: 'c' }] }, level: 'Error' }],
    });
    let seed = 42;
    const rand = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 500; n++) {
      const bytes = Buffer.from(seedBody);
      for (let k = 0; k < 3; k++) bytes[Math.floor(rand() * bytes.length)] = Math.floor(rand() * 256);
      const { records } = azure([fixtureEvent(bytes)], FIXTURE_CONTEXT);
      assert.ok(records.length >= 1);
    }
  });

  test('invalid options fail at creation, not while decoding', () => {
    assert.throws(() => createDecoder({ format: 'xml' as never }), /unknown format/);
    assert.throws(() => createDecoder({ format: 'azure', timeFormats: ['%Q'] }), /timeFormats\[0\]/);
    assert.throws(
      () => createDecoder({ format: 'azure', sanitizers: [{ pattern: '(', replacement: '' }] }),
      /sanitizers\[0\]/,
    );
  });
});
