import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Instance, startFleetWorld, tally, waitUntil } from '../../helpers/fleet.ts';

/** Seconds of chaos; `CHAOS_SECONDS=600 npm run test:integration` for a long run. */
const CHAOS_SECONDS = Number(process.env.CHAOS_SECONDS ?? 30);
const PARTITIONS = 16;
const SLOTS = 4;

test(`chaos: ${SLOTS} instances, ${PARTITIONS} partitions, random kill -9, restart and graceful stop for ${CHAOS_SECONDS} s`, { timeout: (CHAOS_SECONDS + 90) * 1000 }, async (t) => {
  // Continuous production: 3 events per partition every 100 ms.
  const { emulator, connectionString, storageConnectionString, container, produced, stopProducing } = await startFleetWorld(t, PARTITIONS, 3);

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
  const slots: (Instance | undefined)[] = Array.from({ length: SLOTS }, (_, i) => spawn(i));
  let seed = 42;
  const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31);
  const actions = { crash: 0, stop: 0, restart: 0 };
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
  // Bring every slot back, stop producing, and let the fleet drain.
  for (let s = 0; s < SLOTS; s++) slots[s] ??= spawn(s);
  stopProducing();
  const total = [...produced.values()].reduce((x, y) => x + y, 0);
  await waitUntil(() => tally(all).size === total, 60_000, 'every produced event exported at least once', slots.filter((s): s is Instance => !!s));
  await Promise.all(slots.map((s) => s?.stop()));

  const counts = tally(all);
  for (const [pid, n] of produced) for (let s = 0; s < n; s++) assert.ok(counts.has(`${pid}/${s}`), `event ${pid}/${s} was lost`);
  const duplicates = [...counts.values()].reduce((sum, n) => sum + (n - 1), 0);
  t.diagnostic(`chaos: ${total} events, ${actions.crash} crashes, ${actions.stop} graceful stops, ${actions.restart} restarts; ${duplicates} duplicate deliveries (${((100 * duplicates) / total).toFixed(2)}%)`);
  assert.deepEqual(emulator.audit.overlaps(), [], 'never two readers on one partition');
});
