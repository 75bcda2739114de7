/**
 * Quiet rounds (issue 14): a settled fleet lists `members/` at every round and `ownership/` only when something
 * may have changed, or every FULL_LISTING_EVERY_ROUNDS rounds. Coordinators share an in-memory container; each
 * gets a client of its own that logs its listings with what they showed, so that "the first round that saw the
 * change listed ownership" is checked on the listings' content, not on timing.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import type { ContainerClient } from '@azure/storage-blob';
import {
  LeaseOwnershipCoordinator,
  type LeaseOwnershipCoordinatorOptions,
} from '../../../src/ownership/lease-ownership-coordinator.ts';
import type { BalanceDecision } from '../../../src/ownership/balance.ts';
import type { OwnershipEvent } from '../../../src/ownership/coordinator.ts';
import { memberBlobName, ownershipBlobName } from '../../../src/ownership/internal/blob-names.ts';
import type { PartitionLease } from '../../../src/ownership/internal/partition-lease.ts';
import {
  FULL_LISTING_EVERY_ROUNDS,
  settledShare,
  type FullRound,
} from '../../../src/ownership/internal/quiet-rounds.ts';
import { Timeline, waitFor } from '../../integration/ownership/helpers/fake-lifecycle.ts';
import { FakeContainer } from './helpers/fake-container.ts';

const scope = { fullyQualifiedNamespace: 'ns.servicebus.windows.net', eventHubName: 'hub', consumerGroup: '$default' };
const N = FULL_LISTING_EVERY_ROUNDS;

/** One round as its listings show it: the leased members it listed, and whether it listed ownership too. */
interface Round {
  readonly members: readonly string[];
  full: boolean;
  /** When its membership listing was answered (Date.now()). */
  readonly at: number;
}

/** A coordinator's client on the shared fake, which logs each listing page as a round. */
function loggedClient(fake: FakeContainer, rounds: Round[]): ContainerClient {
  const client = fake.client();
  const listBlobsFlat = client.listBlobsFlat.bind(client);
  const logged = (options: Parameters<ContainerClient['listBlobsFlat']>[0]) => ({
    byPage: async function* () {
      for await (const page of listBlobsFlat(options).byPage()) {
        if (options?.prefix?.endsWith('/members/')) {
          const leased = page.segment.blobItems.filter((b) => b.properties.leaseState === 'leased');
          const members = leased.map((b) => decodeURIComponent(b.name.split('/').pop()!)).sort();
          rounds.push({ members, full: false, at: Date.now() });
        } else if (rounds.length > 0) rounds[rounds.length - 1]!.full = true;
        yield page;
      }
    },
  });
  return { ...client, listBlobsFlat: logged } as unknown as ContainerClient;
}

/** An event, with how many rounds had listed members when it came. */
type LoggedEvent = OwnershipEvent & { readonly round: number };

interface Member {
  readonly coordinator: LeaseOwnershipCoordinator;
  readonly rounds: Round[];
  readonly events: LoggedEvent[];
}

function startMember(
  t: TestContext,
  fake: FakeContainer,
  timeline: Timeline,
  ownerId: string,
  partitionIds: readonly string[],
  options: Partial<LeaseOwnershipCoordinatorOptions> = {},
): Member {
  const rounds: Round[] = [];
  const events: LoggedEvent[] = [];
  const coordinator = new LeaseOwnershipCoordinator({
    containerClient: loggedClient(fake, rounds),
    scope,
    ownerId,
    leaseDurationMs: 15_000,
    renewIntervalMs: 300,
    updateIntervalMs: 100,
    startDelayMs: 0,
    strategy: 'greedy',
    getPartitionIds: async () => [...partitionIds],
    ...options,
  });
  coordinator.onEvent((e) => events.push({ ...e, round: rounds.length }));
  t.after(() => coordinator.abandon());
  void coordinator.start(timeline.lifecycle(ownerId));
  return { coordinator, rounds, events };
}

const ids = (n: number): string[] => Array.from({ length: n }, (_, i) => String(i));

/** Waits until every member has run `count` more rounds than now. */
async function moreRounds(members: readonly Member[], count: number): Promise<void> {
  const from = members.map((m) => m.rounds.length);
  await waitFor(`${count} more rounds`, () => members.every((m, i) => m.rounds.length >= from[i]! + count), 20_000);
}

/** Lease state changes made behind the coordinators' backs, as the storage service or another tool would. */
function dropLease(fake: FakeContainer, blobName: string, inMs = 0): void {
  const blob = fake.blobs.get(blobName);
  assert.ok(blob?.lease, `${blobName} is leased`);
  blob.lease.expiresAt = Date.now() + inMs;
}

test('quiet rounds: a settled fleet lists members every round and ownership at least every N rounds', async (t) => {
  const fake = new FakeContainer();
  const timeline = new Timeline();
  const fleet = ['a', 'b', 'c'].map((id) => startMember(t, fake, timeline, id, ids(6)));
  await waitFor('two partitions each', () => ['a', 'b', 'c'].every((id) => timeline.count(id) === 2), 10_000);
  const from = fleet.map((m) => m.rounds.length);
  const balancedFrom = fleet.map((m) => m.events.filter((e) => e.type === 'balanced').length);
  await moreRounds(fleet, 4 * N);
  for (const [i, member] of fleet.entries()) {
    const rounds = member.rounds.slice(from[i]! + 1);
    const full = rounds.filter((r) => r.full).length;
    const who = member.coordinator.ownerId;
    assert.ok(full < rounds.length / 2, `${who}: ${full} of ${rounds.length} rounds listed ownership`);
    let sinceFull = 0;
    for (const round of rounds) {
      sinceFull = round.full ? 0 : sinceFull + 1;
      assert.ok(sinceFull < N, `${who}: ${sinceFull} rounds in a row without the ownership listing`);
    }
    // Every round, quiet or not, tells its balance (receiver status and health read it).
    const balanced = member.events.filter((e) => e.type === 'balanced').slice(balancedFrom[i]!);
    assert.ok(balanced.length >= rounds.length, `${balanced.length} balanced events for ${rounds.length} rounds`);
    const told = balanced.map((e) => e.type === 'balanced' && `${e.owned.length}/${e.fairShare}/${e.members}`);
    assert.deepEqual(new Set(told), new Set(['2/2/3']), 'owned / share / members');
  }
  assert.deepEqual(timeline.violations, []);
});

test(
  'quiet rounds: after a crash, survivors list ownership in the first round without the member, and take ' + 'over',
  async (t) => {
    const fake = new FakeContainer();
    const timeline = new Timeline();
    const [a, b, c] = ['a', 'b', 'c'].map((id) => startMember(t, fake, timeline, id, ids(6))) as [
      Member,
      Member,
      Member,
    ];
    await waitFor('two partitions each', () => ['a', 'b', 'c'].every((id) => timeline.count(id) === 2), 10_000);
    const quiet = (m: Member): boolean => m.rounds.slice(-2).some((r) => !r.full);
    await waitFor('a quiet round at each survivor', () => quiet(a) && quiet(b), 10_000);
    // c crashes: nothing released. Its membership lease lapses now, its partition leases a moment later.
    const victims = timeline.reading('c');
    const crashedAt = [a, b].map((m) => m.rounds.length);
    c.coordinator.abandon();
    timeline.crash('c');
    dropLease(fake, memberBlobName(scope, 'c'));
    for (const pid of victims) dropLease(fake, ownershipBlobName(scope, pid), 300);
    await waitFor('survivors read all six', () => timeline.count('a') === 3 && timeline.count('b') === 3, 10_000);
    for (const [i, member] of [a, b].entries()) {
      const first = member.rounds.slice(crashedAt[i]).find((r) => !r.members.includes('c'));
      assert.ok(first, 'a round listed the members without c');
      assert.equal(first.full, true, `${member.coordinator.ownerId}: the first round without c listed ownership`);
    }
    assert.deepEqual(timeline.violations, []);
  },
);

test('quiet rounds: a member joining brings full rounds, and the fleet rebalances', async (t) => {
  const fake = new FakeContainer();
  const timeline = new Timeline();
  const pids = ids(6);
  const [a, b] = ['a', 'b'].map((id) => startMember(t, fake, timeline, id, pids)) as [Member, Member];
  await waitFor('three partitions each', () => timeline.count('a') === 3 && timeline.count('b') === 3, 10_000);
  await waitFor('a quiet round at each', () => [a, b].every((m) => m.rounds.slice(-2).some((r) => !r.full)), 10_000);
  const joinedAt = [a, b].map((m) => m.rounds.length);
  startMember(t, fake, timeline, 'c', pids);
  await waitFor('two each', () => ['a', 'b', 'c'].every((id) => timeline.count(id) === 2), 10_000);
  for (const [i, member] of [a, b].entries()) {
    const first = member.rounds.slice(joinedAt[i]).find((r) => r.members.includes('c'));
    assert.ok(first, 'a round listed c');
    assert.equal(first.full, true, `${member.coordinator.ownerId}: the first round that saw c listed ownership`);
  }
  assert.deepEqual(timeline.violations, []);
});

test('quiet rounds: a claim lost to a broken lease brings a full round, which claims it again', async (t) => {
  const fake = new FakeContainer();
  const timeline = new Timeline();
  const a = startMember(t, fake, timeline, 'a', ids(2));
  await waitFor('both claimed', () => timeline.count('a') === 2, 10_000);
  await waitFor('a quiet round', () => a.rounds.slice(-2).some((r) => !r.full), 10_000);
  const epoch = timeline.claim('a', '1')!.ownerLevel!;
  // Broken by a tool (as `checkpoints reset --force` does): the next renewal is refused.
  dropLease(fake, ownershipBlobName(scope, '1'));
  await waitFor('partition 1 claimed again', () => (timeline.claim('a', '1')?.ownerLevel ?? 0) > epoch, 10_000);
  const lost = a.events.find((e) => e.type === 'released' && e.reason === 'lost');
  assert.ok(lost, 'the claim was lost');
  const next = a.rounds[lost.round];
  assert.ok(next, 'a round after the loss');
  assert.equal(next.full, true, 'the first round after the loss listed ownership');
  assert.deepEqual(timeline.reading('a').sort(), ['0', '1']);
  assert.deepEqual(timeline.violations, []);
});

test('quiet rounds: a partition whose reader ended is released, and claimed again after its backoff', async (t) => {
  const fake = new FakeContainer();
  const timeline = new Timeline();
  const a = startMember(t, fake, timeline, 'a', ids(2), { restartInitialMs: 200 });
  await waitFor('both claimed', () => timeline.count('a') === 2, 10_000);
  await waitFor('a quiet round', () => a.rounds.slice(-2).some((r) => !r.full), 10_000);
  const epoch = timeline.claim('a', '0')!.ownerLevel!;
  const roundsAtEnd = a.rounds.length;
  assert.ok(timeline.end('a', '0', { reason: 'error', error: new Error('reader failed') }));
  await waitFor('partition 0 claimed again', () => (timeline.claim('a', '0')?.ownerLevel ?? 0) > epoch, 10_000);
  const claimed = a.events.findLast((e) => e.type === 'claimed' && e.partitionId === '0')!;
  const until = a.rounds.slice(roundsAtEnd, claimed.round);
  assert.ok(until.length > 0 && until.every((r) => r.full), 'every round until it was claimed again listed ownership');
  assert.deepEqual(timeline.violations, []);
});

test('quiet rounds: a partition a peer released, with no membership change, is claimed within N rounds', async (t) => {
  const fake = new FakeContainer();
  const timeline = new Timeline();
  // Member x is played by the test: a membership lease and leases on partitions 1 and 2, renewed by nobody
  // (the fake does not hold leases to the service's 60 s limit).
  const client = fake.client();
  const leaseX = (name: string) => client.getBlockBlobClient(name).getBlobLeaseClient('lease-of-x');
  await client.getBlockBlobClient(memberBlobName(scope, 'x')).upload('', 0, {});
  await leaseX(memberBlobName(scope, 'x')).acquireLease(600, {});
  for (const pid of ['1', '2']) {
    await client.getBlockBlobClient(ownershipBlobName(scope, pid)).upload('', 0, { metadata: { ownerid: 'x' } });
    await leaseX(ownershipBlobName(scope, pid)).acquireLease(600, {});
  }
  // Three partitions over a and x: x owns most, so the ceiling share (2) is x's, and a settles at one.
  const a = startMember(t, fake, timeline, 'a', ids(3));
  await waitFor('a claimed partition 0', () => timeline.count('a') === 1, 10_000);
  await moreRounds([a], 2);
  await waitFor('a quiet round', () => a.rounds.slice(-2).some((r) => !r.full), 10_000);
  // x releases partition 2 (its reader ended): one each now, and the tie gives a the ceiling share.
  const roundsAtRelease = a.rounds.length;
  await client.getBlockBlobClient(ownershipBlobName(scope, '2')).setMetadata(
    { ownerid: '' },
    {
      conditions: { leaseId: 'lease-of-x' },
    },
  );
  await leaseX(ownershipBlobName(scope, '2')).releaseLease({});
  await waitFor('a claimed partition 2', () => timeline.reading('a').includes('2'), 10_000);
  // The round that claims it may be the N-th after the release, plus the one under way at the release.
  const claimed = a.events.find((e) => e.type === 'claimed' && e.partitionId === '2')!;
  const rounds = claimed.round - roundsAtRelease;
  assert.ok(rounds <= N + 1, `claimed after ${rounds} rounds`);
  assert.ok(
    a.rounds.slice(roundsAtRelease).every((r) => r.members.join() === 'a,x'),
    'no membership change',
  );
  assert.deepEqual(timeline.violations, []);
});

test(
  'quiet rounds: a member that gives a partition back announces it, and a settled peer claims it at ' + 'once',
  async (t) => {
    const fake = new FakeContainer();
    const timeline = new Timeline();
    // b alone takes all three, then a joins and b yields one: b keeps the ceiling share (2), a settles at 1.
    // b's restart backoff is long, so only a can read the partition b gives back.
    startMember(t, fake, timeline, 'b', ids(3), { restartInitialMs: 60_000, restartMaxMs: 60_000 });
    await waitFor('b claimed all three', () => timeline.count('b') === 3, 10_000);
    const a = startMember(t, fake, timeline, 'a', ids(3));
    await waitFor('balanced 1 / 2', () => timeline.count('a') === 1 && timeline.count('b') === 2, 10_000);
    await waitFor('a in quiet rounds', () => a.rounds.slice(-3).filter((r) => !r.full).length >= 2, 10_000);
    // b's reader of one of its partitions ends: b releases it and stays. One each now: the tie gives a
    // (first by id) the ceiling share, so a must claim it, though nothing in the member list changed.
    const pid = timeline.reading('b')[0]!;
    const roundsAtEnd = a.rounds.length;
    assert.ok(timeline.end('b', pid, { reason: 'error', error: new Error('reader failed') }));
    await waitFor(`a reading partition ${pid}`, () => timeline.reading('a').includes(pid), 10_000);
    const claimed = a.events.find((e) => e.type === 'claimed' && e.partitionId === pid)!;
    // The round under way at the release, then the first round that lists b's rewritten record: not a
    // safety-net listing N rounds later.
    assert.ok(
      claimed.round - roundsAtEnd <= 2,
      `claimed ${claimed.round - roundsAtEnd} rounds after the release (N = ${N})`,
    );
    assert.ok(
      a.rounds.slice(roundsAtEnd).every((r) => r.members.join() === 'a,b'),
      'no membership change',
    );
    assert.ok(
      fake.count('setMetadata', '/members/b') >= 2,
      'b rewrote its membership record (once at start, once now)',
    );
    assert.deepEqual(timeline.violations, []);
  },
);

test('quiet rounds: foreign claims do not keep a fleet from settling; their lapse brings a full round', async (t) => {
  const fake = new FakeContainer();
  const timeline = new Timeline();
  // An SDK processor's claims (no lease) on partitions 2 and 3, written once: live for 3 s, plus 1 s for HTTP
  // dates' whole seconds.
  const client = fake.client();
  for (const pid of ['2', '3']) {
    await client.getBlockBlobClient(ownershipBlobName(scope, pid)).upload('', 0, { metadata: { ownerid: 'sdk' } });
  }
  const lapsedAt = Date.now() + 4_000;
  const a = startMember(t, fake, timeline, 'a', ids(4), { updateIntervalMs: 400, foreignOwnershipExpiryMs: 3_000 });
  await waitFor('a claimed 0 and 1', () => timeline.count('a') === 2, 10_000);
  await waitFor('a claimed all four', () => timeline.count('a') === 4, 15_000);
  assert.ok(
    a.rounds.some((r) => !r.full && r.at < lapsedAt),
    'quiet rounds while the foreign claims were live',
  );
  // The first round after the lapse lists ownership and claims: quiet rounds alone would go on for up to N.
  const claimed = a.events.find((e) => e.type === 'claimed' && e.partitionId === '2')!;
  const afterLapse = a.rounds.slice(0, claimed.round).filter((r) => r.at >= lapsedAt);
  assert.ok(afterLapse.length <= 2, `claimed in the ${afterLapse.length}th round after the lapse`);
  assert.deepEqual(timeline.violations, []);
});

test('settledShare: settled only with every shared partition held by a live member and nothing to do', () => {
  const claim = (state: PartitionLease['state']) => ({ state }) as PartitionLease;
  const decision: BalanceDecision = { claim: [], yield: [], fairShare: 2, members: 2 };
  const round: FullRound = {
    ownerId: 'a',
    partitionIds: ['0', '1', '2', '3'],
    members: ['b'],
    leaving: [],
    decision,
    owned: 2,
    ownerships: new Map([
      ['0', 'a'],
      ['1', 'a'],
      ['2', 'b'],
      ['3', 'b'],
    ]),
    claims: [claim('running'), claim('running')],
    membershipHeld: true,
  };
  assert.deepEqual(settledShare(round), { members: 2, fairShare: 2 });
  // Foreign-held partitions are left out of partitionIds by the caller: they do not count.
  assert.deepEqual(settledShare({ ...round, partitionIds: ['0', '1', '2'] }), { members: 2, fairShare: 2 });
  const unsettled: Array<[string, Partial<FullRound>]> = [
    [
      'a free partition',
      {
        ownerships: new Map([
          ['0', 'a'],
          ['1', 'a'],
          ['2', 'b'],
        ]),
      },
    ],
    [
      'a holder without ownerid',
      {
        ownerships: new Map([
          ['0', 'a'],
          ['1', 'a'],
          ['2', 'b'],
          ['3', ''],
        ]),
      },
    ],
    [
      "a dead member's partition",
      {
        ownerships: new Map([
          ['0', 'a'],
          ['1', 'a'],
          ['2', 'b'],
          ['3', 'c'],
        ]),
      },
    ],
    ['a member leaving', { leaving: ['c'] }],
    ['a claim starting', { claims: [claim('running'), claim('starting')] }],
    ['a claim lost', { claims: [claim('running'), claim('lost')] }],
    ['below the share', { owned: 1 }],
    ['something to claim', { decision: { ...decision, claim: ['3'] } }],
    ['something to yield', { decision: { ...decision, yield: ['1'] } }],
    ['no membership lease', { membershipHeld: false }],
  ];
  for (const [what, change] of unsettled) assert.equal(settledShare({ ...round, ...change }), undefined, what);
});
