/**
 * Hand-offs that do not wait for the peers' next regular round: a leaving instance marks its membership
 * first and releases after the peers' next listing, and a member waiting for a yield watches right after
 * each tick of the round grid. Update intervals here are long (6–8 s), so a claim that came only at the
 * next regular round would miss the bounds below.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet } from './helpers/fleet.ts';
import { waitFor } from './helpers/fake-lifecycle.ts';
import { memberBlobName } from '../../../src/ownership/internal/blob-names.ts';
import type { OwnershipEvent } from '../../../src/ownership/coordinator.ts';

describe('LeaseOwnershipCoordinator on Azurite: hand-off without waiting for a round', () => {
  test(
    'graceful shutdown: marked leaving while still reading, then the peer claims right after the ' + 'releases',
    async (t) => {
      const updateIntervalMs = 8_000;
      const fleet = await startFleet(t, 4);
      const options = { updateIntervalMs, startDelayMs: 0, leaveNoticeMaxMs: updateIntervalMs + 1_000 };
      const a = await fleet.add('a', options);
      await fleet.add('b', options);
      await waitFor('2/2', () => fleet.timeline.count('a') === 2 && fleet.timeline.count('b') === 2, 20_000);
      const ofA = fleet.timeline.reading('a');

      // Shut down early in a round interval: a keeps reading until the peers' next tick (rounds fall on a
      // wall-clock grid), so the mark is seen well before it stops. Late in an interval the wait can be as
      // short as 100 ms, shorter than this test's polling of the blob.
      await waitFor(
        'early in a round interval',
        () => Date.now() % updateIntervalMs < 1_000,
        updateIntervalMs + 1_000,
        10,
      );
      const shutdown = a.shutdown();
      const member = fleet.container.getBlobClient(memberBlobName(fleet.scope, 'a'));
      await waitFor(
        'a marked leaving',
        async () => (await member.getProperties()).metadata?.leaving === 'true',
        updateIntervalMs,
      );
      assert.deepEqual(fleet.timeline.reading('a'), ofA, 'a still reads its partitions after it announced leaving');
      await shutdown;
      // b's next regular round is almost a whole interval after the releases (they follow a tick): only the
      // watch that the mark started lets it claim within half an interval.
      const tookMs = await waitFor('b owns all 4', () => fleet.timeline.count('b') === 4, updateIntervalMs / 2);
      t.diagnostic(
        `b owned a's partitions ${tookMs} ms after a's shutdown resolved (update interval ${updateIntervalMs} ms)`,
      );
      for (const pid of ofA) {
        const stop = fleet.timeline.events.find((e) => e.who === 'a' && e.partitionId === pid && e.kind === 'stop')!;
        const start = fleet.timeline.events.find((e) => e.who === 'b' && e.partitionId === pid && e.kind === 'start')!;
        assert.equal(stop.reason, 'shutdown');
        assert.ok(start.at >= stop.at, `${pid}: b started it only after a stopped it`);
      }
      assert.deepEqual(fleet.timeline.violations, []);
    },
  );

  test('a lone instance shuts down at once: nobody to announce its leaving to', async (t) => {
    const fleet = await startFleet(t, 2);
    const a = await fleet.add('a', { updateIntervalMs: 60_000, startDelayMs: 0, leaveNoticeMaxMs: 61_000 });
    await waitFor('a owns both', () => fleet.timeline.count('a') === 2, 10_000);
    const events: OwnershipEvent[] = [];
    a.onEvent((e) => events.push(e));
    // Announcing would leave `leaving` on the blob (and wait for the next tick of a 60 s grid).
    await a.shutdown();
    assert.deepEqual(events.filter((e) => e.type === 'released').length, 2);
    const member = await fleet.container.getBlobClient(memberBlobName(fleet.scope, 'a')).getProperties();
    assert.equal(member.metadata?.leaving, undefined, 'no leaving mark without peers');
  });

  test('yield: the member waiting for it claims before the yielder’s next round', async (t) => {
    const updateIntervalMs = 6_000;
    const fleet = await startFleet(t, 4);
    const a = await fleet.add('a', { updateIntervalMs, startDelayMs: 0 });
    await waitFor('a owns all 4', () => fleet.timeline.count('a') === 4, 20_000);
    const roundsOfA: number[] = [];
    a.onEvent((e) => e.type === 'balanced' && roundsOfA.push(Date.now()));
    const joinedAt = Date.now();
    await fleet.add('b', { updateIntervalMs, startDelayMs: 0 });
    await waitFor(
      '2/2',
      () => fleet.timeline.count('a') === 2 && fleet.timeline.count('b') === 2,
      updateIntervalMs * 4,
    );
    const yields = fleet.timeline.events.filter((e) => e.at >= joinedAt && e.who === 'a' && e.kind === 'stop');
    assert.deepEqual(
      yields.map((e) => e.reason),
      ['yield', 'yield'],
    );
    for (const stop of yields) {
      const start = fleet.timeline.events.find(
        (e) => e.who === 'b' && e.kind === 'start' && e.partitionId === stop.partitionId,
      )!;
      const nextRoundOfA = roundsOfA.find((at) => at > stop.at);
      assert.ok(start.at >= stop.at, `${stop.partitionId}: b started it after a stopped it`);
      // a yields one partition per round; b took each one before a even ran its next round.
      assert.ok(
        nextRoundOfA === undefined || start.at < nextRoundOfA,
        `${stop.partitionId}: b claimed it before a's next round`,
      );
    }
    assert.deepEqual(fleet.timeline.violations, []);
  });
});
