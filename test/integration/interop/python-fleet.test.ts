/**
 * A mixed fleet over one hub and one checkpoint container: the Azure SDK for Python's event processor
 * (azure-eventhub 5.11.0, EventHubConsumerClient + asyncio BlobCheckpointStore, ETag claims, owner level 0)
 * and our receiver (blob leases, owner level ≥ 1), started in both orders, under a steady producer.
 * Skipped, with the packages to install, when the system Python lacks the SDK.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { Instance, waitUntil } from '../../helpers/fleet.ts';
import { PythonProcessor, SKIP, startPythonWorld } from './python-world.ts';

const PARTITIONS = 4;
/** The Python processor's load-balancing interval and ownership expiry, in seconds (its defaults: 10 and 60). */
const LB_SECONDS = 1;
const EXPIRY_SECONDS = 6;
/** How long the Python processor is watched beside ours, for its refused attempts. */
const WATCH_MS = 10_000;

async function mixedWorld(t: TestContext) {
  const ours: Instance[] = [];
  const pythons: PythonProcessor[] = [];
  t.after(() => Promise.all([...ours, ...pythons].map((c) => c.crash())));
  const world = await startPythonWorld(t, { partitions: PARTITIONS, storage: true });
  const produced = new Map<string, number>();
  const producer = setInterval(() => {
    for (let p = 0; p < PARTITIONS; p++) {
      const pid = String(p);
      const n = produced.get(pid) ?? 0;
      world.emulator.append(world.hubName, pid, [{ body: `p${pid}-${n}` }]);
      produced.set(pid, n + 1);
    }
  }, 100);
  t.after(() => clearInterval(producer));
  const spawnOurs = (name: string) => {
    const i = new Instance(name, {
      connection: world.connectionString,
      format: 'raw',
      start_position: 'earliest',
      poll_rate: 0.2,
      checkpoint: { interval: '1s' },
      ownership: { update_interval: '1s', owner_id: name, foreign_ownership_expiry: `${EXPIRY_SECONDS}s` },
      blob_checkpoint_store: { connection: world.storage!.connectionString, container_name: world.storage!.container },
    });
    ours.push(i);
    return i;
  };
  const startPython = (name: string) => {
    const p = new PythonProcessor(name, world, {
      PROCESSOR_LB_SECONDS: String(LB_SECONDS),
      PROCESSOR_EXPIRY_SECONDS: String(EXPIRY_SECONDS),
    });
    pythons.push(p);
    return p;
  };
  const describe = () => [...ours, ...pythons].map((x) => `${x.name}: [${[...x.owned]}]`).join('; ');
  /**
   * Stops the producer, waits until every event was read and stops everyone; then nothing lost, and at most
   * `maxDuplicatesPerPartition` events of a partition read twice.
   */
  const drainAndCheck = async (maxDuplicatesPerPartition: number) => {
    clearInterval(producer);
    const total = [...produced.values()].reduce((a, b) => a + b, 0);
    const counts = () => {
      const c = new Map<string, number>();
      for (const [pid, seq] of [...ours.flatMap((i) => i.records), ...pythons.flatMap((p) => p.records)]) {
        c.set(`${pid}/${seq}`, (c.get(`${pid}/${seq}`) ?? 0) + 1);
      }
      return c;
    };
    await waitUntil(
      () => counts().size === total,
      60_000,
      () => `all ${total} events read (${describe()})`,
      ours,
    );
    await Promise.all([...ours, ...pythons].map((c) => c.stop()));
    const c = counts();
    const lost = [...produced]
      .flatMap(([pid, n]) => Array.from({ length: n }, (_, s) => `${pid}/${s}`))
      .filter((k) => !c.has(k));
    const duplicated = [...c].filter(([, n]) => n > 1).map(([k, n]) => `${k}×${n}`);
    t.diagnostic(
      `${total} events: ${lost.length} lost, ${duplicated.length} read twice ${duplicated.slice(0, 10).join(' ')}`,
    );
    assert.deepEqual(lost, [], 'no event lost');
    const perPartition = new Map<string, number>();
    for (const [k, n] of c)
      if (n > 1) perPartition.set(k.split('/')[0]!, (perPartition.get(k.split('/')[0]!) ?? 0) + n - 1);
    for (const [pid, n] of perPartition)
      assert.ok(n <= maxDuplicatesPerPartition, `partition ${pid}: ${n} read twice (${duplicated.join(' ')})`);
    assert.deepEqual(world.emulator.audit.overlaps(), [], 'never two readers on a partition at once');
  };
  /** Accepted receiver links per side: ours attach with an owner level ≥ 1, the Python processor with 0. */
  const attaches = () => {
    const records = world.emulator.audit.records;
    return {
      ours: records.filter((r) => (r.epoch ?? 0) >= 1).length,
      python: records.filter((r) => r.epoch === 0).length,
    };
  };
  return { world, ours, pythons, spawnOurs, startPython, describe, drainAndCheck, attaches };
}

test('mixed fleet, Python processor first: ours stands by beside it, takes over from its checkpoints when it stops', {
  skip: SKIP,
  timeout: 120_000,
}, async (t) => {
  const f = await mixedWorld(t);
  const python = f.startPython('python');
  await waitUntil(
    () => python.owned.size === PARTITIONS,
    60_000,
    () => `the Python processor owns every partition (${python.stderr})`,
  );

  const ours = f.spawnOurs('ours');
  const foreignAll = () =>
    ours.statuses.findIndex(
      (s) =>
        s.type === 'foreignOwners' &&
        Object.keys((s as { partitions?: object }).partitions ?? {}).length === PARTITIONS,
    );
  const standbyRounds = () => ours.statuses.slice(Math.max(0, foreignAll())).filter((s) => s.type === 'standby').length;
  await waitUntil(
    () => foreignAll() >= 0 && standbyRounds() >= 2,
    60_000,
    () => `two standby rounds of ours (${f.describe()})`,
    [ours],
  );
  assert.equal(ours.owned.size, 0, 'ours claimed nothing the Python processor holds');
  assert.equal(python.owned.size, PARTITIONS, 'the Python processor still reads every partition');

  const stoppedAt = Date.now();
  await python.stop();
  await waitUntil(
    () => ours.owned.size === PARTITIONS,
    30_000,
    () => `ours reads every partition (${f.describe()})`,
    [ours],
  );
  t.diagnostic(`ours read every partition ${Date.now() - stoppedAt} ms after the Python processor began to stop`);
  // The Python processor's close cancels its partition tasks, also a handler awaiting its checkpoint: the
  // batch in hand is read again by ours. At most one Python batch (max_batch_size 50) per partition.
  await f.drainAndCheck(50);
  const { ours: ourAttaches, python: pythonAttaches } = f.attaches();
  t.diagnostic(`accepted attaches: ours ${ourAttaches}, Python ${pythonAttaches}`);
  assert.equal(ourAttaches, PARTITIONS, 'one reader of ours per partition: no reconnect loop');
  assert.equal(pythonAttaches, PARTITIONS, 'one Python reader per partition: no reconnect loop');
});

test('mixed fleet, ours first: the Python processor cannot take our leased partitions, then takes over from our ' +
  'checkpoints', {
  skip: SKIP,
  timeout: 120_000,
}, async (t) => {
  const f = await mixedWorld(t);
  const ours = f.spawnOurs('ours');
  await waitUntil(
    () => ours.owned.size === PARTITIONS,
    60_000,
    () => `ours reads every partition (${f.describe()})`,
    [ours],
  );

  // The Python processor joins. Our claims are leases: its ETag claim (set metadata, If-Match) on a leased
  // blob is refused with 412 LeaseIdMissing, which its BlobCheckpointStore 5.11 does not count as a lost
  // claim (only ResourceModifiedError/ResourceExistsError are): it keeps the claim and starts a reader with
  // owner level 0, which the hub refuses beside ours (owner level ≥ 1). Measured over WATCH_MS.
  const python = f.startPython('python');
  const joinedAt = Date.now();
  await new Promise((resolve) => setTimeout(resolve, WATCH_MS));
  const window = python.lines.filter((l) => l.at >= joinedAt);
  const attempts = window.filter((l) => l.t === 'open').length;
  const errors = window.filter((l) => l.t === 'err');
  const perMinute = Math.round((attempts * 60_000) / WATCH_MS);
  t.diagnostic(
    `Python processor beside ours for ${WATCH_MS} ms (load balancing every ${LB_SECONDS} s, expiry ` +
      `${EXPIRY_SECONDS} s): ` +
      `${attempts} readers started and refused (${perMinute} per minute for ${PARTITIONS} partitions), errors: ` +
      `${[...new Set(errors.map((e) => `${e.type}: ${String(e.message).split('\n')[0]}`))].join(' | ')}`,
  );
  assert.equal(python.records.length, 0, 'the Python processor read nothing of ours');
  assert.equal(ours.owned.size, PARTITIONS, 'ours still reads every partition');
  const before = f.attaches();
  assert.equal(before.ours, PARTITIONS, 'our readers were never displaced or reopened');
  assert.equal(before.python, 0, 'no Python reader was accepted');

  // Ours stops gracefully (final checkpoints, ownerid cleared, leases released): the Python processor goes on.
  const stoppedAt = Date.now();
  await ours.stop();
  await waitUntil(
    () => python.owned.size === PARTITIONS && f.attaches().python >= PARTITIONS,
    60_000,
    () => `the Python processor reads every partition (${f.describe()}; ${python.stderr.slice(-500)})`,
  );
  t.diagnostic(`the Python processor read every partition ${Date.now() - stoppedAt} ms after ours began to stop`);
  // Our final checkpoint is stored before our link closes, and the Python reader can only start after that.
  // But a Python round that read the checkpoints before our final one and attaches after our link closed
  // (its round reads them, then opens the reader: a window of a few hundred ms, every round, since its claims
  // are kept) reads again what came since our previous checkpoint: at most one checkpoint interval (1 s,
  // 10 events here; 20 allowed for a late batch).
  await f.drainAndCheck(20);
});
