import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { startAzurite, randomName, type Azurite } from '../../helpers/azurite.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { createHubClient } from '../../../src/backends/create-hub-client.ts';
import { BlobCheckpointStore } from '../../../src/ownership/blob-checkpoint-store.ts';
import type { CheckpointScope } from '../../../src/ownership/checkpoint.ts';
import { blobPartitionOwners } from '../../../src/ownership/partition-owners.ts';
import { HubLagMonitor } from '../../../src/receiver/internal/hub-lag-monitor.ts';
import type { HubPartitionLag } from '../../../src/receiver/receiver-status.ts';
import { BACKENDS, startReceiver, until } from './harness.ts';

let azurite: Azurite;
let service: BlobServiceClient;
before(async () => {
  azurite = await startAzurite();
  service = BlobServiceClient.fromConnectionString(azurite.connectionString);
});
after(() => azurite?.stop());

/** Writes the ownership blob of a partition, as the coordinator does, and leases it when `leased`. */
async function ownershipBlob(
  container: ContainerClient,
  scope: CheckpointScope,
  pid: string,
  ownerId: string,
  leased: boolean,
) {
  const name =
    `${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/ownership/${pid}`.toLowerCase();
  const blob = container.getBlockBlobClient(name);
  await blob.upload('', 0, { metadata: { ownerid: ownerId } });
  // The owner is one of our instances, which register a members/ blob: unleased, its blob is free. (A fresh
  // unleased `ownerid` of no member is a live foreign claim, an SDK processor's, and is reported as owned.)
  await container.getBlockBlobClient(name.replace(/\/ownership\/[^/]+$/, `/members/${ownerId}`)).upload('', 0);
  const lease = blob.getBlobLeaseClient();
  if (leased) await lease.acquireLease(60);
  return lease;
}

const events = (n: number) => Array.from({ length: n }, (_, i) => ({ body: `e${i}` }));

function rowsOf(monitor: HubLagMonitor): Map<string, HubPartitionLag> {
  return new Map(monitor.snapshot().map((r) => [r.partitionId, r]));
}

for (const kind of BACKENDS) {
  describe(`HubLagMonitor on the emulator and Azurite (${kind})`, () => {
    test('reports every partition of the hub with its owner and its lag behind the checkpoint, owned or not', {
      timeout: 60_000,
    }, async (t) => {
      const { emulator, hubName, connectionString, consumerGroup, track } = await startTestEmulator(t, {
        partitions: 4,
      });
      const hub = track(createHubClient(kind, { connectionString, consumerGroup }));
      const container = service.getContainerClient(randomName('lag'));
      await container.create();
      const scope = { fullyQualifiedNamespace: hub.fullyQualifiedNamespace, eventHubName: hubName, consumerGroup };
      const store = new BlobCheckpointStore(container);

      // p0: 10 events, checkpoint 3, ownership blob whose lease was released (no owner).
      // p1: 5 events, checkpoint 4 (caught up), leased by pod-a.
      // p2: empty, nothing stored.  p3: 7 events, no checkpoint, no ownership blob.
      emulator.append(hubName, '0', events(10));
      emulator.append(hubName, '1', events(5));
      emulator.append(hubName, '3', events(7));
      await store.write(scope, { partitionId: '0', sequenceNumber: 3, offset: '0' });
      await store.write(scope, { partitionId: '1', sequenceNumber: 4, offset: '0' });
      await ownershipBlob(container, scope, '0', 'pod-old', false);
      const p1Lease = await ownershipBlob(container, scope, '1', 'pod-a', true);

      const monitor = new HubLagMonitor({
        hub,
        store,
        scope,
        readOwners: blobPartitionOwners(container, scope),
        intervalMs: 100,
      });
      t.after(() => monitor.stop());
      monitor.start();
      await until(() => monitor.snapshot().length === 4, 20_000, 'the first refresh');

      let rows = rowsOf(monitor);
      const view = (r: HubPartitionLag | undefined) =>
        r && [r.owner, r.checkpointSequenceNumber, r.lastEnqueuedSequenceNumber, r.lagEvents, r.stale];
      assert.deepEqual(view(rows.get('0')), ['', 3, 9, 6, false]);
      assert.deepEqual(view(rows.get('1')), ['pod-a', 4, 4, 0, false]);
      assert.deepEqual(view(rows.get('2')), ['', undefined, -1, 0, false]);
      assert.deepEqual(view(rows.get('3')), ['', undefined, 6, undefined, false], 'no checkpoint: lag unknown, not 0');
      for (const pid of ['0', '1']) {
        const age = rows.get(pid)!.checkpointAgeSeconds;
        assert.ok(
          age !== undefined && age >= 0,
          `partition ${pid}: checkpoint age from the blob's last-modified time (${age})`,
        );
      }
      assert.equal(rows.get('3')!.checkpointAgeSeconds, undefined);
      assert.ok(rows.get('0')!.lastEnqueuedTime instanceof Date);
      assert.equal(rows.get('2')!.lastEnqueuedTime, undefined);

      // The fleet moves on: events arrive on p1 and p3, p3 is checkpointed, pod-a's lease is broken.
      emulator.append(hubName, '1', events(3));
      emulator.append(hubName, '3', events(1));
      await store.write(scope, { partitionId: '3', sequenceNumber: 5, offset: '0' });
      await p1Lease.breakLease(0);
      await until(
        () => {
          const r = rowsOf(monitor);
          return r.get('1')?.owner === '' && r.get('1')?.lagEvents === 3 && r.get('3')?.lagEvents === 2;
        },
        20_000,
        'a later background refresh',
      );
      rows = rowsOf(monitor);
      assert.deepEqual(view(rows.get('1')), ['', 4, 7, 3, false]);
      assert.deepEqual(view(rows.get('3')), ['', 5, 7, 2, false]);
      await monitor.stop();
    });
  });
}

test('a running receiver reports every partition of the hub with its owner and its lag reaching 0 (hubLag, blob ' +
  'store)', {
  timeout: 90_000,
}, async (t) => {
  const az = await startAzurite();
  t.after(() => az.stop());
  const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 3 });
  const containerName = randomName('hublag');
  await BlobServiceClient.fromConnectionString(az.connectionString).getContainerClient(containerName).create();
  for (let p = 0; p < 3; p++) emulator.append(hubName, String(p), [{ body: 'a' }, { body: 'b' }]);
  const receiver = startReceiver(t, {
    connection: connectionString,
    format: 'raw',
    start_position: 'earliest',
    hub_lag_interval: '1s',
    checkpoint: { interval: '200ms' },
    ownership: { owner_id: 'pod-x', update_interval: '1s', strategy: 'greedy' },
    blob_checkpoint_store: { connection: az.connectionString, container_name: containerName },
  });
  await receiver.start();
  await until(
    () => {
      const rows = receiver.hubLag?.() ?? [];
      return (
        rows.length === 3 &&
        rows.every((r) => r.owner === 'pod-x' && r.lagEvents === 0 && r.checkpointSequenceNumber === 1 && !r.stale)
      );
    },
    30_000,
    'every partition owned by pod-x, checkpointed at its last event, lag 0',
  );
  assert.ok(
    receiver.hubLag!().every((r) => r.checkpointAgeSeconds !== undefined),
    'checkpoint ages from the listing',
  );
});
