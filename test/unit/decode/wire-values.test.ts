import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { parseJsonLossless, quoteUnsafeIntegers } from '../../../src/decode/internal/lossless-integers.ts';
import { compileTimeLayout } from '../../../src/decode/internal/time-layout.ts';
import { isRepresentableTime, parseBuiltinTimestamp } from '../../../src/decode/internal/timestamp.ts';
import { FIXTURE_CONTEXT, FIXTURE_ENQUEUED_TIME, fixtureEvent } from '../../fixtures/decode/fixture-support.ts';

const enqueuedHr: [number, number] = [
  Math.floor(FIXTURE_ENQUEUED_TIME.getTime() / 1000),
  (FIXTURE_ENQUEUED_TIME.getTime() % 1000) * 1e6,
];

describe('integers a double cannot hold', () => {
  test('an integer literal beyond 2^53 inside int64 keeps its digits, as a string', () => {
    const value = parseJsonLossless(
      '{"a":9007199254740993,"b":-9007199254740993,"c":9223372036854775807,"d":[1152921504606846977]}',
    );
    assert.deepEqual(value, {
      a: '9007199254740993',
      b: '-9007199254740993',
      c: '9223372036854775807',
      d: ['1152921504606846977'],
    });
  });

  test('safe integers, doubles and literals outside int64 stay numbers', () => {
    const value = parseJsonLossless(
      '{"safe":9007199254740991,"neg":-9007199254740991,"frac":9007199254740993.5,"exp":9007199254740993e0,' +
        '"over":9223372036854775808,"e20":100000000000000000000,"small":12}',
    );
    assert.deepEqual(value, {
      safe: 9007199254740991,
      neg: -9007199254740991,
      frac: 9007199254740994,
      exp: 9007199254740992,
      over: 2 ** 63,
      e20: 1e20,
      small: 12,
    });
  });

  test(
    'digits inside strings (escaped quotes too) are left alone; a text without a long digit run is returned as ' + 'is',
    () => {
      const text = '{"id":"12345678901234567890","q":"a\\"9007199254740993","k9007199254740993":1}';
      assert.equal(quoteUnsafeIntegers(text), text);
      const plain = '{"a":1,"b":"x"}';
      assert.equal(quoteUnsafeIntegers(plain), plain);
      assert.equal(quoteUnsafeIntegers('[9007199254740993]'), '["9007199254740993"]');
      assert.equal(
        quoteUnsafeIntegers('{"a":"\\\\",  "b" : 9007199254740993 }'),
        '{"a":"\\\\",  "b" : "9007199254740993" }',
      );
    },
  );

  test('deep nesting: digits kept past the depth cap of the walk, and 10,000 levels do not overflow the stack', () => {
    const deep = (levels: number, inner: string) => '['.repeat(levels) + inner + ']'.repeat(levels);
    let value = parseJsonLossless(deep(300, '9007199254740993')) as unknown;
    for (let i = 0; i < 300; i++) value = (value as unknown[])[0];
    assert.equal(value, '9007199254740993');
    assert.doesNotThrow(() => parseJsonLossless(deep(10_000, '1')));
  });

  test('the azure and json formats keep those digits', () => {
    const azure = createDecoder({ format: 'azure' });
    const body =
      '{"records":[{"time":"2024-05-14T09:30:00Z","category":"C","properties":{"id":9007199254740993,"n":1e20}}]}';
    const [r] = azure([fixtureEvent(body)], FIXTURE_CONTEXT).records;
    const props = Object.values(r!.attributes).find((v) => typeof v === 'object' && v !== null && 'id' in v) as Record<
      string,
      unknown
    >;
    assert.equal(props.id, '9007199254740993');
    assert.equal(props.n, 1e20);
    const json = createDecoder({ format: 'json' });
    assert.deepEqual(json([fixtureEvent('{"id":9007199254740993}')], FIXTURE_CONTEXT).records[0]!.body, {
      id: '9007199254740993',
    });
  });
});

describe('timestamps outside what OTLP can carry', () => {
  test('the range: after the epoch up to 2^63 - 1 ns', () => {
    assert.equal(isRepresentableTime([0, 0]), false);
    assert.equal(isRepresentableTime([0, 1]), true);
    assert.equal(isRepresentableTime([-1, 999_999_999]), false);
    assert.equal(isRepresentableTime([9_223_372_036, 854_775_807]), true);
    assert.equal(isRepresentableTime([9_223_372_036, 854_775_808]), false);
    assert.equal(isRepresentableTime([9_223_372_037, 0]), false);
  });

  test('built-in parsing refuses 1601, 1969, year 3000 and huge epoch numbers; accepts 2262-04-11', () => {
    for (const value of [
      '1601-01-01T00:00:00Z',
      '1601-01-01T00:00:00.0000000Z',
      '1969-12-31T23:59:59Z',
      '3000-01-01T00:00:00Z',
      '1/1/1601 12:00:00 AM',
      'Mon, 01 Jan 1601 00:00:00 GMT',
      1e30,
      '99999999999999999999',
    ]) {
      assert.equal(parseBuiltinTimestamp(value), undefined, String(value));
    }
    assert.deepEqual(parseBuiltinTimestamp('2262-04-11T23:47:16Z'), [9_223_372_036, 0]);
  });

  test('user layouts refuse them too, day-of-year layouts included', () => {
    assert.equal(compileTimeLayout('2006-01-02')('1601-01-01'), undefined);
    assert.equal(compileTimeLayout('%Y-%j')('3000-001'), undefined);
    assert.deepEqual(compileTimeLayout('%Y-%j')('2024-002'), [Date.UTC(2024, 0, 2) / 1000, 0]);
  });

  test('a 1601 or year-3000 record gets the enqueued time, keeps the text and is flagged unparsable', () => {
    const azure = createDecoder({ format: 'azure' });
    for (const time of ['1601-01-01T00:00:00Z', '3000-01-01T00:00:00Z']) {
      const { records, stats } = azure(
        [fixtureEvent(JSON.stringify({ records: [{ time, category: 'C' }] }))],
        FIXTURE_CONTEXT,
      );
      assert.deepEqual(records[0]!.hrTime, enqueuedHr, time);
      assert.equal(records[0]!.attributes['azure.timestamp.fallback'], 'unparsable');
      assert.ok(Object.values(records[0]!.attributes).includes(time), `${time} is kept as an attribute`);
      assert.equal(stats.timestampFallbacks, 1);
    }
  });
});
