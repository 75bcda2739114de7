import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet } from './helpers/fleet.ts';
import { waitFor } from './helpers/fake-lifecycle.ts';
import type { OwnershipEvent, PartitionEndReason } from '../../../src/ownership/coordinator.ts';

/** Lease state of a partition's ownership blob, as the storage service sees it. */
async function leaseState(
  fleet: Awaited<ReturnType<typeof startFleet>>,
  pid: string,
): Promise<{ state?: string; owner?: string }> {
  const { fullyQualifiedNamespace: ns, eventHubName: hub, consumerGroup: cg } = fleet.scope;
  const props = await fleet.container
    .getBlobClient(`${ns}/${hub}/${cg}/ownership/${pid}`.toLowerCase())
    .getProperties();
  return { state: props.leaseState, owner: props.metadata?.ownerid };
}

for (const reason of ['ownershipLost', 'error'] as const satisfies readonly PartitionEndReason[]) {
  test(`a partition whose reading ends by itself (${reason}) is never left leased and unread: handed back, then ` +
    `read again`, {
    timeout: 60_000,
  }, async (t) => {
    const fleet = await startFleet(t, 4);
    const events: OwnershipEvent[] = [];
    const a = await fleet.add('a', { startDelayMs: 0, restartInitialMs: 200, restartMaxMs: 1_000 });
    a.onEvent((e) => events.push(e));
    await waitFor('a reads all 4', () => fleet.timeline.count('a') === 4, 10_000);

    assert.ok(fleet.timeline.end('a', '2', { reason, error: new Error(`injected ${reason}`) }));
    // The invariant, checked against storage: from the moment reading ended, partition 2 is either
    // released (its lease available to any instance) or being read again; never leased and idle.
    await waitFor(
      'partition 2 released or read again',
      async () => {
        if (fleet.timeline.reading('a').includes('2')) return true;
        return (await leaseState(fleet, '2')).state !== 'leased';
      },
      5_000,
    );
    await waitFor('partition 2 read again', () => fleet.timeline.reading('a').includes('2'), 10_000);
    const ended = events.find((e) => e.type === 'ended');
    assert.ok(
      ended && ended.type === 'ended' && ended.partitionId === '2' && ended.end.reason === reason,
      'the owner heard the end with its reason',
    );
    assert.ok(events.some((e) => e.type === 'released' && e.partitionId === '2' && e.reason === reason));
    const starts = fleet.timeline.events.filter((e) => e.kind === 'start' && e.partitionId === '2');
    assert.equal(starts.length, 2);
    assert.ok(starts[1]!.ownerLevel! > starts[0]!.ownerLevel!, 'the new claim raised the owner level');
    assert.deepEqual(fleet.timeline.violations, []);
  });
}

test('a partition that keeps failing to start backs off (no hot loop) and is handed to a peer meanwhile', {
  timeout: 60_000,
}, async (t) => {
  const fleet = await startFleet(t, 2);
  const inner = fleet.timeline.lifecycle('a');
  let attempts = 0;
  const events: OwnershipEvent[] = [];
  const { LeaseOwnershipCoordinator } = await import('../../../src/ownership/lease-ownership-coordinator.ts');
  const a = new LeaseOwnershipCoordinator({
    containerClient: fleet.container,
    scope: fleet.scope,
    ownerId: 'a',
    leaseDurationMs: 15_000,
    updateIntervalMs: 100,
    startDelayMs: 0,
    restartInitialMs: 400,
    restartMaxMs: 3_200,
    getPartitionIds: async () => fleet.partitionIds,
  });
  fleet.coordinators.set('a', a);
  a.onEvent((e) => events.push(e));
  await a.start({
    startPartition: async (claim, signal) => {
      if (claim.partitionId === '1') {
        attempts++;
        throw new Error('start position refused');
      }
      return inner.startPartition(claim, signal);
    },
  });
  const started = Date.now();
  await waitFor('four failed starts', () => attempts >= 4, 20_000);
  const elapsed = Date.now() - started;
  const delays = events.flatMap((e) => (e.type === 'startFailed' ? [e.retryInMs] : []));
  t.diagnostic(`4 attempts in ${elapsed} ms; backoff ${delays.map((d) => Math.round(d)).join(', ')} ms`);
  // With a 100 ms round, a hot loop would make ~40 attempts in that time; the backoff doubles instead.
  assert.ok(delays.length >= 3 && delays[2]! > delays[0]!, 'the wait grows');
  // A healthy peer takes the partition while a waits.
  await fleet.add('b', { startDelayMs: 0 });
  await waitFor('b reads partition 1', () => fleet.timeline.reading('b').includes('1'), 15_000);
  assert.deepEqual(fleet.timeline.violations, []);
});
