import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Logger } from '../../../src/component/logger.ts';
import { tellOwnershipEvent } from '../../../src/receiver/internal/tell-ownership-event.ts';
import { createPumpCounters } from '../../../src/receiver/internal/pump-counters.ts';

test('a claim pause is counted and warned of; its end is told', () => {
  const lines: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: (m) => lines.push(`info ${m}`),
    warn: (m) => lines.push(`warn ${m}`),
    error: () => {},
    child: () => logger,
  };
  const counters = createPumpCounters();
  const to = { logger, emit: () => {}, counters };
  tellOwnershipEvent({ type: 'claimsPaused', lateMs: 2_500, owned: 40, deferred: 12 }, to);
  tellOwnershipEvent({ type: 'claimsResumed' }, to);
  tellOwnershipEvent({ type: 'claimsPaused', lateMs: 3_000, owned: 40, deferred: 2 }, to);
  assert.equal(counters.claimPauses, 2);
  assert.deepEqual(
    lines.map((l) => l.split(' ')[0]),
    ['warn', 'info', 'warn'],
  );
});

test('a refusal under a lost lease says so, and is no storage failure; an unreachable store is one', async () => {
  const { RestError } = await import('@azure/core-rest-pipeline');
  const { toStorageError } = await import('../../../src/ownership/storage-errors.ts');
  const lines: string[] = [];
  const statuses: string[] = [];
  const logger: Logger = {
    debug: () => {},
    info: () => {},
    warn: (m, f) => lines.push(`${m} | ${String(f?.error)}`),
    error: () => {},
    child: () => logger,
  };
  const to = { logger, emit: (s: { type: string }) => statuses.push(s.type), counters: createPumpCounters() };
  const gone = new RestError('There is currently no lease on the blob.', {
    statusCode: 412,
    code: 'LeaseNotPresentWithBlobOperation',
  });
  tellOwnershipEvent({ type: 'storageError', error: toStorageError(gone) }, to);
  assert.deepEqual(statuses, []);
  assert.match(lines[0]!, /^lease lost: .*412 LeaseNotPresentWithBlobOperation/);
  tellOwnershipEvent(
    {
      type: 'storageError',
      error: toStorageError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    },
    to,
  );
  assert.deepEqual(statuses, ['storageFailing']);
  assert.match(lines[1]!, /^checkpoint store unreachable/);
});

test('standby only for a share of nothing, not for a first round that has not claimed yet', () => {
  const statuses: string[] = [];
  const logger: Logger = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {}, child: () => logger };
  const to = { logger, emit: (s: { type: string }) => statuses.push(s.type), counters: createPumpCounters() };
  tellOwnershipEvent({ type: 'balanced', owned: [], members: 2, fairShare: 4 }, to);
  assert.deepEqual(statuses, ['storageRecovered']);
  tellOwnershipEvent({ type: 'balanced', owned: [], members: 9, fairShare: 0 }, to);
  assert.deepEqual(statuses, ['storageRecovered', 'storageRecovered', 'standby']);
});
