import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDurationMs, formatDurationMs, durationMs } from '../../../src/component/duration.ts';

test('parses Go-style durations and plain milliseconds', () => {
  assert.equal(parseDurationMs('5s'), 5000);
  assert.equal(parseDurationMs('1m30s'), 90_000);
  assert.equal(parseDurationMs('250ms'), 250);
  assert.equal(parseDurationMs('1.5h'), 5_400_000);
  assert.equal(parseDurationMs('0'), 0);
  assert.equal(parseDurationMs(1500), 1500);
  assert.equal(parseDurationMs('1500'), 1500);
});

test('rejects what is not a duration', () => {
  for (const bad of ['', 'five seconds', '5 s', '5x', 's5', '-5s']) assert.equal(parseDurationMs(bad), undefined, bad);
  assert.equal(parseDurationMs(-1), undefined);
  const r = durationMs.safeParse('soon');
  assert.equal(r.success, false);
  assert.match(r.error!.issues[0]!.message, /not a duration/);
});

test('formats milliseconds back', () => {
  assert.equal(formatDurationMs(90_000), '1m30s');
  assert.equal(formatDurationMs(250), '250ms');
  assert.equal(formatDurationMs(15_000), '15s');
});

test('a bad duration is quoted only when short and harmless', () => {
  const message = (v: string) => durationMs.safeParse(v).error?.issues[0]?.message ?? '';
  assert.match(message('soon'), /^'soon' is not a duration/);
  assert.match(message('SharedAccessKey=c2VjcmV0S2V5VmFsdWU='), /^a 36-character value is not a duration/);
});
