/**
 * Failover time of receiver processes after a graceful stop (SIGTERM) and after a crash (kill -9): the
 * time from the signal until every partition the victim owned has been opened by another instance
 * (`partitionOpened` status, timestamped in the child). A fleet of 3 receivers (child processes, the
 * fleet helpers) shares 12 partitions through blob leases in Azurite (lease 15 s), with continuous
 * production; each run stops or crashes one instance, then starts a replacement and waits for 4/4/4
 * again. Done for ownership update intervals of 5 s (the default) and 1 s (BENCH_FAILOVER_INTERVALS, in ms,
 * comma-separated). BENCH_FAILOVER_RUNS runs of each kind per interval (default 3). Each signal comes at a
 * random moment of the balancing cycle, as real stops do: sent right after the fleet settled, it would
 * always fall just after a round. For graceful stops the bench also reports the unread gap: per partition,
 * from the victim's `partitionClosed` to its `partitionOpened` elsewhere (the time nobody reads it).
 */
import { BlobServiceClient } from '@azure/storage-blob';
import { startEmulator } from '../../src/emulator/index.ts';
import { startAzurite, randomName } from '../helpers/azurite.ts';
import { Instance, waitUntil } from '../helpers/fleet.ts';

const PARTITIONS = 12;
const INSTANCES = 3;
const LEASE_DURATION_MS = 15_000;
const UPDATE_INTERVALS_MS = (process.env.BENCH_FAILOVER_INTERVALS ?? '5000,1000').split(',').map(Number);
const RUNS = Number(process.env.BENCH_FAILOVER_RUNS ?? 3);
/** `graceful,crash` (default) alternates the two; one kind alone runs only that kind, RUNS times. */
const KINDS = (process.env.BENCH_FAILOVER_KINDS ?? 'graceful,crash').split(',') as Array<'graceful' | 'crash'>;
const PRODUCE_TICK_MS = 100;
/** Longest wait for a fleet to settle at its fair share: a replacement claims one partition per round. */
const balanceTimeoutMs = (updateMs: number): number => 120_000 + updateMs * 12;
const takeoverTimeoutMs = (updateMs: number): number => LEASE_DURATION_MS + updateMs * 6 + 30_000;

interface Timing {
  kind: 'graceful' | 'crash';
  updateIntervalMs: number;
  ms: number;
  partitions: number;
  /** Graceful only: from SIGTERM until the victim's last `partitionClosed` (its pumps stopped, before the release). */
  victimClosedMs?: number;
  /** Graceful only: the longest time one of the victim's partitions went unread (closed there → opened elsewhere). */
  gapMs?: number;
}

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

const azurite = await startAzurite();
const hub = randomName('hub');
const emulator = await startEmulator({ port: 0, hubs: [{ name: hub, partitions: PARTITIONS }] });
const producer = setInterval(() => {
  for (let p = 0; p < PARTITIONS; p++) emulator.append(hub, String(p), [{ body: `event at ${Date.now()}` }]);
}, PRODUCE_TICK_MS);
const everyInstance: Instance[] = [];
const timings: Timing[] = [];
try {
  for (const updateMs of UPDATE_INTERVALS_MS) {
    const container = randomName('failover');
    await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(container).create();
    let generation = 0;
    const spawn = (): Instance => {
      const name = `u${updateMs}g${generation++}`;
      const instance = new Instance(name, {
        connection: emulator.connectionString(hub),
        format: 'raw',
        start_position: 'latest',
        poll_rate: 0.2,
        ownership: { lease_duration: LEASE_DURATION_MS, update_interval: updateMs, owner_id: name },
        blob_checkpoint_store: { connection: azurite.connectionString, container_name: container },
      });
      everyInstance.push(instance);
      return instance;
    };
    const fleet: Instance[] = Array.from({ length: INSTANCES }, spawn);
    const balanced = (): boolean =>
      fleet.every((i) => i.owned.size === PARTITIONS / INSTANCES) &&
      new Set(fleet.flatMap((i) => [...i.owned])).size === PARTITIONS;
    await waitUntil(balanced, balanceTimeoutMs(updateMs), `${INSTANCES} instances balanced`, fleet);
    for (let run = 0; run < RUNS * KINDS.length; run++) {
      const kind = KINDS[run % KINDS.length]!;
      const victim = fleet.shift()!;
      const lost = [...victim.owned];
      // A random point of the balancing cycle: the fleet settled right after someone's round.
      await new Promise((r) => setTimeout(r, Math.random() * updateMs));
      const openedAfter = (since: number) => (pid: string) =>
        fleet
          .flatMap((i) => i.statuses)
          .find((s) => s.type === 'partitionOpened' && s.partitionId === pid && (s.at ?? 0) >= since);
      const signalledAt = Date.now();
      if (kind === 'graceful') void victim.stop();
      else void victim.crash();
      await waitUntil(
        () => lost.every((pid) => fleet.some((i) => i.owned.has(pid)) && openedAfter(signalledAt)(pid)),
        takeoverTimeoutMs(updateMs),
        `the partitions of ${victim.name} taken over`,
        fleet,
      );
      const ms = Math.max(...lost.map((pid) => openedAfter(signalledAt)(pid)!.at!)) - signalledAt;
      await victim.exited;
      const closes = victim.statuses
        .filter((s) => s.type === 'partitionClosed' && (s.at ?? 0) >= signalledAt)
        .map((s) => s.at!);
      const victimClosedMs = kind === 'graceful' && closes.length > 0 ? Math.max(...closes) - signalledAt : undefined;
      const closedAt = (pid: string) =>
        victim.statuses.find((s) => s.type === 'partitionClosed' && s.partitionId === pid && (s.at ?? 0) >= signalledAt)
          ?.at;
      const gaps = lost.map((pid) => openedAfter(signalledAt)(pid)!.at! - (closedAt(pid) ?? signalledAt));
      const gapMs = kind === 'graceful' ? Math.max(...gaps) : undefined;
      timings.push({ kind, updateIntervalMs: updateMs, ms, partitions: lost.length, victimClosedMs, gapMs });
      const closedNote =
        victimClosedMs === undefined
          ? ''
          : ` (the victim had closed its partitions after ${(victimClosedMs / 1000).toFixed(2)} s; unread for at ` +
            `most ${(gapMs! / 1000).toFixed(2)} s)`;
      console.log(
        `update ${updateMs / 1000} s, ${kind.padEnd(8)} run ${Math.floor(run / KINDS.length) + 1}: ${lost.length} ` +
          `partitions taken over in ${(ms / 1000).toFixed(2)} s${closedNote}`,
      );
      fleet.push(spawn());
      await waitUntil(balanced, balanceTimeoutMs(updateMs), 'the fleet rebalanced after a replacement joined', fleet);
    }
    await Promise.all(fleet.map((i) => i.stop()));
  }
  const summary = UPDATE_INTERVALS_MS.flatMap((updateMs) =>
    KINDS.map((kind) => {
      const ms = timings.filter((t) => t.kind === kind && t.updateIntervalMs === updateMs).map((t) => t.ms);
      const closed = timings
        .filter((t) => t.kind === kind && t.updateIntervalMs === updateMs && t.victimClosedMs !== undefined)
        .map((t) => t.victimClosedMs!);
      const gaps = timings
        .filter((t) => t.kind === kind && t.updateIntervalMs === updateMs && t.gapMs !== undefined)
        .map((t) => t.gapMs!);
      return {
        kind,
        updateIntervalMs: updateMs,
        leaseDurationMs: LEASE_DURATION_MS,
        runs: ms.length,
        medianMs: median(ms),
        maxMs: Math.max(...ms),
        allMs: ms,
        ...(closed.length > 0 ? { victimClosedMedianMs: median(closed) } : {}),
        ...(gaps.length > 0 ? { unreadGapMedianMs: median(gaps), unreadGapMaxMs: Math.max(...gaps) } : {}),
      };
    }),
  );
  for (const s of summary) {
    const gap =
      'unreadGapMedianMs' in s
        ? `; unread gap median ${(s.unreadGapMedianMs! / 1000).toFixed(2)} s, max ` +
          `${(s.unreadGapMaxMs! / 1000).toFixed(2)} s`
        : '';
    console.log(
      `update ${s.updateIntervalMs / 1000} s, lease ${s.leaseDurationMs / 1000} s, ${s.kind.padEnd(8)}: median ` +
        `${(s.medianMs / 1000).toFixed(2)} s, max ${(s.maxMs / 1000).toFixed(2)} s over ${s.runs} runs${gap}`,
    );
  }
  console.log(`BENCH_RESULT ${JSON.stringify({ instances: INSTANCES, partitions: PARTITIONS, summary })}`);
} finally {
  clearInterval(producer);
  await Promise.all(everyInstance.map((i) => i.crash()));
  await emulator.stop();
  await azurite.stop();
}
