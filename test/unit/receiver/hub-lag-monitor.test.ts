import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HubProperties, PartitionProperties } from '../../../src/backends/consumer.ts';
import { MemoryCheckpointStore } from '../../../src/ownership/memory-checkpoint-store.ts';
import { HubLagMonitor, hubLagEvents } from '../../../src/receiver/internal/hub-lag-monitor.ts';
import type { HubPartitionLag } from '../../../src/receiver/receiver-status.ts';
import { noopLogger, type Logger } from '../../../src/component/logger.ts';
import { until } from './fakes.ts';

const scope = { fullyQualifiedNamespace: 'ns.servicebus.windows.net', eventHubName: 'hub', consumerGroup: '$default' };

/** A hub whose partitions' last sequence numbers the test sets; `fail` makes calls reject, `hang` never settle. */
class FakeHub {
  last = new Map<string, number>();
  fail = new Set<string>();
  hang = false;
  partitionCalls = 0;
  constructor(readonly ids: string[]) {
    for (const id of ids) this.last.set(id, -1);
  }
  async getHubProperties(): Promise<HubProperties> {
    if (this.fail.has('hub')) throw new Error('hub down');
    return { name: 'hub', partitionIds: [...this.ids].reverse() };
  }
  async getPartitionProperties(partitionId: string, signal?: AbortSignal): Promise<PartitionProperties> {
    this.partitionCalls++;
    if (this.hang) {
      // A real call holds a socket open meanwhile; the deadline's own timer is unref'd and would not.
      const socket = setInterval(() => {}, 1_000);
      await new Promise((_, reject) => signal?.addEventListener('abort', () => reject(signal.reason))).finally(() =>
        clearInterval(socket),
      );
    }
    if (this.fail.has(partitionId)) throw new Error(`partition ${partitionId} down`);
    const last = this.last.get(partitionId)!;
    return {
      hubName: 'hub',
      partitionId,
      beginningSequenceNumber: last < 0 ? -1 : 0,
      lastEnqueuedSequenceNumber: last,
      lastEnqueuedOffset: String(last * 10),
      lastEnqueuedOnUtc: new Date(1_000_000 + last),
      isEmpty: last < 0,
    };
  }
}

function byId(rows: HubPartitionLag[]): Map<string, HubPartitionLag> {
  return new Map(rows.map((r) => [r.partitionId, r]));
}

test('reports every partition with its owner, checkpoint, lag and checkpoint age, whoever owns it', async () => {
  const hub = new FakeHub(['0', '1', '2', '10']);
  hub.last.set('0', 99).set('1', 49).set('10', 7); // '2' stays empty
  const store = new MemoryCheckpointStore();
  store.reset(scope, { partitionId: '0', sequenceNumber: 89, offset: '890' });
  store.reset(scope, { partitionId: '10', sequenceNumber: 9, offset: '90' }); // ahead of the hub: no backlog
  const written = (await store.read(scope, '0'))!.updatedOn!.getTime();
  let now = written + 42_000;
  const monitor = new HubLagMonitor({
    hub,
    store,
    scope,
    readOwners: async () =>
      new Map([
        ['0', 'pod-a'],
        ['2', ''],
      ]),
    now: () => now,
  });
  assert.deepEqual(monitor.snapshot(), [], 'nothing before the first refresh');
  await monitor.refresh();
  const rows = monitor.snapshot();
  assert.deepEqual(
    rows.map((r) => r.partitionId),
    ['0', '1', '2', '10'],
    'every partition, in partition order',
  );
  const m = byId(rows);
  assert.deepEqual(
    rows.map((r) => [
      r.partitionId,
      r.owner,
      r.checkpointSequenceNumber,
      r.lastEnqueuedSequenceNumber,
      r.lagEvents,
      r.stale,
    ]),
    [
      ['0', 'pod-a', 89, 99, 10, false],
      ['1', '', undefined, 49, undefined, false], // no checkpoint: unknown, not 0
      ['2', '', undefined, -1, 0, false], // empty: nothing waits
      ['10', '', 9, 7, 0, false],
    ],
  );
  assert.equal(m.get('0')!.checkpointAgeSeconds, 42);
  assert.equal(m.get('1')!.checkpointAgeSeconds, undefined);
  assert.equal(m.get('2')!.lastEnqueuedTime, undefined);
  assert.deepEqual(m.get('1')!.lastEnqueuedTime, new Date(1_000_049));
  assert.equal(m.get('0')!.refreshedAt.getTime(), now);
  now += 8_000;
  assert.equal(byId(monitor.snapshot()).get('0')!.checkpointAgeSeconds, 50, 'the age grows between refreshes');
});

test('a failed read keeps the last good values, marks them stale, and clears it when reads succeed again', async () => {
  const hub = new FakeHub(['0', '1']);
  hub.last.set('0', 10).set('1', 20);
  const store = new MemoryCheckpointStore();
  store.reset(scope, { partitionId: '0', sequenceNumber: 5, offset: '50' });
  let ownersDown = false;
  const warnings: string[] = [];
  const logger: Logger = { ...noopLogger, warn: (msg) => warnings.push(msg), child: () => logger };
  const monitor = new HubLagMonitor({
    hub,
    store,
    scope,
    logger,
    readOwners: async () => {
      if (ownersDown) throw new Error('storage down');
      return new Map([['1', 'pod-b']]);
    },
  });
  await monitor.refresh();
  const first = byId(monitor.snapshot());

  hub.last.set('0', 30).set('1', 40);
  hub.fail.add('1');
  await monitor.refresh();
  let m = byId(monitor.snapshot());
  assert.deepEqual([m.get('0')!.lagEvents, m.get('0')!.stale], [25, false], 'partition 0 refreshed');
  assert.deepEqual([m.get('1')!.lastEnqueuedSequenceNumber, m.get('1')!.stale], [20, true], 'partition 1 kept, stale');
  assert.deepEqual(m.get('1')!.refreshedAt, first.get('1')!.refreshedAt);

  hub.fail.clear();
  hub.fail.add('hub');
  await monitor.refresh();
  m = byId(monitor.snapshot());
  assert.deepEqual([...m.keys()], ['0', '1'], 'the hub down: the last known partitions are still reported');
  assert.ok([...m.values()].every((r) => r.stale));

  hub.fail.clear();
  ownersDown = true;
  await monitor.refresh();
  m = byId(monitor.snapshot());
  assert.equal(m.get('1')!.lastEnqueuedSequenceNumber, 40, 'lag values refreshed');
  assert.deepEqual([m.get('1')!.owner, m.get('1')!.stale], ['pod-b', true], 'owners unknown: the last known, stale');

  ownersDown = false;
  await monitor.refresh();
  assert.ok(monitor.snapshot().every((r) => !r.stale));
  assert.ok(warnings.length >= 1, 'the failures were logged');
  assert.ok(warnings.length < 4, `one warning per failure streak, not one per refresh: ${warnings.join(' | ')}`);
});

test('a request that never answers is cut at its deadline: the refresh ends and the partition is stale', async () => {
  const hub = new FakeHub(['0']);
  hub.last.set('0', 3);
  const monitor = new HubLagMonitor({ hub, store: new MemoryCheckpointStore(), scope, requestTimeoutMs: 50 });
  await monitor.refresh();
  hub.hang = true;
  await monitor.refresh();
  assert.deepEqual(
    monitor.snapshot().map((r) => [r.lastEnqueuedSequenceNumber, r.stale]),
    [[3, true]],
  );
});

test(
  'start refreshes in the background until stop; stop waits for the refresh in flight and is ' + 'idempotent',
  async () => {
    const hub = new FakeHub(['0', '1']);
    hub.last.set('0', 1).set('1', 2);
    const monitor = new HubLagMonitor({ hub, store: new MemoryCheckpointStore(), scope, intervalMs: 5 });
    monitor.start();
    monitor.start();
    await until(() => hub.partitionCalls >= 6);
    hub.last.set('0', 11);
    await until(() => byId(monitor.snapshot()).get('0')?.lastEnqueuedSequenceNumber === 11);

    hub.hang = true; // the next refresh blocks until stop aborts it
    const calls = hub.partitionCalls;
    await until(() => hub.partitionCalls > calls);
    await Promise.all([monitor.stop(), monitor.stop()]);
    const after = hub.partitionCalls;
    hub.hang = false;
    await monitor.refresh();
    monitor.start();
    assert.equal(hub.partitionCalls, after, 'no refresh after stop');
    assert.equal(byId(monitor.snapshot()).get('0')!.lastEnqueuedSequenceNumber, 11, 'values survive stop');
  },
);

test('hubLagEvents: checkpoint to newest event, 0 when empty or ahead, undefined without a checkpoint', () => {
  const props = (last: number, isEmpty = false) =>
    ({ lastEnqueuedSequenceNumber: last, isEmpty }) as PartitionProperties;
  assert.equal(hubLagEvents(5, props(15)), 10);
  assert.equal(hubLagEvents(-1, props(15)), 16, 'checkpoint -1 (before the first event): every event waits');
  assert.equal(hubLagEvents(undefined, props(15)), undefined);
  assert.equal(hubLagEvents(undefined, props(-1, true)), 0);
  assert.equal(hubLagEvents(20, props(15)), 0);
});

test(
  'readCheckpoints: one call per refresh for every partition, no per-partition read; a failed listing keeps the ' +
    'last checkpoints, stale',
  async () => {
    const hub = new FakeHub(['0', '1', '2']);
    hub.last.set('0', 10).set('1', 20).set('2', 30);
    const store = new MemoryCheckpointStore();
    let reads = 0;
    const counted = {
      read: async (...args: Parameters<MemoryCheckpointStore['read']>) => (reads++, store.read(...args)),
    };
    let listings = 0;
    let down = false;
    let listed = [
      { partitionId: '0', sequenceNumber: 4, offset: '40' },
      { partitionId: '2', sequenceNumber: 30, offset: '300' },
    ];
    const monitor = new HubLagMonitor({
      hub,
      store: counted,
      scope,
      readCheckpoints: async () => {
        listings++;
        if (down) throw new Error('storage down');
        return listed;
      },
    });
    await monitor.refresh();
    let m = byId(monitor.snapshot());
    assert.equal(listings, 1);
    assert.equal(reads, 0, 'no checkpoint read per partition');
    assert.deepEqual(
      ['0', '1', '2'].map((id) => m.get(id)!.lagEvents),
      [6, undefined, 0],
    );
    assert.ok([...m.values()].every((r) => !r.stale));

    down = true;
    hub.last.set('0', 12);
    await monitor.refresh();
    m = byId(monitor.snapshot());
    assert.deepEqual(
      [m.get('0')!.checkpointSequenceNumber, m.get('0')!.lastEnqueuedSequenceNumber, m.get('0')!.stale],
      [4, 12, true],
    );

    down = false;
    listed = [{ partitionId: '0', sequenceNumber: 12, offset: '120' }];
    await monitor.refresh();
    m = byId(monitor.snapshot());
    assert.deepEqual([m.get('0')!.lagEvents, m.get('0')!.stale], [0, false]);
    assert.equal(listings, 3);
  },
);

test('partitions whose own reader heard from the hub recently need no management call', async () => {
  const hub = new FakeHub(['0', '1']);
  hub.last.set('0', 99).set('1', 49);
  const store = new MemoryCheckpointStore();
  store.reset(scope, { partitionId: '0', sequenceNumber: 89, offset: '890' });
  store.reset(scope, { partitionId: '1', sequenceNumber: 40, offset: '400' });
  const asked: Array<[string, number]> = [];
  const monitor = new HubLagMonitor({
    hub,
    store,
    scope,
    intervalMs: 30_000,
    // Partition 0 is read here and its reader's last delivery said 120; partition 1 is someone else's.
    localProperties: (pid, maxAgeMs) => {
      asked.push([pid, maxAgeMs]);
      if (pid !== '0') return undefined;
      return {
        hubName: 'hub',
        partitionId: '0',
        beginningSequenceNumber: 0,
        lastEnqueuedSequenceNumber: 120,
        lastEnqueuedOffset: '1200',
        lastEnqueuedOnUtc: new Date(),
        isEmpty: false,
      };
    },
  });
  await monitor.refresh();
  assert.equal(hub.partitionCalls, 1, 'only the partition read elsewhere was asked of the hub');
  assert.deepEqual(
    asked,
    [
      ['0', 30_000],
      ['1', 30_000],
    ],
    'fresh means within one refresh interval',
  );
  const rows = byId(monitor.snapshot());
  assert.equal(rows.get('0')?.lagEvents, 31);
  assert.equal(rows.get('1')?.lagEvents, 9);
  await monitor.stop();
});
