import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  faultScheduleFromEnv,
  startFaultInjector,
  type FaultInjector,
  type FaultKind,
} from '../../helpers/chaos-faults.ts';
import { exportedAll, Instance, startFleetWorld, tally, waitUntil } from '../../helpers/fleet.ts';

/**
 * Seconds of chaos; `CHAOS_SECONDS=600 npm run test:integration` for a long run. The default leaves room
 * for the first actions (a graceful stop, a crash, a restart: see the seed below) and a round of every
 * fault kind (test/helpers/chaos-faults.ts deals each once a round, one every 1-3 s).
 */
const CHAOS_SECONDS = Number(process.env.CHAOS_SECONDS ?? 20);
const PARTITIONS = 16;
const SLOTS = 4;

/**
 * What the drain found missing, per partition, with the faults injected on that partition: a loss that
 * only follows `link-stolen` detaches points at the receiver's handling of a bare ownership-lost detach.
 */
function lossReport(produced: Map<string, number>, counts: Map<string, number>, faults: FaultInjector): string {
  const lines: string[] = [];
  for (const [pid, n] of produced) {
    let missing = 0;
    let first = -1;
    for (let s = 0; s < n; s++) {
      if (counts.has(`${pid}/${s}`)) continue;
      missing++;
      if (first < 0) first = s;
    }
    if (missing === 0) continue;
    const hits = faults.injected.filter((f) => f.affected > 0 && f.partitionIds.includes(pid)).map((f) => f.kind);
    lines.push(
      `partition ${pid}: ${missing} of ${n} missing from ${first}; faults on it: ${hits.join(', ') || 'none'}`,
    );
  }
  return lines.join('\n');
}

test(`chaos: ${SLOTS} instances, ${PARTITIONS} partitions, random kill -9, restart, graceful stop and protocol ` +
  `faults for ${CHAOS_SECONDS} s`, {
  timeout: (CHAOS_SECONDS + 90) * 1000,
}, async (t) => {
  // Continuous production, so that every kill and fault lands mid-stream: 5 events per partition every 500 ms.
  const world = await startFleetWorld(t, PARTITIONS, 5, 500);
  const { emulator, hubName, connectionString, storageConnectionString, container, produced, stopProducing } = world;

  const all: Instance[] = [];
  let generation = 0;
  const spawn = (slot: number) => {
    const name = `s${slot}g${generation++}`;
    const instance = new Instance(name, {
      connection: connectionString,
      format: 'raw',
      start_position: 'earliest',
      poll_rate: 0.2,
      checkpoint: { interval: '1s' },
      ownership: { lease_duration: '15s', update_interval: '1s', owner_id: name },
      blob_checkpoint_store: { connection: storageConnectionString, container_name: container },
    });
    all.push(instance);
    t.after(() => instance.crash());
    return instance;
  };
  // The instances end before the hooks registered earlier (Azurite, the emulator) run, whatever happens:
  // a live fleet would keep reconnecting to an emulator that is stopping.
  try {
    const slots: (Instance | undefined)[] = Array.from({ length: SLOTS }, (_, i) => spawn(i));
    // The seed's first actions are a graceful stop, a crash (once the fleet has settled) and a restart, then
    // two more crashes: a short run has each kind.
    let seed = 5;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const actions = { crash: 0, stop: 0, restart: 0 };
    // Besides the kills and stops: receivers detached with the service's conditions and connections
    // dropped, at random (test/helpers/chaos-faults.ts holds the schedule; CHAOS_FAULTS narrows it).
    const schedule = faultScheduleFromEnv();
    const faults = startFaultInjector(emulator, hubName, PARTITIONS, schedule);
    t.after(() => faults.stop());
    const end = Date.now() + CHAOS_SECONDS * 1000;
    while (Date.now() < end) {
      await new Promise((r) => setTimeout(r, 2_000 + random() * 2_000));
      const slot = Math.floor(random() * SLOTS);
      const current = slots[slot];
      if (!current) {
        slots[slot] = spawn(slot);
        actions.restart++;
      } else if (slots.filter(Boolean).length > 1) {
        if (random() < 0.5) {
          await current.crash();
          actions.crash++;
        } else {
          await current.stop();
          actions.stop++;
        }
        slots[slot] = undefined;
      }
    }
    // Stop the faults, bring every slot back, stop producing, and let the fleet drain.
    await faults.stop();
    for (let s = 0; s < SLOTS; s++) slots[s] ??= spawn(s);
    stopProducing();
    const total = [...produced.values()].reduce((x, y) => x + y, 0);
    const injected = JSON.stringify(faults.counts());
    try {
      await waitUntil(
        () => exportedAll(all, total),
        60_000,
        'every produced event exported at least once',
        slots.filter((s): s is Instance => !!s),
      );
    } catch (err) {
      const report = lossReport(produced, tally(all), faults);
      throw new Error(`${(err as Error).message}\nfaults that hit a reader: ${injected}\n${report}`, { cause: err });
    }
    await Promise.all(slots.map((s) => s?.stop()));

    const counts = tally(all);
    for (const [pid, n] of produced)
      for (let s = 0; s < n; s++) assert.ok(counts.has(`${pid}/${s}`), `event ${pid}/${s} was lost`);
    const duplicates = [...counts.values()].reduce((sum, n) => sum + (n - 1), 0);
    t.diagnostic(
      `chaos: ${total} events, ${actions.crash} crashes, ${actions.stop} graceful stops, ${actions.restart} ` +
        `restarts; ${duplicates} duplicate deliveries (${((100 * duplicates) / total).toFixed(2)}%)`,
    );
    t.diagnostic(`chaos faults that hit a reader: ${injected} (${faults.injected.length} injected)`);
    assert.deepEqual(emulator.audit.overlaps(), [], 'never two readers on one partition');
    // What the test's name claims happened: each kind of action, and each fault kind of the schedule.
    for (const [action, n] of Object.entries(actions)) assert.ok(n > 0, `no ${action} in ${CHAOS_SECONDS} s of chaos`);
    const dealt = new Set(faults.injected.map((f) => f.kind));
    for (const kind of Object.keys(schedule.weights) as FaultKind[])
      assert.ok(dealt.has(kind), `no ${kind} fault injected in ${CHAOS_SECONDS} s of chaos`);
  } finally {
    await Promise.all(all.map((i) => i.crash()));
  }
});
