import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rateLimitedLogger } from '../../../src/component/rate-limited-logger.ts';
import type { Logger } from '../../../src/component/logger.ts';

function capture(): { logger: Logger; lines: { level: string; message: string; fields?: Record<string, unknown> }[] } {
  const lines: { level: string; message: string; fields?: Record<string, unknown> }[] = [];
  const make = (bound: Record<string, unknown>): Logger => ({
    debug: (message, fields) => lines.push({ level: 'debug', message, fields: { ...bound, ...fields } }),
    info: (message, fields) => lines.push({ level: 'info', message, fields: { ...bound, ...fields } }),
    warn: (message, fields) => lines.push({ level: 'warn', message, fields: { ...bound, ...fields } }),
    error: (message, fields) => lines.push({ level: 'error', message, fields: { ...bound, ...fields } }),
    child: (fields) => make({ ...bound, ...fields }),
  });
  return { logger: make({}), lines };
}

test('the same warning on many partitions is written once per window; the next line says how often it repeated', () => {
  let now = 0;
  const { logger, lines } = capture();
  const limited = rateLimitedLogger(logger, { windowMs: 10_000, now: () => now });
  // The error names its partition and a tracking id: one problem all the same.
  const refuse = (p: number) =>
    limited.child({ partitionId: String(p) }).error('reader refused', {
      error:
        `partition ${p}: not found. TrackingId:${String(p).padStart(2, '0')}f0e8a3-1d2b-4c5d-8e9f-a0b1c2d3e4f5,` +
        ` ts 2026-11-28T04:${10 + p}:00Z`,
      configKey: 'group',
    });
  for (let p = 0; p < 32; p++) refuse(p);
  assert.equal(lines.length, 1);
  now += 10_000;
  refuse(3);
  assert.equal(lines.length, 2);
  assert.equal(lines[1]!.fields!.repeated, 31);
  assert.equal(lines[1]!.fields!.repeatedPartitions, '1-31');
});

test('different errors, levels and messages are not folded; info and debug always pass', () => {
  const { logger, lines } = capture();
  const limited = rateLimitedLogger(logger, { now: () => 0 });
  limited.warn('reader failed', { error: 'a' });
  limited.warn('reader failed', { error: 'b' });
  limited.error('reader failed', { error: 'a' });
  limited.info('partition opened');
  limited.info('partition opened');
  limited.debug('x');
  assert.equal(lines.length, 6);
});

test(
  'a lasting problem is told less and less often (10 s, 20 s, 40 s ...); after a quiet window, at once ' + 'again',
  () => {
    let now = 0;
    const { logger, lines } = capture();
    const limited = rateLimitedLogger(logger, { windowMs: 10_000, now: () => now });
    const written: number[] = [];
    for (; now <= 60_000; now += 500) {
      const before = lines.length;
      for (let p = 0; p < 32; p++)
        limited.child({ partitionId: String(p) }).warn('reader failed', { error: `partition ${p}: busy` });
      if (lines.length > before) written.push(now);
    }
    assert.deepEqual(
      written,
      [0, 10_000, 30_000],
      'three lines in the first minute for 32 partitions failing every 500 ms',
    );
    now = 200_000; // 70 s window from 30 s: ends at 100 s, and 100 s → 170 s passed quietly
    limited.warn('reader failed', { error: 'partition 1: busy' });
    assert.equal(lines.length, 4);
    now += 10_000;
    limited.warn('reader failed', { error: 'partition 1: busy' });
    assert.equal(lines.length, 5, 'started over at the first window');
  },
);

test('partitionRanges folds runs of numeric ids', async () => {
  const { partitionRanges } = await import('../../../src/component/rate-limited-logger.ts');
  assert.equal(partitionRanges(['3', '0', '1', '2', '5', '7', '8', '9', 'x']), '0-3,5,7-9,x');
});

test('problemKey: the same refusal met at the open or at a receive, on any partition, is one problem', async () => {
  const { problemKey } = await import('../../../src/component/rate-limited-logger.ts');
  assert.equal(
    problemKey('opening partition 24: group not found (port 36089)'),
    problemKey('partition 3: group not found (port 41187)'),
  );
  assert.notEqual(problemKey('partition 3: group not found'), problemKey('partition 3: hub not found'));
});
