import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContainerClient } from '@azure/storage-blob';
import { LeaseOwnershipCoordinator } from '../../../src/ownership/lease-ownership-coordinator.ts';

const base = {
  // Never contacted: these tests only construct, or shut down without starting.
  containerClient: new ContainerClient('http://127.0.0.1:9/devstoreaccount1/unused'),
  scope: { fullyQualifiedNamespace: 'ns', eventHubName: 'hub', consumerGroup: '$default' },
  getPartitionIds: async () => ['0'],
};

test('coordinator options: lease duration must be whole seconds within the blob lease limits', () => {
  assert.throws(() => new LeaseOwnershipCoordinator({ ...base, leaseDurationMs: 10_000 }), /between 15000 and 60000/);
  assert.throws(() => new LeaseOwnershipCoordinator({ ...base, leaseDurationMs: 15_500 }), /whole seconds/);
  assert.doesNotThrow(() => new LeaseOwnershipCoordinator({ ...base, leaseDurationMs: 60_000 }));
});

test('coordinator options: renew interval at most half the lease, and it says what to do', () => {
  assert.throws(
    () => new LeaseOwnershipCoordinator({ ...base, renewIntervalMs: 16_000 }),
    /at most half of leaseDurationMs \(30000\); set it to about a third \(10000\)/,
  );
  assert.throws(
    () => new LeaseOwnershipCoordinator({ ...base, leaseDurationMs: 15_000, renewIntervalMs: 10_000 }),
    /at most half of leaseDurationMs \(15000\); set it to about a third \(5000\)/,
  );
  assert.throws(
    () => new LeaseOwnershipCoordinator({ ...base, renewIntervalMs: 14_000, safetyMarginMs: 17_000 }),
    /safetyMarginMs/,
  );
});

test('coordinator: a random owner id by default; shutdown without start is safe and idempotent', async () => {
  const a = new LeaseOwnershipCoordinator(base);
  const b = new LeaseOwnershipCoordinator(base);
  assert.notEqual(a.ownerId, b.ownerId);
  await a.shutdown();
  await a.shutdown();
  assert.deepEqual(a.owned(), []);
  await assert.rejects(
    a.start({
      startPartition: async () => ({
        ended: new Promise(() => {}),
        stop: async () => ({ reason: 'stopped' as const }),
      }),
    }),
    /already started/,
  );
});
