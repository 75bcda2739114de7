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
  for (let p = 0; p < 32; p++) limited.child({ partitionId: String(p) }).error('reader refused', { error: 'not found', configKey: 'group' });
  assert.equal(lines.length, 1);
  now += 10_000;
  limited.child({ partitionId: '3' }).error('reader refused', { error: 'not found', configKey: 'group' });
  assert.equal(lines.length, 2);
  assert.equal(lines[1]!.fields!.repeated, 31);
  assert.match(String(lines[1]!.fields!.repeatedPartitions), /^1,10,11,/);
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
