import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseStartPositionSetting, type StartPositionParse } from '../../../src/config/start-position.ts';

const ok = (text: string) => {
  const r = parseStartPositionSetting(text);
  assert.ok(r.ok, `${text}: ${r.ok ? '' : r.message}`);
  return r.value;
};
const message = (text: string) => {
  const r: StartPositionParse = parseStartPositionSetting(text);
  assert.ok(!r.ok, `${text} parsed`);
  return r.message;
};

test('latest (also empty) and earliest, in any case', () => {
  assert.deepEqual(ok(''), { kind: 'latest' });
  assert.deepEqual(ok(' Latest '), { kind: 'latest' });
  assert.deepEqual(ok('EARLIEST'), { kind: 'earliest' });
});

test('RFC 3339 times with a zone, fraction, lower-case t/z or a space separator', () => {
  assert.deepEqual(ok('2026-01-02T15:04:05Z'), {
    kind: 'enqueuedTime',
    enqueuedTime: new Date('2026-01-02T15:04:05Z'),
  });
  assert.deepEqual(ok('2026-01-02t15:04:05.250z'), {
    kind: 'enqueuedTime',
    enqueuedTime: new Date('2026-01-02T15:04:05.250Z'),
  });
  assert.deepEqual(ok('2026-01-02 15:04:05-02:30'), {
    kind: 'enqueuedTime',
    enqueuedTime: new Date('2026-01-02T17:34:05Z'),
  });
  assert.deepEqual(ok('2024-02-29T00:00:00Z'), {
    kind: 'enqueuedTime',
    enqueuedTime: new Date('2024-02-29T00:00:00Z'),
  });
});

test('look-back durations in Go syntax', () => {
  assert.deepEqual(ok('1h'), { kind: 'lookBack', lookBackMs: 3_600_000 });
  assert.deepEqual(ok('1h30m'), { kind: 'lookBack', lookBackMs: 5_400_000 });
  assert.deepEqual(ok('45s'), { kind: 'lookBack', lookBackMs: 45_000 });
});

test('everything else is refused with what to write instead', () => {
  assert.match(
    message('yesterday'),
    /^'yesterday' is not latest, earliest, an RFC 3339 time \(2026-01-02T15:04:05Z\) or a look-back duration/,
  );
  assert.match(message('3600'), /needs a unit .* "3600s"/);
  assert.match(message('2026-01-02T15:04:05'), /add a time zone/);
  assert.match(message('2026-01-02'), /is not an RFC 3339 time like 2026-01-02T15:04:05Z$/);
  assert.match(message('2026-13-45T99:00:00Z'), /is not a valid date and time/);
  assert.match(message('2025-02-29T00:00:00Z'), /is not a valid date and time/);
  assert.match(message('2026-01-02T15:04:60Z'), /is not a valid date and time/);
  assert.match(message('-1h'), /is not latest, earliest/);
});
