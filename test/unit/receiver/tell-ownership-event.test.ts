import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from '../../../src/component/logger.ts';
import { tellOwnershipEvent } from '../../../src/receiver/internal/tell-ownership-event.ts';
import { createPumpCounters } from '../../../src/receiver/internal/pump-counters.ts';

test('a claim pause is counted and warned of; its end is told', () => {
  const lines: string[] = [];
  const logger: Logger = {
    debug: () => {}, info: (m) => lines.push(`info ${m}`), warn: (m) => lines.push(`warn ${m}`), error: () => {},
    child: () => logger,
  };
  const counters = createPumpCounters();
  const to = { logger, emit: () => {}, counters };
  tellOwnershipEvent({ type: 'claimsPaused', lateMs: 2_500, owned: 40, deferred: 12 }, to);
  tellOwnershipEvent({ type: 'claimsResumed' }, to);
  tellOwnershipEvent({ type: 'claimsPaused', lateMs: 3_000, owned: 40, deferred: 2 }, to);
  assert.equal(counters.claimPauses, 2);
  assert.deepEqual(lines.map((l) => l.split(' ')[0]), ['warn', 'info', 'warn']);
});
