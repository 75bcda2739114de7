import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { BlobCheckpointStore as SdkBlobCheckpointStore } from '@azure/eventhubs-checkpointstore-blob';
import { startAzurite, randomName, type Azurite } from '../../helpers/azurite.ts';
import { BlobCheckpointStore } from '../../../src/ownership/blob-checkpoint-store.ts';
import { CheckpointFencedError, type CheckpointScope, type OwnershipFence } from '../../../src/ownership/checkpoint.ts';

let azurite: Azurite;
let service: BlobServiceClient;
before(async () => {
  azurite = await startAzurite();
  service = BlobServiceClient.fromConnectionString(azurite.connectionString);
});
after(() => azurite?.stop());

async function setup(): Promise<{ container: ContainerClient; scope: CheckpointScope; store: BlobCheckpointStore }> {
  const container = service.getContainerClient(randomName('c'));
  await container.create();
  // Mixed case on purpose: the layout lower-cases namespace, hub and consumer group.
  const scope = { fullyQualifiedNamespace: `${randomName('NS')}.servicebus.windows.net`, eventHubName: randomName('Hub'), consumerGroup: '$Default' };
  return { container, scope, store: new BlobCheckpointStore(container) };
}

/** Leases the partition's ownership blob the way the coordinator does and returns a fence on it. */
async function leaseOwnership(container: ContainerClient, scope: CheckpointScope, pid: string): Promise<{ fence: OwnershipFence; valid: { value: boolean }; leaseId: string }> {
  const blob = container.getBlockBlobClient(`${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/ownership/${pid}`.toLowerCase());
  await blob.upload('', 0, { metadata: { ownerid: 'me' } });
  const { leaseId } = await blob.getBlobLeaseClient().acquireLease(15);
  const valid = { value: true };
  return { fence: { leaseId: leaseId!, isValid: () => valid.value }, valid, leaseId: leaseId! };
}

describe('BlobCheckpointStore on Azurite', () => {
  test('interop: a checkpoint written by the Azure SDK store is read by ours', async () => {
    const { container, scope, store } = await setup();
    const sdk = new SdkBlobCheckpointStore(container);
    await sdk.updateCheckpoint({ ...scope, partitionId: '3', sequenceNumber: 42, offset: '4200' });
    const cp = await store.read(scope, '3');
    assert.equal(cp?.sequenceNumber, 42);
    assert.equal(cp?.offset, '4200');
    assert.ok(cp?.updatedOn instanceof Date);
    assert.deepEqual((await store.list(scope)).map((c) => [c.partitionId, c.sequenceNumber, c.offset]), [['3', 42, '4200']]);
  });

  test('interop: a checkpoint written by ours is listed by the Azure SDK store, in its exact layout', async () => {
    const { container, scope, store } = await setup();
    await store.write(scope, { partitionId: '0', sequenceNumber: 7, offset: '700' });
    await store.write(scope, { partitionId: '10', sequenceNumber: 9_007_199_254, offset: '123456789012' });
    const listed = await new SdkBlobCheckpointStore(container).listCheckpoints(scope.fullyQualifiedNamespace, scope.eventHubName, scope.consumerGroup);
    assert.deepEqual(listed.map((c) => [c.partitionId, c.sequenceNumber, c.offset]).sort(), [['0', 7, '700'], ['10', 9_007_199_254, '123456789012']]);
    const name = `${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/checkpoint/0`.toLowerCase();
    const props = await container.getBlobClient(name).getProperties();
    assert.equal(props.contentLength, 0, 'empty body, state in metadata');
    assert.deepEqual(props.metadata, { sequencenumber: '7', offset: '700' });
  });

  test('no checkpoint: read resolves undefined', async () => {
    const { scope, store } = await setup();
    assert.equal(await store.read(scope, '0'), undefined);
    assert.deepEqual(await store.list(scope), []);
  });

  test('never moves backwards, also when many writers race', async () => {
    const { container, scope, store } = await setup();
    await store.write(scope, { partitionId: '0', sequenceNumber: 100, offset: '1000' });
    await store.write(scope, { partitionId: '0', sequenceNumber: 50, offset: '500' });
    assert.equal((await store.read(scope, '0'))?.sequenceNumber, 100);
    // Separate store objects, as separate processes would have, writing in random order.
    const writers = Array.from({ length: 4 }, () => new BlobCheckpointStore(service.getContainerClient(container.containerName), { maxConflictRetries: 20 }));
    const seqs = [130, 101, 170, 120, 160, 105, 150, 140];
    const results = await Promise.allSettled(seqs.map((s, i) => writers[i % writers.length]!.write(scope, { partitionId: '1', sequenceNumber: s, offset: String(s * 10) })));
    assert.ok(results.every((r) => r.status === 'fulfilled'), JSON.stringify(results.filter((r) => r.status === 'rejected')));
    const final = await store.read(scope, '1');
    assert.equal(final?.sequenceNumber, 170);
    assert.equal(final?.offset, '1700', 'offset and sequence number travel together');
  });

  test('a writer that read before another wrote cannot move the checkpoint backwards (ETag condition)', async () => {
    const { container, scope, store } = await setup();
    await store.write(scope, { partitionId: '0', sequenceNumber: 10, offset: '100' });
    // Between this writer's read and its write, another writer moves the checkpoint to 90.
    let interfered = false;
    const racing = new Proxy(container, {
      get(target, prop, receiver) {
        if (prop !== 'getBlockBlobClient') return Reflect.get(target, prop, receiver);
        return (name: string) => {
          const blob = target.getBlockBlobClient(name);
          const getProperties = blob.getProperties.bind(blob);
          blob.getProperties = async (...args: Parameters<typeof blob.getProperties>) => {
            const props = await getProperties(...args);
            if (!interfered) {
              interfered = true;
              await store.write(scope, { partitionId: '0', sequenceNumber: 90, offset: '900' });
            }
            return props;
          };
          return blob;
        };
      },
    });
    await new BlobCheckpointStore(racing).write(scope, { partitionId: '0', sequenceNumber: 50, offset: '500' });
    assert.ok(interfered);
    const final = await store.read(scope, '0');
    assert.deepEqual([final?.sequenceNumber, final?.offset], [90, '900'], 'the stale writer re-read, saw 90 and wrote nothing');
  });

  test('fenced: refused when the fence says the lease may have lapsed', async () => {
    const { container, scope, store } = await setup();
    const { fence, valid } = await leaseOwnership(container, scope, '0');
    await store.write(scope, { partitionId: '0', sequenceNumber: 1, offset: '10' }, fence);
    valid.value = false;
    await assert.rejects(store.write(scope, { partitionId: '0', sequenceNumber: 2, offset: '20' }, fence), CheckpointFencedError);
    assert.equal((await store.read(scope, '0'))?.sequenceNumber, 1);
  });

  test('fenced: refused when another instance holds the ownership lease, even if the local fence still says valid', async () => {
    const { container, scope, store } = await setup();
    const { fence } = await leaseOwnership(container, scope, '0');
    const blob = container.getBlockBlobClient(`${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/ownership/0`.toLowerCase());
    await blob.getBlobLeaseClient(fence.leaseId).releaseLease();
    await blob.getBlobLeaseClient().acquireLease(15); // the new owner
    await assert.rejects(store.write(scope, { partitionId: '0', sequenceNumber: 5, offset: '50' }, fence), CheckpointFencedError);
    assert.equal(await store.read(scope, '0'), undefined);
  });

  test('a malformed checkpoint blob is an error, not a silent restart from the default position', async () => {
    const { container, scope, store } = await setup();
    await container.getBlockBlobClient(`${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/checkpoint/0`.toLowerCase()).upload('', 0, { metadata: { offset: '5' } });
    await assert.rejects(store.read(scope, '0'), /sequencenumber/);
  });

  test('readAll: every checkpoint in one listing, as read() sees it, with its time; an unusable blob left out', async () => {
    const { container, scope, store } = await setup();
    for (const [pid, seq] of [['0', 10], ['2', -1], ['10', 7]] as const) {
      await store.write(scope, { partitionId: pid, sequenceNumber: seq, offset: String(seq * 100) });
    }
    await container.getBlockBlobClient(`${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/checkpoint/5`.toLowerCase()).upload('', 0, { metadata: { offset: '5' } });
    // Another consumer group's checkpoint is not listed.
    await store.write({ ...scope, consumerGroup: 'other' }, { partitionId: '0', sequenceNumber: 99, offset: '9900' });
    const all = await store.readAll(scope);
    assert.deepEqual(all.map((c) => [c.partitionId, c.sequenceNumber, c.offset]), [['0', 10, '1000'], ['2', -1, '-100'], ['10', 7, '700']]);
    for (const c of all) {
      const one = await store.read(scope, c.partitionId);
      assert.deepEqual([one?.sequenceNumber, one?.offset, one?.updatedOn?.getTime()], [c.sequenceNumber, c.offset, c.updatedOn?.getTime()]);
    }
  });
});
