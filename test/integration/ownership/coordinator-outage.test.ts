import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { startFleet, TEST_LEASE_DURATION_MS, TEST_UPDATE_INTERVAL_MS } from './helpers/fleet.ts';
import { waitFor } from './helpers/fake-lifecycle.ts';
import { startTcpProxy } from './helpers/tcp-proxy.ts';
import { LeaseOwnershipCoordinator } from '../../../src/ownership/lease-ownership-coordinator.ts';
import type { PartitionClaim } from '../../../src/ownership/coordinator.ts';
import type { OwnershipEvent } from '../../../src/ownership/coordinator.ts';

test(
  'storage outage: every partition is stopped as lost before its lease could lapse, peers take over, claiming ' +
    'resumes after',
  async (t) => {
    const fleet = await startFleet(t, 4);
    const proxy = await startTcpProxy(fleet.azurite.port);
    t.after(() => proxy.close());
    // Coordinator "a" reaches storage only through the proxy; the test and coordinator "b" go direct.
    const viaProxy = BlobServiceClient.fromConnectionString(
      fleet.azurite.connectionString.replace(`:${fleet.azurite.port}/`, `:${proxy.port}/`),
    ).getContainerClient(fleet.container.containerName);
    const ownershipBlob = (pid: string) =>
      fleet.container.getBlobClient(
        (
          `${fleet.scope.fullyQualifiedNamespace}/${fleet.scope.eventHubName}/${fleet.scope.consumerGroup}/ownership/` +
          `${pid}`
        ).toLowerCase(),
      );

    const lostChecks: {
      pid: string;
      leaseState: string | undefined;
      ownerid: string | undefined;
      fenceValid: boolean;
    }[] = [];
    const claims = new Map<string, PartitionClaim>();
    const inner = fleet.timeline.lifecycle('a');
    const a = new LeaseOwnershipCoordinator({
      containerClient: viaProxy,
      scope: fleet.scope,
      ownerId: 'a',
      leaseDurationMs: TEST_LEASE_DURATION_MS,
      updateIntervalMs: TEST_UPDATE_INTERVAL_MS,
      startDelayMs: 0,
      getPartitionIds: async () => fleet.partitionIds,
    });
    fleet.coordinators.set('a', a);
    const events: OwnershipEvent[] = [];
    a.onEvent((e) => events.push(e));
    await a.start({
      startPartition: async (claim, signal) => {
        const pid = claim.partitionId;
        claims.set(pid, claim);
        const handle = await inner.startPartition(claim, signal);
        return {
          ended: handle.ended,
          stop: async (reason) => {
            if (reason === 'lost') {
              // Seen directly, not through the cut proxy: is the lease still on (so nobody else can read yet)?
              const props = await ownershipBlob(pid).getProperties();
              lostChecks.push({
                pid,
                leaseState: props.leaseState,
                ownerid: props.metadata?.ownerid,
                fenceValid: claim.fence!.isValid(),
              });
            }
            return handle.stop(reason);
          },
        };
      },
    });
    await fleet.add('b', { startDelayMs: 0 });
    await waitFor('2/2', () => fleet.timeline.count('a') === 2 && fleet.timeline.count('b') === 2, 10_000);
    const ownedByA = fleet.timeline.reading('a').sort();

    const cutAt = Date.now();
    proxy.cut();
    await waitFor('a stops its partitions as lost', () => lostChecks.length === 2, TEST_LEASE_DURATION_MS);
    t.diagnostic(`lost ${Date.now() - cutAt} ms after the outage began`);
    assert.deepEqual(lostChecks.map((c) => c.pid).sort(), ownedByA);
    for (const check of lostChecks) {
      assert.equal(
        check.leaseState,
        'leased',
        `${check.pid}: stopped while its lease was still held, before anyone else could claim it`,
      );
      assert.equal(check.ownerid, 'a');
      assert.equal(check.fenceValid, false, 'the fence refuses checkpoints from then on');
    }
    assert.deepEqual(a.owned(), []);
    assert.ok(events.some((e) => e.type === 'renewalFailed' || e.type === 'storageError'));

    await waitFor(
      'b takes over all 4',
      () => fleet.timeline.count('b') === 4,
      TEST_LEASE_DURATION_MS + TEST_UPDATE_INTERVAL_MS * 10,
    );
    t.diagnostic(`b owns all partitions ${Date.now() - cutAt} ms after the outage began`);

    proxy.restore();
    await waitFor(
      'a claims again after storage returns: 2/2',
      () => fleet.timeline.count('a') === 2 && fleet.timeline.count('b') === 2,
      10_000,
    );
    assert.deepEqual(fleet.timeline.violations, []);
  },
);
