/**
 * A storage outage longer than the lease, for the whole fleet: two receivers read a hub whose checkpoint store
 * goes away (a proxy in front of Azurite is cut) long enough for every lease to lapse. Each stops its partitions
 * as lost, keeps where it got to, takes its own partitions back when storage returns (not the other's), and
 * reads on from there: nothing lost, and almost nothing read twice although the checkpoint interval (60 s) is
 * longer than the whole test. Both backends, side by side.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { startEmulator } from '../../../src/emulator/index.ts';
import { randomName, startAzurite } from '../../helpers/azurite.ts';
import { startTcpProxy } from '../ownership/helpers/tcp-proxy.ts';
import { BACKENDS, byPartition, startReceiver, until } from './harness.ts';

const PARTITIONS = 4;

test('a fleet-wide storage outage past the lease: each instance takes its own partitions back and reads on without ' +
  're-reading', {
  timeout: 120_000,
}, async (t) => {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const emulator = await startEmulator({ port: 0 });
  t.after(() => emulator.stop());

  async function run(backend: (typeof BACKENDS)[number]): Promise<void> {
    const hub = randomName('hub');
    emulator.addHub({ name: hub, partitions: PARTITIONS });
    const proxy = await startTcpProxy(azurite.port);
    t.after(() => proxy.close());
    const storage = azurite.connectionString.replace(`:${azurite.port}/`, `:${proxy.port}/`);
    const container = randomName('ckpt');
    const config = (owner: string) => ({
      connection: emulator.connectionString(hub),
      backend,
      format: 'raw' as const,
      start_position: 'earliest',
      checkpoint: { interval: '60s' },
      blob_checkpoint_store: { connection: storage, container_name: container, create_container: true },
      ownership: { lease_duration: '15s', update_interval: '300ms', owner_id: `${backend}-${owner}` },
    });
    const consumers = { a: new InMemorySignalConsumer(), b: new InMemorySignalConsumer() };
    const a = startReceiver(t, config('a'), consumers.a);
    await a.start();
    const b = startReceiver(t, config('b'), consumers.b);
    await b.start();
    await until(
      () => a.ownedPartitions().length === 2 && b.ownedPartitions().length === 2,
      60_000,
      `${backend}: 2 + 2`,
    );
    const before = { a: [...a.ownedPartitions()].sort(), b: [...b.ownedPartitions()].sort() };

    let sent = 0;
    const produce = setInterval(() => {
      for (let p = 0; p < PARTITIONS; p++) emulator.append(hub, String(p), [{ body: `${p}-${sent}` }]);
      sent++;
    }, 50);
    t.after(() => clearInterval(produce));
    const delivered = () => consumers.a.records().length + consumers.b.records().length;
    await until(() => delivered() >= 40, 20_000, `${backend}: reading`);

    proxy.cut();
    await until(
      () => a.ownedPartitions().length === 0 && b.ownedPartitions().length === 0,
      30_000,
      `${backend}: every lease given up`,
    );
    proxy.restore();
    const atRestore = delivered();
    await until(
      () => a.ownedPartitions().length === 2 && b.ownedPartitions().length === 2,
      30_000,
      `${backend}: claimed again`,
    );
    assert.deepEqual(
      { a: [...a.ownedPartitions()].sort(), b: [...b.ownedPartitions()].sort() },
      before,
      'each took its own back',
    );
    await until(() => delivered() >= atRestore + 40, 30_000, `${backend}: reading after the outage`);
    clearInterval(produce);
    const total = sent * PARTITIONS;
    await until(
      () => new Set([...consumers.a.records(), ...consumers.b.records()].map((r) => String(r.body))).size === total,
      30_000,
      `${backend}: everything sent`,
    );

    const seqs = byPartition([...consumers.a.records(), ...consumers.b.records()]);
    let duplicates = 0;
    for (const [pid, list] of seqs) {
      const unique = new Set(list);
      duplicates += list.length - unique.size;
      assert.equal(Math.max(...unique) + 1, unique.size, `${backend}: partition ${pid} has no gap`);
    }
    t.diagnostic(
      `${backend}: ${total} events, ${duplicates} delivered twice (${((100 * duplicates) / total).toFixed(2)} %)`,
    );
    // Without the reclaim, everything since the first checkpoint (the whole outage) would come again.
    assert.ok(duplicates <= total * 0.02, `${backend}: ${duplicates} of ${total} delivered twice`);
    // Stopped here, while storage is reachable: the after-hooks close the proxy first, and a stop with storage
    // gone waits out its final checkpoint's and releases' timeouts (some 20 s).
    await Promise.all([a.shutdown(), b.shutdown()]);
  }

  await Promise.all(BACKENDS.map((backend) => run(backend)));
});
