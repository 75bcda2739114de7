import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  fromEpochNumber,
  parseBuiltinTimestamp,
  parseTimestampString,
} from '../../../src/decode/internal/timestamp.ts';

const ms = (iso: string): number => Date.parse(iso);
const hr = (iso: string, nanos = 0): [number, number] => [Math.floor(ms(iso) / 1000), nanos];

describe('built-in timestamps', () => {
  test("ISO 8601 with Azure's 7 fractional digits keeps full precision", () => {
    assert.deepEqual(parseTimestampString('2024-01-15T10:00:00.1234567Z'), hr('2024-01-15T10:00:00Z', 123_456_700));
  });

  test(
    'ISO 8601 variants: no fraction, 9 digits, extra digits, lower-case t/z, space separator, no seconds, date ' +
      'only',
    () => {
      assert.deepEqual(parseTimestampString('2024-01-15T10:00:00Z'), hr('2024-01-15T10:00:00Z'));
      assert.deepEqual(parseTimestampString('2024-01-15T10:00:00.123456789Z'), hr('2024-01-15T10:00:00Z', 123_456_789));
      assert.deepEqual(
        parseTimestampString('2024-01-15T10:00:00.1234567891234Z'),
        hr('2024-01-15T10:00:00Z', 123_456_789),
      );
      assert.deepEqual(parseTimestampString('2024-01-15t10:00:00.5z'), hr('2024-01-15T10:00:00Z', 500_000_000));
      assert.deepEqual(parseTimestampString('2024-01-15 10:00:00.250'), hr('2024-01-15T10:00:00Z', 250_000_000));
      assert.deepEqual(parseTimestampString('2024-01-15T10:00Z'), hr('2024-01-15T10:00:00Z'));
      assert.deepEqual(parseTimestampString('2024-01-15'), hr('2024-01-15T00:00:00Z'));
    },
  );

  test('zones: none means UTC; +hh:mm, +hhmm, +hh, -hh:mm, " UTC" are applied', () => {
    assert.deepEqual(parseTimestampString('2024-01-15T10:00:00'), hr('2024-01-15T10:00:00Z'));
    assert.deepEqual(parseTimestampString('2024-01-15T10:00:00+02:00'), hr('2024-01-15T08:00:00Z'));
    assert.deepEqual(parseTimestampString('2024-01-15T10:00:00+0200'), hr('2024-01-15T08:00:00Z'));
    assert.deepEqual(parseTimestampString('2024-01-15T10:00:00+02'), hr('2024-01-15T08:00:00Z'));
    assert.deepEqual(parseTimestampString('2024-01-15T10:00:00.5-05:30'), hr('2024-01-15T15:30:00Z', 500_000_000));
    assert.deepEqual(parseTimestampString('2024-01-15 10:00:00 UTC'), hr('2024-01-15T10:00:00Z'));
  });

  test('US style M/D/YYYY h:mm:ss AM|PM, as Event Hubs and Storage write it', () => {
    assert.deepEqual(parseTimestampString('9/28/2016 8:40:06 PM +00:00'), hr('2016-09-28T20:40:06Z'));
    assert.deepEqual(parseTimestampString('5/14/2024 9:12:44 AM'), hr('2024-05-14T09:12:44Z'));
    assert.deepEqual(parseTimestampString('12/1/2024 12:05:00 AM'), hr('2024-12-01T00:05:00Z'));
    assert.deepEqual(parseTimestampString('12/1/2024 12:05:00 PM'), hr('2024-12-01T12:05:00Z'));
    assert.deepEqual(parseTimestampString('01/02/2024 15:04:05.25'), hr('2024-01-02T15:04:05Z', 250_000_000));
    assert.deepEqual(parseTimestampString('1/2/2024'), hr('2024-01-02T00:00:00Z'));
  });

  test('epoch numbers in seconds, ms, µs and ns, as numbers or digit strings', () => {
    assert.deepEqual(fromEpochNumber(1_700_000_000), [1_700_000_000, 0]);
    assert.deepEqual(fromEpochNumber(1_700_000_000.5), [1_700_000_000, 500_000_000]);
    assert.deepEqual(fromEpochNumber(1_700_000_000_123), [1_700_000_000, 123_000_000]);
    assert.deepEqual(fromEpochNumber(1_700_000_000_123_456), [1_700_000_000, 123_456_000]);
    assert.deepEqual(parseBuiltinTimestamp('1700000000123'), [1_700_000_000, 123_000_000]);
    assert.deepEqual(parseBuiltinTimestamp(1_700_000_000_123), [1_700_000_000, 123_000_000]);
    const ns = parseBuiltinTimestamp('1700000000123456789');
    assert.equal(ns?.[0], 1_700_000_000);
  });

  test('RFC 1123 dates through the free-form fallback', () => {
    assert.deepEqual(parseTimestampString('Tue, 14 May 2024 09:30:00 GMT'), hr('2024-05-14T09:30:00Z'));
  });

  test('rejects what is not a timestamp rather than guessing', () => {
    for (const bad of [
      '',
      'now',
      'yesterday',
      '2024-13-01T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2024-01-15T25:00:00Z',
      '2024-01-15T10:00:00Zjunk',
      '13/45/2024 10:00:00',
      'abc',
      '0',
      '-5',
      'Informational',
      '2024-01-15X10:00:00',
    ]) {
      assert.equal(parseTimestampString(bad), undefined, bad);
    }
    assert.equal(parseBuiltinTimestamp(null), undefined);
    assert.equal(parseBuiltinTimestamp({}), undefined);
    assert.equal(parseBuiltinTimestamp(Number.NaN), undefined);
    assert.equal(parseBuiltinTimestamp(-1), undefined);
  });

  test('leap day works; years before 1970 are refused (OTLP cannot carry them; the record falls back)', () => {
    assert.deepEqual(parseTimestampString('2024-02-29T00:00:00Z'), hr('2024-02-29T00:00:00Z'));
    assert.equal(parseTimestampString('1969-12-31T23:59:59.5Z'), undefined);
  });
});
