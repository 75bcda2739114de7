import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobCheckpointStore } from '@azure/eventhubs-checkpointstore-blob';
import type { PartitionOwnership } from '@azure/event-hubs';
import type { OwnershipEvent } from '../../../src/ownership/coordinator.ts';
import { PartitionLease, type ForeignClaimGuard } from '../../../src/ownership/internal/partition-lease.ts';
import { readOwnershipSnapshot } from '../../../src/ownership/internal/ownership-snapshot.ts';
import { ownershipBlobName } from '../../../src/ownership/internal/blob-names.ts';
import { startFleet, TEST_LEASE_DURATION_MS, type Fleet } from './helpers/fleet.ts';
import { waitFor } from './helpers/fake-lifecycle.ts';

const EXPIRY_MS = 3_000;

/** What an Azure SDK processor does to the store: the real `@azure/eventhubs-checkpointstore-blob` calls. */
function sdkProcessor(fleet: Fleet, ownerId: string) {
  const store = new BlobCheckpointStore(fleet.container);
  const { fullyQualifiedNamespace, eventHubName, consumerGroup } = fleet.scope;
  const list = () => store.listOwnership(fullyQualifiedNamespace, eventHubName, consumerGroup);
  /**
   * A claim or renewal, with the ETag of the last listing (as the SDK's load balancer does); resolves to the claimed.
   */
  const claim = async (partitionIds: string[], as = ownerId): Promise<string[]> => {
    const current = await list().catch(() => [] as PartitionOwnership[]);
    const requests = partitionIds.map((partitionId) => ({
      fullyQualifiedNamespace,
      eventHubName,
      consumerGroup,
      partitionId,
      ownerId: as,
      etag: current.find((o) => o.partitionId === partitionId)?.etag,
    }));
    return (await store.claimOwnership(requests)).map((o) => o.partitionId);
  };
  return { claim, list };
}

describe('LeaseOwnershipCoordinator beside SDK processors (ETag claims) on Azurite', () => {
  const NEVER =
    'never claims a partition an SDK processor holds; ' +
    'takes it once the SDK stops renewing (expiry) or relinquishes';
  test(NEVER, async (t) => {
    const fleet = await startFleet(t, 4);
    const sdk = sdkProcessor(fleet, 'sdk-processor-1');
    assert.deepEqual(await sdk.claim(['0', '1']), ['0', '1']);
    // A live SDK processor rewrites its claims at every balancing round.
    let renewing = ['0', '1'];
    let renewal: Promise<unknown> = Promise.resolve();
    const renewer = setInterval(() => {
      renewal = sdk.claim(renewing).catch(() => undefined);
    }, 500);
    t.after(() => clearInterval(renewer));

    const events: OwnershipEvent[] = [];
    const a = await fleet.add('a', { strategy: 'greedy', startDelayMs: 0, foreignOwnershipExpiryMs: EXPIRY_MS });
    a.onEvent((e) => events.push(e));
    const rounds = () => events.filter((e) => e.type === 'balanced').length;
    const settled = () => rounds() >= 3 && fleet.timeline.count('a') === 2;
    await waitFor('three rounds owning the two free partitions', settled, 10_000);
    assert.deepEqual(fleet.timeline.reading('a').sort(), ['2', '3'], 'only the partitions the SDK does not hold');
    const shares = events.flatMap((e) => (e.type === 'balanced' ? [e.fairShare] : []));
    assert.equal(shares.at(-1), 2, 'the fair share counts only the partitions that are not foreign-owned');
    const foreign = () => events.flatMap((e) => (e.type === 'foreignOwners' ? [Object.fromEntries(e.partitions)] : []));
    assert.deepEqual(foreign(), [{ 0: 'sdk-processor-1', 1: 'sdk-processor-1' }], 'told once, not every round');

    // The SDK processor stops renewing partition 1 (a crash: no relinquish). It waits out the expiry.
    renewing = ['0'];
    const lastWrite = (await sdk.list()).find((o) => o.partitionId === '1')!.lastModifiedTimeInMs!;
    await waitFor(
      'a claims the abandoned partition',
      () => fleet.timeline.reading('a').includes('1'),
      EXPIRY_MS + 10_000,
    );
    const ownership1 = await fleet.container.getBlobClient(ownershipBlobName(fleet.scope, '1')).getProperties();
    const claimedAt = ownership1.lastModified!.getTime();
    // Both times are the storage service's Last-Modified, in whole seconds on Azurite.
    const waitedMs = claimedAt - lastWrite;
    assert.ok(waitedMs >= EXPIRY_MS - 1_000, `claimed ${waitedMs} ms after the SDK's last write`);
    t.diagnostic(
      `abandoned SDK claim taken ${waitedMs} ms after its last write (expiry ${EXPIRY_MS} ms, clock in seconds)`,
    );
    assert.ok(!fleet.timeline.reading('a').includes('0'), 'the renewed SDK claim is still left alone');

    // The SDK processor closes: it relinquishes partition 0 (ownerid ""), and we take it at the next round.
    // (After the renewal in flight, if any: it would change the ETag between the release's listing and write.)
    clearInterval(renewer);
    await renewal;
    assert.deepEqual(await sdk.claim(['0'], ''), ['0']);
    await waitFor('a claims the relinquished partition', () => fleet.timeline.count('a') === 4, 5_000);
    assert.deepEqual(foreign().at(-1), {}, 'told when no foreign owner is left');
    assert.deepEqual(fleet.timeline.violations, []);
  });

  test(
    'an SDK processor cannot claim a partition we lease: its ETag claim gets 412, it reports no ' + 'claim',
    async (t) => {
      const fleet = await startFleet(t, 1);
      await fleet.add('a', { startDelayMs: 0, foreignOwnershipExpiryMs: EXPIRY_MS });
      await waitFor('a owns the partition', () => fleet.timeline.count('a') === 1, 5_000);
      const sdk = sdkProcessor(fleet, 'sdk-processor-1');
      const seen = (await sdk.list())[0]!;
      assert.equal(seen.ownerId, 'a', 'the SDK sees our owner id');
      // With the listed ETag (a steal or a claim of an "expired" ownership) and without one (a new blob).
      assert.deepEqual(await sdk.claim(['0']), []);
      const store = new BlobCheckpointStore(fleet.container);
      assert.deepEqual(await store.claimOwnership([{ ...seen, ownerId: 'sdk-processor-1', etag: undefined }]), []);
      const props = await fleet.container.getBlobClient(ownershipBlobName(fleet.scope, '0')).getProperties();
      assert.equal(props.metadata?.ownerid, 'a');
      assert.equal(props.leaseState, 'leased');
      assert.deepEqual(fleet.timeline.reading('a'), ['0']);
    },
  );

  test('a foreign claim written between our listing and our acquire wins, and leaves its blob as it was', async (t) => {
    const fleet = await startFleet(t, 1);
    const sdk = sdkProcessor(fleet, 'sdk-processor-1');
    assert.deepEqual(await sdk.claim(['0'], ''), ['0']); // an ownership blob, relinquished: free for anyone
    const listed = await readOwnershipSnapshot(fleet.container, fleet.scope, AbortSignal.timeout(5_000), EXPIRY_MS);
    assert.equal(listed.foreign.size, 0);
    assert.deepEqual(await sdk.claim(['0']), ['0']); // the SDK processor gets there first
    const timings = { leaseDurationMs: TEST_LEASE_DURATION_MS, safetyMarginMs: 2_000, requestTimeoutMs: 5_000 };
    const guard = { etag: listed.etags.get('0'), foreignOwner: () => undefined };
    const acquire = (g: ForeignClaimGuard) =>
      PartitionLease.acquire(fleet.container, fleet.scope, '0', 'a', undefined, timings, () => undefined, g);
    const lease = await acquire(guard);
    assert.equal(lease, undefined, 'the acquire is conditional on the listed ETag');

    // Without the ETag (a blob created since the listing), the check under the lease lets go, writing nothing.
    const before = await fleet.container.getBlobClient(ownershipBlobName(fleet.scope, '0')).getProperties();
    const recheck = { foreignOwner: (p: { metadata?: Record<string, string> }) => p.metadata?.ownerid || undefined };
    const again = await acquire(recheck);
    assert.equal(again, undefined);
    const after = await fleet.container.getBlobClient(ownershipBlobName(fleet.scope, '0')).getProperties();
    assert.equal(after.etag, before.etag, 'the blob is unchanged, so the SDK processor renews with its ETag');
    assert.equal(after.leaseState, 'available');
    assert.deepEqual(await sdk.claim(['0']), ['0'], 'the SDK processor keeps its claim');
  });
});
