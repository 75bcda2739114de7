/**
 * How the lease coordinator behaves when storage answers slower than its renewal rate (issue 14: at 1024
 * partitions, renewals queued at the storage service, leases were lost and claimed again). Against an
 * in-memory container whose requests of one kind can be held or delayed; every wait is on state.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import {
  LeaseOwnershipCoordinator,
  type LeaseOwnershipCoordinatorOptions,
} from '../../../src/ownership/lease-ownership-coordinator.ts';
import type { OwnershipEvent } from '../../../src/ownership/coordinator.ts';
import { PartitionLease } from '../../../src/ownership/internal/partition-lease.ts';
import { Timeline, waitFor } from '../../integration/ownership/helpers/fake-lifecycle.ts';
import { FakeContainer } from './helpers/fake-container.ts';

const scope = { fullyQualifiedNamespace: 'ns.servicebus.windows.net', eventHubName: 'hub', consumerGroup: '$default' };

function start(
  t: TestContext,
  fake: FakeContainer,
  partitionIds: () => string[],
  options: Partial<LeaseOwnershipCoordinatorOptions> = {},
): { coordinator: LeaseOwnershipCoordinator; timeline: Timeline; events: OwnershipEvent[] } {
  const timeline = new Timeline();
  const events: OwnershipEvent[] = [];
  const coordinator = new LeaseOwnershipCoordinator({
    containerClient: fake.client(),
    scope,
    ownerId: 'a',
    leaseDurationMs: 15_000,
    renewIntervalMs: 300,
    requestTimeoutMs: 100,
    updateIntervalMs: 100,
    startDelayMs: 0,
    strategy: 'greedy',
    getPartitionIds: async () => partitionIds(),
    ...options,
  });
  coordinator.onEvent((e) => events.push(e));
  t.after(() => coordinator.abandon());
  void coordinator.start(timeline.lifecycle('a'));
  return { coordinator, timeline, events };
}

test(
  'slow storage: a renewal answered after the request timeout, while the lease has time left, keeps the ' + 'claim',
  async (t) => {
    const fake = new FakeContainer();
    const { coordinator, timeline, events } = start(t, fake, () => ['0', '1']);
    await waitFor('both partitions claimed', () => timeline.count('a') === 2, 5_000);
    // Every renewal now takes three times the request timeout (100 ms).
    fake.delay('renew', 300);
    const before = fake.count('renew', '/ownership/');
    await waitFor('six slow renewals answered', () => fake.count('renew', '/ownership/') >= before + 6, 10_000);
    assert.deepEqual([...coordinator.owned()], ['0', '1']);
    assert.deepEqual(
      events.filter((e) => e.type === 'renewalFailed' || (e.type === 'released' && e.reason === 'lost')),
      [],
    );
  },
);

test('slow storage: no new claim starts while a renewal is late; claiming resumes once it is answered', async (t) => {
  const fake = new FakeContainer();
  let ids = ['0'];
  const { coordinator, timeline, events } = start(t, fake, () => ids, { renewalLatencyLimitMs: 200 });
  await waitFor('partition 0 claimed', () => timeline.count('a') === 1, 5_000);
  const release = fake.hold('renew');
  const heldLate = (): boolean =>
    fake.waiting.some((r) => r.op === 'renew' && r.name.includes('/ownership/0') && Date.now() - r.at > 300);
  await waitFor('a renewal of partition 0 held at storage past the 200 ms limit', heldLate, 5_000);
  ids = ['0', '1', '2', '3'];
  await waitFor('claims paused', () => events.some((e) => e.type === 'claimsPaused'), 5_000);
  // Rounds go on (listings at every tick) while the renewal waits, but no lease is acquired.
  const listings = fake.count('list');
  await waitFor('three more rounds', () => fake.count('list') >= listings + 6, 5_000);
  for (const pid of ['1', '2', '3'])
    assert.equal(fake.count('acquire', `/ownership/${pid}`), 0, `partition ${pid} not claimed`);
  assert.deepEqual([...coordinator.owned()], ['0']);
  release();
  await waitFor('all four claimed once renewals are answered', () => timeline.count('a') === 4, 5_000);
  assert.ok(events.some((e) => e.type === 'claimsResumed'));
  assert.deepEqual(
    events.filter((e) => e.type === 'released'),
    [],
    'nothing was lost or released meanwhile',
  );
  assert.deepEqual(timeline.violations, []);
});

test(
  'slow storage: after a renewal fails without an answer, the next is due within a second, not a renew ' + 'interval',
  async (t) => {
    const fake = new FakeContainer();
    const timings = { leaseDurationMs: 15_000, safetyMarginMs: 2_000, requestTimeoutMs: 50 };
    const lease = await PartitionLease.acquire(fake.client(), scope, '0', 'a', undefined, timings, () => undefined, {
      foreignOwner: () => undefined,
    });
    assert.ok(lease);
    t.after(() => lease.dispose());
    const intervalMs = 5_000;
    assert.equal((await lease.renew()).ok, true);
    assert.equal(
      lease.renewalDue(intervalMs, performance.now() + 1_500),
      false,
      'after a renewal: due a whole interval later',
    );
    fake.failNext('renew', 503);
    const failed = await lease.renew();
    assert.deepEqual([failed.ok, !failed.ok && failed.gone], [false, false], 'a 503 says nothing about the lease');
    assert.equal(lease.renewalDue(intervalMs, performance.now() + 1_500), true, 'retried within a second');
    assert.equal(lease.isValid(), true, 'the lease still has time left: not lost');
    assert.equal((await lease.renew()).ok, true);
    assert.equal(
      lease.renewalDue(intervalMs, performance.now() + 1_500),
      false,
      'answered again: back to the interval',
    );
  },
);

test('slow storage: a claim whose renewal hangs is still given up at its deadline', async (t) => {
  const fake = new FakeContainer();
  // A lease this short is refused by the coordinator's option checks; PartitionLease takes it as given. The
  // request timeout outlasts the deadline, so the renewal is still in flight when the deadline passes.
  const timings = { leaseDurationMs: 400, safetyMarginMs: 100, requestTimeoutMs: 2_000 };
  let expired = 0;
  const lease = await PartitionLease.acquire(fake.client(), scope, '0', 'a', undefined, timings, () => void expired++, {
    foreignOwner: () => undefined,
  });
  assert.ok(lease);
  t.after(() => lease.dispose());
  const release = fake.hold('renew');
  t.after(release);
  const renewal = lease.renew();
  await waitFor('the deadline passed with the renewal still held', () => expired === 1, 5_000);
  assert.equal(fake.waiting.filter((r) => r.op === 'renew').length, 1, 'the renewal was still in flight');
  release();
  assert.equal((await renewal).ok, true, 'answered late: too late for the claim, which was given up');
  assert.equal(expired, 1);
});

test('slow storage: a shutdown does not wait for renewals that storage holds unanswered', async (t) => {
  const fake = new FakeContainer();
  const { coordinator, timeline, events } = start(t, fake, () => ['0']);
  await waitFor('partition 0 claimed', () => timeline.count('a') === 1, 5_000);
  const release = fake.hold('renew');
  t.after(release);
  const held = (name: string) => () => fake.waiting.some((r) => r.op === 'renew' && r.name.includes(name));
  await waitFor(
    'renewals of the membership and of partition 0 held at storage',
    () => held('/members/a')() && held('/ownership/0')(),
    5_000,
  );
  // Each held renewal would wait up to the lease's remaining time (15 s): the shutdown must not.
  let done = false;
  void coordinator.shutdown().then(() => {
    done = true;
  });
  await waitFor('shutdown finished while storage still holds every renewal', () => done, 5_000);
  assert.deepEqual([...coordinator.owned()], []);
  assert.deepEqual(
    events.filter((e) => e.type === 'storageError' || e.type === 'renewalFailed'),
    [],
    'no failure reported for an aborted renewal',
  );
});
