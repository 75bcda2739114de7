import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { compileTimeLayout } from '../../../src/decode/internal/time-layout.ts';

const hr = (iso: string, nanos = 0): [number, number] => [Math.floor(Date.parse(iso) / 1000), nanos];

describe('Go reference-time layouts', () => {
  test("the Go receiver's documented example: 01/02/2006 15:04:05", () => {
    const parse = compileTimeLayout('01/02/2006 15:04:05');
    assert.deepEqual(parse('05/14/2024 09:30:00'), hr('2024-05-14T09:30:00Z'));
    assert.equal(parse('5/14/2024 09:30:00'), undefined, '01 needs two digits, as in Go');
    assert.deepEqual(
      parse('05/14/2024 09:30:00.123'),
      hr('2024-05-14T09:30:00Z', 123_000_000),
      'Go accepts a fraction after seconds',
    );
  });

  test('1/2/2006 3:04:05 PM with a 12-hour clock', () => {
    const parse = compileTimeLayout('1/2/2006 3:04:05 PM');
    assert.deepEqual(parse('5/14/2024 9:30:00 PM'), hr('2024-05-14T21:30:00Z'));
    assert.deepEqual(parse('5/14/2024 12:00:00 AM'), hr('2024-05-14T00:00:00Z'));
    assert.equal(parse('5/14/2024 13:00:00 PM'), undefined);
  });

  test('RFC 3339 with zone and exact or optional fractions', () => {
    assert.deepEqual(
      compileTimeLayout('2006-01-02T15:04:05Z07:00')('2024-05-14T11:30:00+02:00'),
      hr('2024-05-14T09:30:00Z'),
    );
    assert.deepEqual(
      compileTimeLayout('2006-01-02T15:04:05Z07:00')('2024-05-14T09:30:00Z'),
      hr('2024-05-14T09:30:00Z'),
    );
    assert.deepEqual(
      compileTimeLayout('2006-01-02 15:04:05.000 -0700')('2024-05-14 09:30:00.042 -0100'),
      hr('2024-05-14T10:30:00Z', 42_000_000),
    );
    assert.equal(
      compileTimeLayout('2006-01-02 15:04:05.000')('2024-05-14 09:30:00.42'),
      undefined,
      '.000 needs exactly three digits',
    );
    assert.deepEqual(
      compileTimeLayout('2006-01-02 15:04:05.999999999')('2024-05-14 09:30:00.5'),
      hr('2024-05-14T09:30:00Z', 500_000_000),
    );
  });

  test('month and weekday names, two-digit years, day of year, zone abbreviations', () => {
    assert.deepEqual(
      compileTimeLayout('Mon, 02 Jan 2006 15:04:05 MST')('Tue, 14 May 2024 09:30:00 UTC'),
      hr('2024-05-14T09:30:00Z'),
    );
    assert.deepEqual(compileTimeLayout('January _2 06 15:04')('May  4 24 09:30'), hr('2024-05-04T09:30:00Z'));
    assert.deepEqual(compileTimeLayout('02-Jan-06')('14-May-99'), hr('1999-05-14T00:00:00Z'));
    assert.deepEqual(compileTimeLayout('2006.002 15:04')('2024.135 09:30'), hr('2024-05-14T09:30:00Z'));
  });

  test('literal text around elements must match', () => {
    const parse = compileTimeLayout('[2006-01-02 15:04:05]');
    assert.deepEqual(parse('[2024-05-14 09:30:00]'), hr('2024-05-14T09:30:00Z'));
    assert.equal(parse('2024-05-14 09:30:00'), undefined);
  });

  test('a layout without any element is refused at configuration time', () => {
    assert.throws(() => compileTimeLayout('yyyy-MM-dd'), /no date or time element/);
  });
});

describe('strftime layouts', () => {
  test('%Y-%m-%dT%H:%M:%S.%f%z and %d/%b/%Y:%T', () => {
    assert.deepEqual(
      compileTimeLayout('%Y-%m-%dT%H:%M:%S.%f%z')('2024-05-14T11:30:00.123456+0200'),
      hr('2024-05-14T09:30:00Z', 123_456_000),
    );
    assert.deepEqual(compileTimeLayout('%d/%b/%Y:%T')('14/May/2024:09:30:00'), hr('2024-05-14T09:30:00Z'));
    assert.deepEqual(compileTimeLayout('%m/%d/%Y %I:%M:%S %p')('05/14/2024 09:30:00 PM'), hr('2024-05-14T21:30:00Z'));
  });

  test('an unknown directive is refused', () => {
    assert.throws(() => compileTimeLayout('%Q'), /unknown strftime directive/);
  });
});
