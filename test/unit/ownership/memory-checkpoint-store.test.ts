import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MemoryCheckpointStore } from '../../../src/ownership/memory-checkpoint-store.ts';
import { CheckpointFencedError } from '../../../src/ownership/checkpoint.ts';

const scope = { fullyQualifiedNamespace: 'NS.servicebus.windows.net', eventHubName: 'Hub', consumerGroup: '$Default' };

test('memory store: read what was written, scoped case-insensitively like the blob layout', async () => {
  const store = new MemoryCheckpointStore();
  await store.write(scope, { partitionId: '1', sequenceNumber: 5, offset: '50' });
  const lower = {
    fullyQualifiedNamespace: 'ns.servicebus.windows.net',
    eventHubName: 'hub',
    consumerGroup: '$default',
  };
  assert.equal((await store.read(lower, '1'))?.sequenceNumber, 5);
  assert.equal(await store.read({ ...scope, consumerGroup: 'other' }, '1'), undefined);
});

test('memory store: never moves backwards; reset does', async () => {
  const store = new MemoryCheckpointStore();
  await store.write(scope, { partitionId: '0', sequenceNumber: 10, offset: '100' });
  await store.write(scope, { partitionId: '0', sequenceNumber: 3, offset: '30' });
  assert.equal((await store.read(scope, '0'))?.offset, '100');
  store.reset(scope, { partitionId: '0', sequenceNumber: 3, offset: '30' });
  assert.equal((await store.read(scope, '0'))?.offset, '30');
});

test('memory store: refuses a write whose fence is no longer valid', async () => {
  const store = new MemoryCheckpointStore();
  let valid = true;
  const fence = { leaseId: 'l', isValid: () => valid };
  await store.write(scope, { partitionId: '0', sequenceNumber: 1, offset: '1' }, fence);
  valid = false;
  await assert.rejects(
    store.write(scope, { partitionId: '0', sequenceNumber: 2, offset: '2' }, fence),
    CheckpointFencedError,
  );
  assert.equal((await store.read(scope, '0'))?.sequenceNumber, 1);
});

test('memory store: lists partitions in numeric order', async () => {
  const store = new MemoryCheckpointStore();
  for (const pid of ['10', '2', '1']) await store.write(scope, { partitionId: pid, sequenceNumber: 1, offset: '1' });
  assert.deepEqual(
    (await store.list(scope)).map((c) => c.partitionId),
    ['1', '2', '10'],
  );
});
