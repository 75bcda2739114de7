import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { balance, type BalanceStrategy } from '../../../src/ownership/balance.ts';

const ids = (n: number) => Array.from({ length: n }, (_, i) => String(i));

function ownerships(assignment: Record<string, readonly string[]>): Map<string, string | undefined> {
  const map = new Map<string, string | undefined>();
  for (const [owner, pids] of Object.entries(assignment)) for (const pid of pids) map.set(pid, owner);
  return map;
}

/**
 * Runs rounds in which every member decides on the same snapshot; yields apply first, then claims in member
 * order, and a claim of a partition someone else took in the same round fails (as a lease acquire would).
 * Returns the final assignment and the number of rounds until nobody claimed or yielded.
 */
function simulate(
  members: string[],
  partitions: number,
  strategy: BalanceStrategy,
  start: Record<string, string[]> = {},
  maxRounds = 100,
) {
  const owner = ownerships(start);
  const partitionIds = ids(partitions);
  for (let round = 1; round <= maxRounds; round++) {
    const snapshot = new Map(owner);
    const decisions = members.map((m) => ({
      m,
      d: balance({ ownerId: m, members, ownerships: snapshot, partitionIds, strategy }),
    }));
    let changed = false;
    for (const { d } of decisions) {
      for (const pid of d.yield) {
        owner.delete(pid);
        changed = true;
      }
    }
    const takenThisRound = new Set<string>();
    for (const { m, d } of decisions) {
      for (const pid of d.claim) {
        const held = snapshot.get(pid);
        assert.ok(held === undefined || !members.includes(held), `${m} tried to steal ${pid} from a live member`);
        // Free, or held by a departed owner whose lease has lapsed; the first claimant of the round wins.
        if (!takenThisRound.has(pid) && (owner.get(pid) === undefined || !members.includes(owner.get(pid)!))) {
          owner.set(pid, m);
          takenThisRound.add(pid);
          changed = true;
        }
      }
    }
    if (!changed)
      return {
        counts: members.map((m) => [...owner.values()].filter((o) => o === m).length),
        rounds: round - 1,
        owner,
      };
  }
  throw new Error('did not converge');
}

describe('balance: fair shares', () => {
  test('12 partitions 3 members → 4/4/4 (greedy, from nothing)', () => {
    assert.deepEqual(simulate(['a', 'b', 'c'], 12, 'greedy').counts, [4, 4, 4]);
  });

  test('12 partitions 3 members → 4/4/4 (balanced, one claim per round)', () => {
    const result = simulate(['a', 'b', 'c'], 12, 'balanced');
    assert.deepEqual(result.counts, [4, 4, 4]);
    assert.ok(result.rounds >= 4, 'balanced claims one per round, so at least 4 rounds for 4 each');
  });

  test('13 partitions 4 members → 4/3/3/3: exactly P mod M members get the ceiling', () => {
    const counts = simulate(['a', 'b', 'c', 'd'], 13, 'greedy').counts;
    assert.deepEqual([...counts].sort().reverse(), [4, 3, 3, 3]);
  });

  test('more members than partitions: some own one, the rest none', () => {
    const counts = simulate(['a', 'b', 'c', 'd', 'e'], 3, 'balanced').counts;
    assert.deepEqual([...counts].sort().reverse(), [1, 1, 1, 0, 0]);
  });

  test('the fair share reported is floor or ceil, and the ceiling goes to the member owning most', () => {
    const snapshot = ownerships({
      a: ['0', '1', '2', '3'],
      b: ['4', '5', '6'],
      c: ['7', '8', '9'],
      d: ['10', '11', '12'],
    });
    const args = {
      members: ['a', 'b', 'c', 'd'],
      ownerships: snapshot,
      partitionIds: ids(13),
      strategy: 'balanced' as const,
    };
    assert.equal(balance({ ownerId: 'a', ...args }).fairShare, 4);
    for (const m of ['b', 'c', 'd'])
      assert.deepEqual(balance({ ownerId: m, ...args }), { claim: [], yield: [], fairShare: 3, members: 4 });
    assert.deepEqual(balance({ ownerId: 'a', ...args }).yield, [], 'a balanced fleet stays put');
  });
});

describe('balance: claiming', () => {
  test('balanced claims one per round, greedy its whole share at once', () => {
    const args = { ownerId: 'a', members: ['a', 'b'], ownerships: new Map(), partitionIds: ids(8) };
    assert.equal(balance({ ...args, strategy: 'balanced' }).claim.length, 1);
    assert.equal(balance({ ...args, strategy: 'greedy' }).claim.length, 4);
  });

  test(
    'balanced claims up to its allowance (the coordinator raises it while the view is stable), never past its ' +
      'share',
    () => {
      const args = {
        ownerId: 'a',
        members: ['a', 'b'],
        ownerships: new Map(),
        partitionIds: ids(8),
        strategy: 'balanced' as const,
      };
      assert.equal(balance({ ...args, balancedClaims: 3 }).claim.length, 3);
      assert.equal(balance({ ...args, balancedClaims: 32 }).claim.length, 4);
      assert.equal(balance({ ...args, balancedClaims: 0 }).claim.length, 1, 'at least one');
    },
  );

  test('members claiming together with a large allowance reach for disjoint partitions', () => {
    const members = ['a', 'b', 'c', 'd'];
    const args = {
      members,
      ownerships: new Map(),
      partitionIds: ids(64),
      strategy: 'balanced' as const,
      balancedClaims: 16,
    };
    const claims = members.map((m) => balance({ ...args, ownerId: m }).claim);
    assert.deepEqual(
      claims.map((c) => c.length),
      [16, 16, 16, 16],
    );
    assert.equal(new Set(claims.flat()).size, 64);
  });

  test('does not steal when it can wait: never claims a partition a live member holds', () => {
    // b holds 6 of 6; a newcomer must wait for b to yield instead of taking one.
    const snapshot = ownerships({ b: ids(6) });
    for (const strategy of ['balanced', 'greedy'] as const) {
      const d = balance({ ownerId: 'a', members: ['a', 'b'], ownerships: snapshot, partitionIds: ids(6), strategy });
      assert.deepEqual(d.claim, []);
      assert.equal(d.fairShare, 3);
    }
  });

  test('an over-owner yields exactly one partition per round', () => {
    const d = balance({
      ownerId: 'b',
      members: ['a', 'b'],
      ownerships: ownerships({ b: ids(6) }),
      partitionIds: ids(6),
      strategy: 'greedy',
    });
    assert.equal(d.yield.length, 1);
    assert.deepEqual(d.claim, []);
  });

  test('newcomer with nothing gets partitions as over-owners yield', () => {
    const result = simulate(['a', 'b', 'c', 'd'], 12, 'balanced', {
      a: ids(12).slice(0, 4),
      b: ids(12).slice(4, 8),
      c: ids(12).slice(8),
    });
    assert.deepEqual(result.counts, [3, 3, 3, 3]);
  });

  test('a lone owner of everything hands over to a newcomer one partition per round', () => {
    const result = simulate(['a', 'b'], 12, 'greedy', { a: ids(12) });
    assert.deepEqual(result.counts, [6, 6]);
    assert.ok(result.rounds >= 6, 'six partitions move, one yield per round');
  });

  test('claims free partitions before ones held by a departed owner', () => {
    const snapshot = new Map<string, string | undefined>([
      ['0', 'gone'],
      ['1', 'gone'],
      ['2', undefined],
      ['3', undefined],
    ]);
    const d = balance({ ownerId: 'a', members: ['a'], ownerships: snapshot, partitionIds: ids(4), strategy: 'greedy' });
    assert.deepEqual(d.claim.slice(0, 2).sort(), ['2', '3']);
    assert.deepEqual(d.claim.slice(2).sort(), ['0', '1']);
  });

  test('a departed member’s partitions are claimed by the survivors (crash failover)', () => {
    const start = { a: ['0', '1', '2', '3'], b: ['4', '5', '6', '7'], dead: ['8', '9', '10', '11'] };
    const result = simulate(['a', 'b'], 12, 'greedy', start);
    assert.deepEqual(result.counts, [6, 6]);
  });

  test('empty string owner (released by an SDK processor) counts as free', () => {
    const d = balance({
      ownerId: 'a',
      members: ['a'],
      ownerships: new Map([['0', '']]),
      partitionIds: ['0'],
      strategy: 'balanced',
    });
    assert.deepEqual(d.claim, ['0']);
  });

  test('counts itself as a member even when its membership record is missing', () => {
    const d = balance({
      ownerId: 'a',
      members: ['b'],
      ownerships: ownerships({ b: ids(4) }),
      partitionIds: ids(4),
      strategy: 'balanced',
    });
    assert.equal(d.members, 2);
    assert.equal(d.fairShare, 2);
  });

  test('members claiming together from the same view reach for disjoint partitions', () => {
    const members = ['alpha', 'beta', 'gamma', 'delta'];
    for (const strategy of ['balanced', 'greedy'] as const) {
      const claims = members.flatMap(
        (m) => balance({ ownerId: m, members, ownerships: new Map(), partitionIds: ids(32), strategy }).claim,
      );
      assert.equal(new Set(claims).size, claims.length, `${strategy}: no two members reach for the same partition`);
    }
  });

  test('greedy from nothing converges in one round when everyone sees the same snapshot', () => {
    assert.equal(simulate(['a', 'b', 'c'], 12, 'greedy').rounds, 1);
  });

  test('no partitions: nothing to do', () => {
    assert.deepEqual(
      balance({ ownerId: 'a', members: ['a', 'b'], ownerships: new Map(), partitionIds: [], strategy: 'greedy' }),
      { claim: [], yield: [], fairShare: 0, members: 2 },
    );
  });

  test('ownership of unknown partitions (not in the hub any more) is ignored', () => {
    const d = balance({
      ownerId: 'a',
      members: ['a'],
      ownerships: ownerships({ a: ['0', '99'] }),
      partitionIds: ['0', '1'],
      strategy: 'greedy',
    });
    assert.deepEqual(d, { claim: ['1'], yield: [], fairShare: 2, members: 1 });
  });
});

describe('balance: a member leaving', () => {
  const start = ownerships({ a: ids(12).slice(0, 4), b: ids(12).slice(4, 8), c: ids(12).slice(8) });

  test('a leaving member gets no share: the others count on its partitions', () => {
    const d = balance({
      ownerId: 'a',
      members: ['a', 'b'],
      leaving: ['c'],
      ownerships: start,
      partitionIds: ids(12),
      strategy: 'balanced',
    });
    assert.equal(d.members, 2);
    assert.equal(d.fairShare, 6);
  });

  test('waits for its releases: never claims a partition a leaving member still holds', () => {
    for (const strategy of ['balanced', 'greedy'] as const) {
      const d = balance({
        ownerId: 'a',
        members: ['a', 'b'],
        leaving: ['c'],
        ownerships: start,
        partitionIds: ids(12),
        strategy,
      });
      assert.deepEqual(d, { claim: [], yield: [], fairShare: 6, members: 2 }, strategy);
    }
  });

  test('claims what the leaving member released, up to its new share', () => {
    const released = new Map(start);
    for (const pid of ['8', '9', '10', '11']) released.delete(pid);
    const a = balance({
      ownerId: 'a',
      members: ['a', 'b'],
      leaving: ['c'],
      ownerships: released,
      partitionIds: ids(12),
      strategy: 'greedy',
    });
    const b = balance({
      ownerId: 'b',
      members: ['a', 'b'],
      leaving: ['c'],
      ownerships: released,
      partitionIds: ids(12),
      strategy: 'greedy',
    });
    assert.equal(a.claim.length, 2);
    assert.equal(b.claim.length, 2);
    assert.deepEqual([...a.claim, ...b.claim].sort(), ['10', '11', '8', '9']);
  });

  test('listed both as a member and as leaving: leaving wins', () => {
    const d = balance({
      ownerId: 'a',
      members: ['a', 'b', 'c'],
      leaving: ['c'],
      ownerships: start,
      partitionIds: ids(12),
      strategy: 'balanced',
    });
    assert.equal(d.members, 2);
  });
});

describe('balance: after every lease lapsed at once (a storage outage)', () => {
  const lastOwners = new Map([
    ['0', 'a'],
    ['1', 'b'],
    ['2', 'a'],
    ['3', 'b'],
    ['4', 'a'],
    ['5', 'b'],
  ]);
  const base = { partitionIds: ids(6), ownerships: new Map<string, string | undefined>(), lastOwners };

  test('an instance takes its own partitions back first, all in one round, even balanced', () => {
    const d = balance({ ...base, ownerId: 'a', members: ['a', 'b'], strategy: 'balanced' });
    assert.deepEqual(d.claim, ['0', '2', '4']);
  });

  test('while it holds back for the others, it leaves their partitions to them even when alone in the listing', () => {
    const holding = balance({ ...base, ownerId: 'a', members: ['a'], strategy: 'greedy', holdBackFor: new Set(['b']) });
    assert.deepEqual(
      holding.claim,
      ['0', '2', '4'],
      'b has not renewed its membership yet: its partitions wait for it',
    );
    const after = balance({ ...base, ownerId: 'a', members: ['a'], strategy: 'greedy' });
    assert.deepEqual(
      after.claim,
      ['0', '2', '4', '1', '3', '5'],
      "the grace over, a gone instance's partitions are taken",
    );
  });
});
