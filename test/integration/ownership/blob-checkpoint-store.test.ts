import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { BlobCheckpointStore as SdkBlobCheckpointStore } from '@azure/eventhubs-checkpointstore-blob';
import { startAzurite, randomName, AZURITE_ACCOUNT, AZURITE_KEY, type Azurite } from '../../helpers/azurite.ts';
import { startCountingProxy, type CountingProxy, type SeenRequest } from '../../bench/internal/counting-proxy.ts';
import { BlobCheckpointStore } from '../../../src/ownership/blob-checkpoint-store.ts';
import { CheckpointFencedError, type CheckpointScope, type OwnershipFence } from '../../../src/ownership/checkpoint.ts';

let azurite: Azurite;
let service: BlobServiceClient;
/** Counts what reaches the storage service, for the tests of how many requests a checkpoint costs. */
let proxy: CountingProxy;
let proxied: BlobServiceClient;
before(async () => {
  azurite = await startAzurite();
  service = BlobServiceClient.fromConnectionString(azurite.connectionString);
  proxy = await startCountingProxy(azurite.port);
  proxied = BlobServiceClient.fromConnectionString(
    `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};` +
      `BlobEndpoint=http://127.0.0.1:${proxy.port}/${AZURITE_ACCOUNT};`,
  );
});
after(async () => {
  await proxy?.stop();
  await azurite?.stop();
});

/** The requests `run` makes, as the storage service sees them: `<method> <comp or lease action> <area>`. */
async function requestsOf(run: () => Promise<unknown>): Promise<string[]> {
  const from = proxy.requests.length;
  await run();
  const kind = (r: SeenRequest): string =>
    `${r.method} ${r.leaseAction || r.comp || '-'} ${r.path.includes('/ownership/') ? 'ownership' : 'checkpoint'}`;
  return proxy.requests.slice(from).map(kind);
}

/** A fence as the coordinator's claims give it: valid, with `left` ms of lease left, counting store renewals. */
function freshFence(leaseId: string, left: { ms: number }): OwnershipFence & { renewals: number } {
  const fence = {
    leaseId,
    renewals: 0,
    isValid: () => left.ms > 0,
    remainingMs: () => left.ms,
    renewed: () => void fence.renewals++,
  };
  return fence;
}

async function setup(): Promise<{ container: ContainerClient; scope: CheckpointScope; store: BlobCheckpointStore }> {
  const container = service.getContainerClient(randomName('c'));
  await container.create();
  // Mixed case on purpose: the layout lower-cases namespace, hub and consumer group.
  const scope = {
    fullyQualifiedNamespace: `${randomName('NS')}.servicebus.windows.net`,
    eventHubName: randomName('Hub'),
    consumerGroup: '$Default',
  };
  return { container, scope, store: new BlobCheckpointStore(container) };
}

/** Leases the partition's ownership blob the way the coordinator does and returns a fence on it. */
async function leaseOwnership(
  container: ContainerClient,
  scope: CheckpointScope,
  pid: string,
): Promise<{ fence: OwnershipFence; valid: { value: boolean }; leaseId: string }> {
  const blob = container.getBlockBlobClient(
    `${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/ownership/${pid}`.toLowerCase(),
  );
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
    assert.deepEqual(
      (await store.list(scope)).map((c) => [c.partitionId, c.sequenceNumber, c.offset]),
      [['3', 42, '4200']],
    );
  });

  test('interop: a checkpoint written by ours is listed by the Azure SDK store, in its exact layout', async () => {
    const { container, scope, store } = await setup();
    await store.write(scope, { partitionId: '0', sequenceNumber: 7, offset: '700' });
    await store.write(scope, { partitionId: '10', sequenceNumber: 9_007_199_254, offset: '123456789012' });
    const listed = await new SdkBlobCheckpointStore(container).listCheckpoints(
      scope.fullyQualifiedNamespace,
      scope.eventHubName,
      scope.consumerGroup,
    );
    assert.deepEqual(listed.map((c) => [c.partitionId, c.sequenceNumber, c.offset]).sort(), [
      ['0', 7, '700'],
      ['10', 9_007_199_254, '123456789012'],
    ]);
    const name =
      `${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/checkpoint/0`.toLowerCase();
    const props = await container.getBlobClient(name).getProperties();
    assert.equal(props.contentLength, 0, 'empty body, state in metadata');
    assert.deepEqual(props.metadata, { sequencenumber: '7', offset: '700' });
  });

  test(
    'namespace spelled with a port (the Python SDK, Endpoint naming a port): read when ours is missing, ours wins, ' +
      'ours written',
    async () => {
      const { container, scope: base } = await setup();
      const store = new BlobCheckpointStore(container);
      const portSpelling = `${base.fullyQualifiedNamespace}:5671`;
      const scope: CheckpointScope = { ...base, alternateNamespaces: [portSpelling] };
      // What azure-eventhub (Python) writes for Endpoint=sb://<host>:5671: the same layout under `<host>:5671/`.
      const sdk = new SdkBlobCheckpointStore(container);
      await sdk.updateCheckpoint({
        ...base,
        fullyQualifiedNamespace: portSpelling,
        partitionId: '0',
        sequenceNumber: 41,
        offset: '4100',
      });
      await sdk.updateCheckpoint({
        ...base,
        fullyQualifiedNamespace: portSpelling,
        partitionId: '1',
        sequenceNumber: 11,
        offset: '1100',
      });
      await sdk.updateCheckpoint({ ...base, partitionId: '1', sequenceNumber: 12, offset: '1200' });
      assert.equal((await store.read(scope, '0'))?.sequenceNumber, 41, 'only the port spelling exists: it is used');
      assert.equal((await store.read(scope, '1'))?.sequenceNumber, 12, 'both exist: ours first');
      assert.equal(
        await store.read(base, '0'),
        undefined,
        'without the alternate spelling in the scope: not looked at',
      );
      const triples = (cs: { partitionId: string; sequenceNumber: number; offset: string }[]) =>
        cs.map((c) => [c.partitionId, c.sequenceNumber, c.offset]);
      assert.deepEqual(triples(await store.readAll(scope)), [
        ['0', 41, '4100'],
        ['1', 12, '1200'],
      ]);
      assert.deepEqual(triples(await store.list(scope)), [
        ['0', 41, '4100'],
        ['1', 12, '1200'],
      ]);
      // The next write goes to our spelling (the JS and .NET SDKs'), never to the port spelling.
      await store.write(scope, { partitionId: '0', sequenceNumber: 42, offset: '4200' });
      const ours = await sdk.listCheckpoints(base.fullyQualifiedNamespace, base.eventHubName, base.consumerGroup);
      assert.deepEqual(ours.map((c) => [c.partitionId, c.sequenceNumber]).sort(), [
        ['0', 42],
        ['1', 12],
      ]);
      const theirs = await sdk.listCheckpoints(portSpelling, base.eventHubName, base.consumerGroup);
      assert.deepEqual(
        theirs.map((c) => [c.partitionId, c.sequenceNumber]).sort(),
        [
          ['0', 41],
          ['1', 11],
        ],
        'the port spelling is left as it was',
      );
      assert.equal((await store.read(scope, '0'))?.sequenceNumber, 42);
    },
  );

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
    const writers = Array.from(
      { length: 4 },
      () => new BlobCheckpointStore(service.getContainerClient(container.containerName), { maxConflictRetries: 20 }),
    );
    const seqs = [130, 101, 170, 120, 160, 105, 150, 140];
    const results = await Promise.allSettled(
      seqs.map((s, i) =>
        writers[i % writers.length]!.write(scope, { partitionId: '1', sequenceNumber: s, offset: String(s * 10) }),
      ),
    );
    assert.ok(
      results.every((r) => r.status === 'fulfilled'),
      JSON.stringify(results.filter((r) => r.status === 'rejected')),
    );
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
    assert.deepEqual(
      [final?.sequenceNumber, final?.offset],
      [90, '900'],
      'the stale writer re-read, saw 90 and wrote nothing',
    );
  });

  test('fenced: refused when the fence says the lease may have lapsed', async () => {
    const { container, scope, store } = await setup();
    const { fence, valid } = await leaseOwnership(container, scope, '0');
    await store.write(scope, { partitionId: '0', sequenceNumber: 1, offset: '10' }, fence);
    valid.value = false;
    await assert.rejects(
      store.write(scope, { partitionId: '0', sequenceNumber: 2, offset: '20' }, fence),
      CheckpointFencedError,
    );
    assert.equal((await store.read(scope, '0'))?.sequenceNumber, 1);
  });

  test(
    'fenced: refused when another instance holds the ownership lease, even if the local fence still says ' + 'valid',
    async () => {
      const { container, scope, store } = await setup();
      const { fence } = await leaseOwnership(container, scope, '0');
      const blob = container.getBlockBlobClient(
        `${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/ownership/0`.toLowerCase(),
      );
      await blob.getBlobLeaseClient(fence.leaseId).releaseLease();
      await blob.getBlobLeaseClient().acquireLease(15); // the new owner
      await assert.rejects(
        store.write(scope, { partitionId: '0', sequenceNumber: 5, offset: '50' }, fence),
        CheckpointFencedError,
      );
      assert.equal(await store.read(scope, '0'), undefined);
    },
  );

  test('a malformed checkpoint blob is an error, not a silent restart from the default position', async () => {
    const { container, scope, store } = await setup();
    await container
      .getBlockBlobClient(
        `${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/checkpoint/0`.toLowerCase(),
      )
      .upload('', 0, { metadata: { offset: '5' } });
    await assert.rejects(store.read(scope, '0'), /sequencenumber/);
  });

  test(
    'readAll: every checkpoint in one listing, as read() sees it, with its time; an unusable blob left ' + 'out',
    async () => {
      const { container, scope, store } = await setup();
      for (const [pid, seq] of [
        ['0', 10],
        ['2', -1],
        ['10', 7],
      ] as const) {
        await store.write(scope, { partitionId: pid, sequenceNumber: seq, offset: String(seq * 100) });
      }
      await container
        .getBlockBlobClient(
          `${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/checkpoint/5`.toLowerCase(),
        )
        .upload('', 0, { metadata: { offset: '5' } });
      // Another consumer group's checkpoint is not listed.
      await store.write({ ...scope, consumerGroup: 'other' }, { partitionId: '0', sequenceNumber: 99, offset: '9900' });
      const all = await store.readAll(scope);
      assert.deepEqual(
        all.map((c) => [c.partitionId, c.sequenceNumber, c.offset]),
        [
          ['0', 10, '1000'],
          ['2', -1, '-100'],
          ['10', 7, '700'],
        ],
      );
      for (const c of all) {
        const one = await store.read(scope, c.partitionId);
        assert.deepEqual(
          [one?.sequenceNumber, one?.offset, one?.updatedOn?.getTime()],
          [c.sequenceNumber, c.offset, c.updatedOn?.getTime()],
        );
      }
    },
  );

  test(
    'a steady checkpoint is one request: no read and no renewal while the lease is fresh and the ETag ' + 'ours',
    async () => {
      const { container, scope } = await setup();
      const store = new BlobCheckpointStore(proxied.getContainerClient(container.containerName));
      const { leaseId } = await leaseOwnership(container, scope, '0');
      // Less than the store's request timeout (10 s), and not whole milliseconds, as a real fence's time left.
      const left = { ms: 8_000.25 };
      const fence = freshFence(leaseId, left);
      // The first write does not know the blob: it reads it (absent) and, on a value it did not see before,
      // proves ownership with a renewal before it creates the blob.
      assert.deepEqual(
        await requestsOf(() => store.write(scope, { partitionId: '0', sequenceNumber: 1, offset: '10' }, fence)),
        ['HEAD - checkpoint', 'PUT renew ownership', 'PUT - checkpoint'],
      );
      assert.equal(fence.renewals, 1);
      assert.deepEqual(
        await requestsOf(() => store.write(scope, { partitionId: '0', sequenceNumber: 2, offset: '20' }, fence)),
        ['PUT metadata checkpoint'],
      );
      assert.equal(fence.renewals, 1);
      // Little lease left: the write renews first, and tells the fence.
      left.ms = 1_000;
      assert.deepEqual(
        await requestsOf(() => store.write(scope, { partitionId: '0', sequenceNumber: 3, offset: '30' }, fence)),
        ['PUT renew ownership', 'PUT metadata checkpoint'],
      );
      assert.equal(fence.renewals, 2);
      assert.equal((await store.read(scope, '0'))?.sequenceNumber, 3);
    },
  );

  test('a read at partition start is what the first write is conditional on', async () => {
    const { container, scope } = await setup();
    const store = new BlobCheckpointStore(proxied.getContainerClient(container.containerName));
    const { leaseId } = await leaseOwnership(container, scope, '0');
    const fence = freshFence(leaseId, { ms: 12_000 });
    assert.equal(await store.read(scope, '0'), undefined);
    assert.deepEqual(
      await requestsOf(() => store.write(scope, { partitionId: '0', sequenceNumber: -1, offset: '-1' }, fence)),
      ['PUT - checkpoint'],
    );
  });

  test(
    'another writer in between: the stale ETag fails the write, which reads again and never moves ' + 'backwards',
    async () => {
      const { container, scope, store } = await setup();
      const { leaseId } = await leaseOwnership(container, scope, '0');
      const fence = freshFence(leaseId, { ms: 12_000 });
      await store.write(scope, { partitionId: '0', sequenceNumber: 5, offset: '50' }, fence);
      const renewalsBefore = fence.renewals;
      const other = new BlobCheckpointStore(container);
      await other.write(scope, { partitionId: '0', sequenceNumber: 6, offset: '60' });
      await store.write(scope, { partitionId: '0', sequenceNumber: 7, offset: '70' }, fence);
      assert.equal((await store.read(scope, '0'))?.sequenceNumber, 7);
      assert.equal(fence.renewals, renewalsBefore + 1, 'the retry, on a value it had not seen, proved ownership again');
      await other.write(scope, { partitionId: '0', sequenceNumber: 9, offset: '90' });
      await store.write(scope, { partitionId: '0', sequenceNumber: 8, offset: '80' }, fence);
      assert.equal((await store.read(scope, '0'))?.sequenceNumber, 9, 'never backwards');
    },
  );

  test('fenced: the lease broken and the checkpoint reset while the fence still looks fresh: refused', async () => {
    const { container, scope, store } = await setup();
    const { leaseId } = await leaseOwnership(container, scope, '0');
    const fence = freshFence(leaseId, { ms: 12_000 });
    await store.write(scope, { partitionId: '0', sequenceNumber: 50, offset: '500' }, fence);
    // What `checkpoints reset --force` does: break the lease, write the checkpoint unconditionally.
    const ownership = container.getBlockBlobClient(
      `${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/ownership/0`.toLowerCase(),
    );
    await ownership.getBlobLeaseClient().breakLease(0);
    await container
      .getBlockBlobClient(
        `${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/checkpoint/0`.toLowerCase(),
      )
      .upload('', 0, { metadata: { sequencenumber: '0', offset: '0' } });
    await assert.rejects(
      store.write(scope, { partitionId: '0', sequenceNumber: 60, offset: '600' }, fence),
      CheckpointFencedError,
    );
    assert.equal((await store.read(scope, '0'))?.sequenceNumber, 0, 'the reset stands');
  });
});
