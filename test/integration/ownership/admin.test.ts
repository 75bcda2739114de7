import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobCheckpointStore as SdkBlobCheckpointStore } from '@azure/eventhubs-checkpointstore-blob';
import { startFleet } from './helpers/fleet.ts';
import { waitFor } from './helpers/fake-lifecycle.ts';
import { listCheckpoints, listOwnership, resetCheckpoints, ResetRefusedError } from '../../../src/ownership/admin.ts';
import { BlobCheckpointStore } from '../../../src/ownership/blob-checkpoint-store.ts';

test('admin: list ownership and checkpoints, reset refused while owned, forced reset breaks the leases', async (t) => {
  const fleet = await startFleet(t, 2);
  const store = new BlobCheckpointStore(fleet.container);
  const a = await fleet.add('a', { startDelayMs: 0, strategy: 'greedy' });
  await waitFor('a owns both', () => fleet.timeline.count('a') === 2, 5_000);
  for (const pid of ['0', '1'])
    await store.write(
      fleet.scope,
      { partitionId: pid, sequenceNumber: 500, offset: '5000' },
      fleet.timeline.claim('a', pid)!.fence,
    );

  const ownership = await listOwnership(fleet.container, fleet.scope);
  assert.deepEqual(
    ownership.map((o) => [o.partitionId, o.ownerId, o.leaseState, o.epoch]),
    [
      ['0', 'a', 'leased', 1],
      ['1', 'a', 'leased', 1],
    ],
  );
  assert.ok(ownership.every((o) => o.lastModified instanceof Date));
  assert.deepEqual(
    (await listCheckpoints(fleet.container, fleet.scope)).map((c) => [c.partitionId, c.sequenceNumber, c.offset]),
    [
      ['0', 500, '5000'],
      ['1', 500, '5000'],
    ],
  );

  await assert.rejects(
    resetCheckpoints(fleet.container, fleet.scope, { kind: 'sequenceNumber', sequenceNumber: 10, offset: '100' }),
    (e: unknown) => {
      assert.ok(e instanceof ResetRefusedError);
      assert.match(e.message, /0 \(owner a\), 1 \(owner a\).*force/);
      return true;
    },
  );
  assert.equal((await store.read(fleet.scope, '0'))?.sequenceNumber, 500, 'nothing written when refused');

  const written = await resetCheckpoints(
    fleet.container,
    fleet.scope,
    { kind: 'sequenceNumber', sequenceNumber: 10, offset: '100' },
    { partitions: ['0'], force: true },
  );
  assert.deepEqual(written, [{ partitionId: '0', sequenceNumber: 10, offset: '100' }]);
  assert.equal((await store.read(fleet.scope, '0'))?.sequenceNumber, 10, 'moved backwards through the reset tool');
  assert.equal((await store.read(fleet.scope, '1'))?.sequenceNumber, 500, 'untargeted partitions untouched');
  // The broken lease makes a's next renewal fail: it stops the partition as lost, writing nothing.
  await waitFor(
    'a loses partition 0',
    () => fleet.timeline.events.some((e) => e.kind === 'stop' && e.partitionId === '0' && e.reason === 'lost'),
    10_000,
  );
  await waitFor(
    'a claims partition 0 again',
    () => fleet.timeline.events.filter((e) => e.kind === 'start' && e.partitionId === '0').length === 2,
    10_000,
  );
  assert.equal(fleet.timeline.claim('a', '0')!.ownerLevel, 2, 'the new claim raised the epoch');
  assert.deepEqual(fleet.timeline.violations, []);
  await a.shutdown();
});

test('admin: earliest needs no hub; latest and time go through resolve', async (t) => {
  const fleet = await startFleet(t, 2);
  await assert.rejects(resetCheckpoints(fleet.container, fleet.scope, { kind: 'earliest' }), /no partitions/);
  await resetCheckpoints(fleet.container, fleet.scope, { kind: 'earliest' }, { partitions: ['0', '1'] });
  const sdk = new SdkBlobCheckpointStore(fleet.container);
  const listed = await sdk.listCheckpoints(
    fleet.scope.fullyQualifiedNamespace,
    fleet.scope.eventHubName,
    fleet.scope.consumerGroup,
  );
  assert.deepEqual(listed.map((c) => [c.partitionId, c.sequenceNumber, c.offset]).sort(), [
    ['0', -1, '-1'],
    ['1', -1, '-1'],
  ]);
  assert.equal((await new BlobCheckpointStore(fleet.container).read(fleet.scope, '1'))?.sequenceNumber, -1);

  await assert.rejects(resetCheckpoints(fleet.container, fleet.scope, { kind: 'latest' }), /needs the hub/);
  const asked: string[] = [];
  const written = await resetCheckpoints(
    fleet.container,
    fleet.scope,
    { kind: 'time', time: new Date('2026-01-01T00:00:00Z') },
    {
      resolve: async (pid, target) => {
        asked.push(`${pid}:${target.kind}`);
        return { sequenceNumber: 41 + Number(pid), offset: `${4100 + Number(pid)}` };
      },
    },
  );
  assert.deepEqual(asked, ['0:time', '1:time']);
  assert.deepEqual(
    written.map((c) => c.sequenceNumber),
    [41, 42],
  );
});

test('admin: an unreadable checkpoint blob is listed with its problem', async (t) => {
  const fleet = await startFleet(t, 1);
  const name = (
    `${fleet.scope.fullyQualifiedNamespace}/${fleet.scope.eventHubName}/${fleet.scope.consumerGroup}/` + `checkpoint/0`
  ).toLowerCase();
  await fleet.container.getBlockBlobClient(name).upload('', 0, { metadata: { offset: '12' } });
  const [info] = await listCheckpoints(fleet.container, fleet.scope);
  assert.equal(info?.partitionId, '0');
  assert.match(info?.problem ?? '', /sequencenumber/);
});
