/**
 * 1024 partitions over 8 receiver processes (issue 14): time to balance from a cold start, storage
 * operations per minute per partition in steady state, idle RSS per owned partition, and failover after a
 * kill -9. The emulator (tier `dedicated`) serves one hub of 1024 partitions; Azurite sits behind a
 * counting proxy, so every storage request the fleet makes is counted and classified where it arrives.
 * Azurite and the proxy each run in a child process of their own: storage does not share the bench's event
 * loop with the emulator's AMQP links.
 * Receivers are child processes (test/helpers/fleet.ts) with blob leases, default ownership and
 * checkpoint settings, and the default `hub_lag_interval`. Per strategy (`balanced`, `greedy`):
 *   1. cold start: 8 instances spawned at once on an empty container; balanced = all 1024 partitions
 *      opened and every instance at its fair share ±1 (127 to 129);
 *   2. idle window (nothing produced): storage requests by kind, RSS of every instance and of two baseline
 *      instances that own one partition each: one of the same hub (consumer group `baseline`, a container of
 *      its own where a foreign processor claims every other partition: the same ownership listings and hub
 *      lag as a fleet instance), the figure per owned partition; and, as earlier releases measured it, one
 *      of a 1-partition hub (which also leaves out what the hub's size costs every instance);
 *   3. steady window: one event per partition per second (BENCH_SCALE_PRODUCE_EVERY_MS), so that every
 *      checkpoint interval has progress;
 *   4. kill -9 of the instance owning most: time until each of its partitions is opened by a survivor and
 *      until a survivor acknowledged a record of it.
 * A strategy that is not balanced within BENCH_SCALE_BALANCE_SECONDS (150) reports how many partitions it
 * had opened every 15 s and skips phases 2 to 4 (`balanced` claims one partition per round: at 1024
 * partitions it needs 128 rounds per instance).
 * Env: BENCH_SCALE_STRATEGIES (default "greedy,balanced"), BENCH_SCALE_IDLE_SECONDS (30: one hub-lag interval),
 * BENCH_SCALE_STEADY_SECONDS (45), BENCH_SCALE_INSTANCES (8), BENCH_SCALE_PARTITIONS (1024), BENCH_SCALE_BACKEND
 * (polling), BENCH_SCALE_RECEIVER (JSON merged into every instance's receiver config, e.g.
 * '{"checkpoint":{"interval":"10s"}}'; default none).
 */
import { BlobServiceClient } from '@azure/storage-blob';
import { containerWithForeignClaims, namespaceOf } from './internal/foreign-claims.ts';
import { startEmulator } from '../../src/emulator/index.ts';
import { startAzurite, randomName, AZURITE_ACCOUNT, AZURITE_KEY } from '../helpers/azurite.ts';
import { Instance, waitUntil } from '../helpers/fleet.ts';
import type { SeenRequest } from './internal/counting-proxy.ts';
import { startCountingProxyProcess, type RemoteCountingProxy } from './internal/counting-proxy-process.ts';
import { readRss, mib } from './internal/child-rss.ts';
import { parseDurationMs } from '../../src/component/duration.ts';
import {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_UPDATE_INTERVAL_MS,
} from '../../src/ownership/internal/coordinator-timings.ts';

const PARTITIONS = Number(process.env.BENCH_SCALE_PARTITIONS ?? 1024);
const INSTANCES = Number(process.env.BENCH_SCALE_INSTANCES ?? 8);
const STRATEGIES = (process.env.BENCH_SCALE_STRATEGIES ?? 'greedy,balanced').split(',') as Array<'balanced' | 'greedy'>;
const IDLE_SECONDS = Number(process.env.BENCH_SCALE_IDLE_SECONDS ?? 30);
const STEADY_SECONDS = Number(process.env.BENCH_SCALE_STEADY_SECONDS ?? 45);
/** A strategy not balanced by then is reported with its progress, and its later phases are skipped. */
const BALANCE_TIMEOUT_MS = Number(process.env.BENCH_SCALE_BALANCE_SECONDS ?? 150) * 1000;
const PROGRESS_EVERY_MS = 15_000;
const FAILOVER_TIMEOUT_MS = 120_000;
const RSS_SAMPLE_MS = 2_000;
const BACKEND = (process.env.BENCH_SCALE_BACKEND ?? 'polling') as 'polling' | 'streaming';
/** Settings merged into every instance's config (top-level keys replace the bench's own). */
const RECEIVER_OVERRIDES = JSON.parse(process.env.BENCH_SCALE_RECEIVER ?? '{}') as Record<string, unknown>;
/** One event per partition this often, in the steady window: at most the checkpoint interval, so each has progress. */
const PRODUCE_TICK_MS = Number(process.env.BENCH_SCALE_PRODUCE_EVERY_MS ?? 1_000);
type DurationSetting = string | number;
const ownershipOverrides = (RECEIVER_OVERRIDES.ownership ?? {}) as {
  lease_duration?: DurationSetting;
  update_interval?: DurationSetting;
};
/** The crash failover bound is the lease duration plus one update interval (docs/ownership.md). */
const LEASE_MS =
  parseDurationMs(ownershipOverrides.lease_duration ?? DEFAULT_LEASE_DURATION_MS) ?? DEFAULT_LEASE_DURATION_MS;
const UPDATE_MS =
  parseDurationMs(ownershipOverrides.update_interval ?? DEFAULT_UPDATE_INTERVAL_MS) ?? DEFAULT_UPDATE_INTERVAL_MS;
const KIB = 1024;

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const round1 = (x: number): number => Math.round(x * 10) / 10;

/** What a storage request is for, from its path, `comp` and lease action. */
function kindOf(r: SeenRequest): string {
  const area = r.path.includes('/ownership/')
    ? 'ownership'
    : r.path.includes('/checkpoint/')
      ? 'checkpoint'
      : r.path.includes('/members/')
        ? 'membership'
        : 'container';
  if (r.comp === 'list') return 'list';
  if (r.comp === 'lease') return `${area} lease ${r.leaseAction || '?'}`;
  if (r.comp === 'metadata') return `${area} ${r.method === 'PUT' ? 'metadata write' : 'metadata read'}`;
  if (r.method === 'HEAD' || r.method === 'GET') return `${area} read`;
  if (r.method === 'PUT') return `${area} create`;
  return `${area} ${r.method}`;
}

function tallyKinds(requests: readonly SeenRequest[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const r of requests) out[kindOf(r)] = (out[kindOf(r)] ?? 0) + 1;
  return Object.fromEntries(Object.entries(out).sort((a, b) => b[1] - a[1]));
}

interface StorageWindow {
  seconds: number;
  requests: number;
  perPartitionPerMinute: number;
  byKindPerPartitionPerMinute: Record<string, number>;
  renewLatency: LatencySummary;
}

interface LatencySummary {
  medianMs: number;
  p95Ms: number;
  maxMs: number;
}

/** Latency of the partition lease renewals among `requests`, as the proxy saw them (arrival to response). */
function renewLatency(requests: readonly SeenRequest[]): LatencySummary {
  const ms = requests
    .filter((r) => kindOf(r) === 'ownership lease renew' && r.latencyMs !== undefined)
    .map((r) => r.latencyMs!)
    .sort((a, b) => a - b);
  const at = (q: number): number => Math.round(ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] ?? NaN);
  return { medianMs: at(0.5), p95Ms: at(0.95), maxMs: at(1) };
}

/** Counts the storage requests that arrive during `seconds`, while `during` runs. */
async function storageWindow(
  proxy: RemoteCountingProxy,
  seconds: number,
  during?: () => Promise<void>,
): Promise<StorageWindow> {
  const from = await proxy.length();
  const started = performance.now();
  await Promise.all([sleep(seconds * 1000), during?.()]);
  const elapsed = (performance.now() - started) / 1000;
  const window = await proxy.since(from);
  const perPartitionPerMinute = (n: number): number => round1((n / PARTITIONS / elapsed) * 60);
  return {
    seconds: round1(elapsed),
    requests: window.length,
    perPartitionPerMinute: perPartitionPerMinute(window.length),
    byKindPerPartitionPerMinute: Object.fromEntries(
      Object.entries(tallyKinds(window)).map(([k, n]) => [k, perPartitionPerMinute(n)]),
    ),
    renewLatency: renewLatency(window),
  };
}

// Each instance reports its event-loop delay every 5 s (receiver-process.ts): a starved loop sends renewals late.
process.env.RECEIVER_LOOP_DELAY_MS = '5000';
const azurite = await startAzurite();
// Azurite is a child process already; the proxy gets one of its own, away from the emulator's event loop.
const proxy = await startCountingProxyProcess(azurite.port);
const storage =
  `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};` +
  `BlobEndpoint=http://127.0.0.1:${proxy.port}/${AZURITE_ACCOUNT};`;
const hub = randomName('scale');
const baselineHub = randomName('baseline');
/**
 * The same-hub baseline reads in a consumer group of its own: in the fleet's group its epoch receiver on
 * partition 0 would steal the link of the fleet instance that owns it (and be stolen back).
 */
const BASELINE_GROUP = 'baseline';
const emulator = await startEmulator({
  port: 0,
  tier: 'dedicated',
  consumerGroups: [BASELINE_GROUP],
  hubs: [
    { name: hub, partitions: PARTITIONS },
    { name: baselineHub, partitions: 1 },
  ],
});
let producing = false;
const producer = setInterval(() => {
  if (!producing) return;
  for (let p = 0; p < PARTITIONS; p++) emulator.append(hub, String(p), [{ body: `event at ${Date.now()}` }]);
  emulator.append(baselineHub, '0', [{ body: `event at ${Date.now()}` }]);
}, PRODUCE_TICK_MS);
const everyInstance: Instance[] = [];
const results: unknown[] = [];

async function newContainer(prefix: string): Promise<string> {
  const name = randomName(prefix);
  await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(name).create();
  return name;
}

/** What a baseline instance changes: its consumer group, its storage (Azurite direct), ownership settings. */
interface BaselineSettings {
  readonly group: string;
  readonly storage: string;
  readonly ownership: Record<string, unknown>;
}

function spawnInstance(
  name: string,
  hubName: string,
  container: string,
  strategy: 'balanced' | 'greedy',
  baseline?: BaselineSettings,
): Instance {
  const instance = new Instance(name, {
    connection: emulator.connectionString(hubName),
    ...(baseline ? { group: baseline.group } : {}),
    format: 'raw',
    backend: BACKEND,
    start_position: 'latest',
    blob_checkpoint_store: { connection: baseline?.storage ?? storage, container_name: container },
    ...RECEIVER_OVERRIDES,
    ownership: { owner_id: name, strategy, ...(RECEIVER_OVERRIDES.ownership ?? {}), ...(baseline?.ownership ?? {}) },
  });
  everyInstance.push(instance);
  return instance;
}

try {
  // The baselines talk to Azurite directly: the proxy counts the fleet's storage requests only.
  const direct = { storage: azurite.connectionString, ownership: {} };
  const oneHubBaseline = spawnInstance('baseline-1p-hub', baselineHub, await newContainer('baseline'), 'balanced', {
    ...direct,
    group: '$Default',
  });
  const sameHubContainer = await containerWithForeignClaims({
    storageConnection: azurite.connectionString,
    fullyQualifiedNamespace: await namespaceOf(emulator.connectionString(hub)),
    hub,
    consumerGroup: BASELINE_GROUP,
    hubPartitions: PARTITIONS,
    owned: 1,
    namePrefix: 'baseline-same-hub',
  });
  // The foreign claims are written once: they must count as held for the whole bench.
  const baseline = spawnInstance('baseline', hub, sameHubContainer, 'balanced', {
    ...direct,
    group: BASELINE_GROUP,
    ownership: { foreign_ownership_expiry: '24h' },
  });
  await waitUntil(
    () => baseline.owned.size === 1 && oneHubBaseline.owned.size === 1,
    60_000,
    'the baseline instances to open their partition',
    [baseline, oneHubBaseline],
  );

  for (const strategy of STRATEGIES) {
    producing = false;
    const container = await newContainer(`scale-${strategy}`);
    const fair = PARTITIONS / INSTANCES;
    const spawnedAt = Date.now();
    const fleet = Array.from({ length: INSTANCES }, (_, i) =>
      spawnInstance(`${strategy}-${i}`, hub, container, strategy),
    );
    const coldRequestsFrom = await proxy.length();
    const allOwned = (): boolean => new Set(fleet.flatMap((i) => [...i.owned])).size === PARTITIONS;
    const isBalanced = (): boolean => allOwned() && fleet.every((i) => Math.abs(i.owned.size - fair) <= 1);
    let firstOwnedAt: number | undefined;
    const progress: Array<{ atMs: number; opened: number }> = [];
    let nextProgressAt = spawnedAt + PROGRESS_EVERY_MS;
    while (!isBalanced() && Date.now() - spawnedAt < BALANCE_TIMEOUT_MS) {
      if (firstOwnedAt === undefined && fleet.some((i) => i.owned.size > 0)) firstOwnedAt = Date.now();
      if (Date.now() >= nextProgressAt) {
        progress.push({ atMs: Date.now() - spawnedAt, opened: new Set(fleet.flatMap((i) => [...i.owned])).size });
        nextProgressAt += PROGRESS_EVERY_MS;
      }
      await sleep(25);
    }
    const balanceMs = Date.now() - spawnedAt;
    const coldSeen = await proxy.since(coldRequestsFrom);
    const coldRequests = coldSeen.length;
    const coldKinds = tallyKinds(coldSeen);
    const coldRenewLatency = renewLatency(coldSeen);
    const closed: Record<string, number> = {};
    for (const s of fleet.flatMap((i) => i.statuses)) {
      if (s.type === 'partitionClosed') closed[s.reason ?? '?'] = (closed[s.reason ?? '?'] ?? 0) + 1;
    }
    const loopDelays = fleet.map((i) => {
      const d = i.statuses.filter((st) => st.type === 'loopDelay') as unknown as Array<{ p99: number; max: number }>;
      return { p99: Math.max(0, ...d.map((x) => x.p99)), max: Math.max(0, ...d.map((x) => x.max)) };
    });
    const coldLoopDelay = {
      worstP99Ms: Math.max(...loopDelays.map((d) => d.p99)),
      maxMs: Math.max(...loopDelays.map((d) => d.max)),
      perInstanceMaxMs: loopDelays.map((d) => d.max),
    };
    const coldLine =
      `event-loop delay in the instances (worst 5 s p99 ${coldLoopDelay.worstP99Ms} ms, max per instance ` +
      `${coldLoopDelay.perInstanceMaxMs.join('/')} ms); partitions closed meanwhile, by reason: ` +
      `${JSON.stringify(closed)}; storage requests ${JSON.stringify(coldKinds)}; ` +
      `lease renewal latency at the proxy: median ${coldRenewLatency.medianMs} ms, p95 ${coldRenewLatency.p95Ms} ms,` +
      ` max ${coldRenewLatency.maxMs} ms`;
    if (!isBalanced()) {
      const opened = new Set(fleet.flatMap((i) => [...i.owned])).size;
      console.log(
        `${strategy}: NOT balanced after ${(balanceMs / 1000).toFixed(0)} s: ${opened} of ${PARTITIONS} partitions ` +
          `opened, shares ${fleet.map((i) => i.owned.size).join('/')}; ` +
          `opened over time ${progress.map((p) => `${Math.round(p.atMs / 1000)} s: ${p.opened}`).join(', ')}; ` +
          `${coldRequests} storage requests`,
      );
      console.log(`${strategy}: ${coldLine}`);
      results.push({
        strategy,
        balanced: false,
        afterMs: balanceMs,
        opened,
        progress,
        closed,
        coldStorageRequests: coldRequests,
        coldKinds,
        coldRenewLatency,
        coldLoopDelay,
      });
      await Promise.all(fleet.map((i) => i.crash()));
      continue;
    }
    console.log(
      `${strategy}: balanced ${(balanceMs / 1000).toFixed(1)} s after spawning ${INSTANCES} processes ` +
        `(the first partition opened after ${(((firstOwnedAt ?? spawnedAt) - spawnedAt) / 1000).toFixed(1)} s: ` +
        `process start + the first round's delay); ` +
        `${coldRequests} storage requests to get there; shares ${fleet.map((i) => i.owned.size).join('/')}`,
    );
    console.log(`${strategy}: cold start: ${coldLine}`);

    // Idle: nothing produced. RSS sampled over the window, storage counted.
    const rss = new Map<string, number[]>([baseline, oneHubBaseline, ...fleet].map((i) => [i.name, []]));
    const sampleRss = async (): Promise<void> => {
      const end = Date.now() + IDLE_SECONDS * 1000 - RSS_SAMPLE_MS;
      while (Date.now() < end) {
        for (const i of [baseline, oneHubBaseline, ...fleet]) {
          const r = readRss(i.child.pid!);
          if (r) rss.get(i.name)!.push(r.rssBytes);
        }
        await sleep(RSS_SAMPLE_MS);
      }
    };
    const idle = await storageWindow(proxy, IDLE_SECONDS, sampleRss);
    // A baseline that took more than its one partition (the foreign claims not seen) would measure nothing.
    if (baseline.owned.size !== 1 || oneHubBaseline.owned.size !== 1) {
      throw new Error(
        `the baselines own ${baseline.owned.size} and ${oneHubBaseline.owned.size} partitions, not 1 each`,
      );
    }
    const baselineRss = median(rss.get(baseline.name)!);
    const oneHubBaselineRss = median(rss.get(oneHubBaseline.name)!);
    const perPartitionKiB = (base: number): number[] =>
      fleet.map((i) => (median(rss.get(i.name)!) - base) / (i.owned.size - 1) / KIB);
    const sameHubKiB = perPartitionKiB(baselineRss);
    const oneHubKiB = perPartitionKiB(oneHubBaselineRss);
    const kibRange = (xs: number[]): string =>
      `${Math.round(median(xs))} KiB (range ${Math.round(Math.min(...xs))}–${Math.round(Math.max(...xs))})`;
    const instanceRssMiB = fleet.map((i) => mib(median(rss.get(i.name)!)));
    console.log(
      `${strategy}: idle ${idle.perPartitionPerMinute} storage ops/partition/min over ${idle.seconds} s ` +
        `${JSON.stringify(idle.byKindPerPartitionPerMinute)}`,
    );
    console.log(
      `${strategy}: idle RSS per instance ${instanceRssMiB.join('/')} MiB; baseline owning 1 partition of the same ` +
        `hub ` +
        `${mib(baselineRss)} MiB: ${kibRange(sameHubKiB)} per owned partition above it; baseline of a 1-partition ` +
        `hub ` +
        `${mib(oneHubBaselineRss)} MiB (the hub's size not counted out, as earlier releases measured): ` +
        `${kibRange(oneHubKiB)}`,
    );

    // Steady: one event per partition per PRODUCE_TICK_MS.
    producing = true;
    await sleep(2 * PRODUCE_TICK_MS);
    const steady = await storageWindow(proxy, STEADY_SECONDS);
    console.log(
      `${strategy}: steady ${steady.perPartitionPerMinute} storage ops/partition/min over ${steady.seconds} s at 1 ` +
        `event/partition per ${PRODUCE_TICK_MS / 1000} s ` +
        `${JSON.stringify(steady.byKindPerPartitionPerMinute)}; lease renewal latency median ` +
        `${steady.renewLatency.medianMs} ms, ` +
        `p95 ${steady.renewLatency.p95Ms} ms`,
    );

    // Crash: kill -9 the instance owning most; partitions must be opened (and read) by survivors.
    const victim = [...fleet].sort((a, b) => b.owned.size - a.owned.size)[0]!;
    const survivors = fleet.filter((i) => i !== victim);
    const lost = [...victim.owned];
    const killedAt = Date.now();
    await victim.crash();
    const openedAt = (pid: string): number | undefined =>
      survivors
        .flatMap((i) => i.statuses)
        .find((s) => s.type === 'partitionOpened' && s.partitionId === pid && (s.at ?? 0) >= killedAt)?.at;
    const readAt = (pid: string): number | undefined => {
      let first: number | undefined;
      for (const i of survivors)
        for (const [p, , at] of i.records)
          if (p === pid && at >= killedAt && (first === undefined || at < first)) first = at;
      return first;
    };
    // Not a throw on timeout: a fleet too loaded to take the partitions over is a result, reported with why.
    const within = (cond: () => boolean): Promise<boolean> =>
      waitUntil(cond, FAILOVER_TIMEOUT_MS, '').then(
        () => true,
        () => false,
      );
    const reopenedInTime = await within(() => lost.every((pid) => openedAt(pid) !== undefined));
    const readInTime = reopenedInTime && (await within(() => lost.every((pid) => readAt(pid) !== undefined)));
    const reopened = lost.filter((pid) => openedAt(pid) !== undefined);
    const openedMs = reopenedInTime ? Math.max(...lost.map((pid) => openedAt(pid)!)) - killedAt : undefined;
    const readMs = readInTime ? Math.max(...lost.map((pid) => readAt(pid)!)) - killedAt : undefined;
    const firstOpenedMs =
      reopened.length > 0 ? Math.min(...reopened.map((pid) => openedAt(pid)!)) - killedAt : undefined;
    const closedSinceKill: Record<string, number> = {};
    for (const st of survivors.flatMap((i) => i.statuses)) {
      if (st.type !== 'partitionClosed' || (st.at ?? 0) < killedAt) continue;
      closedSinceKill[st.reason ?? '?'] = (closedSinceKill[st.reason ?? '?'] ?? 0) + 1;
    }
    const secs = (ms: number | undefined): string =>
      ms === undefined ? 'not within the timeout' : `after ${(ms / 1000).toFixed(1)} s`;
    console.log(
      `${strategy}: kill -9 of ${victim.name} (${lost.length} partitions): first reopened ${secs(firstOpenedMs)}, ` +
        `all reopened ${secs(openedMs)} (${reopened.length} of ${lost.length}), all read again ${secs(readMs)} ` +
        `(lease ${LEASE_MS / 1000} s + update ${UPDATE_MS / 1000} s = ${(LEASE_MS + UPDATE_MS) / 1000} s bound); ` +
        `survivors' partitions ` +
        `closed since the kill, by reason: ${JSON.stringify(closedSinceKill)}; shares now ` +
        `${survivors.map((i) => i.owned.size).join('/')}`,
    );
    results.push({
      strategy,
      balanced: true,
      balanceMs,
      progress,
      firstOpenedMs: (firstOwnedAt ?? spawnedAt) - spawnedAt,
      coldStorageRequests: coldRequests,
      coldKinds,
      coldRenewLatency,
      coldLoopDelay,
      closedDuringColdStart: closed,
      idle,
      steady,
      idleRss: {
        instanceMiB: instanceRssMiB,
        sameHubBaselineMiB: mib(baselineRss),
        perOwnedPartitionKiBMedian: Math.round(median(sameHubKiB)),
        onePartitionHubBaselineMiB: mib(oneHubBaselineRss),
        perOwnedPartitionKiBMedianVsOnePartitionHub: Math.round(median(oneHubKiB)),
      },
      failover: {
        partitions: lost.length,
        reopened: reopened.length,
        firstOpenedMs,
        allOpenedMs: openedMs,
        allReadMs: readMs,
        closedSinceKill,
        survivorShares: survivors.map((i) => i.owned.size),
      },
    });
    producing = false;
    await Promise.all(fleet.map((i) => i.crash()));
  }
  const summary = {
    partitions: PARTITIONS,
    instances: INSTANCES,
    backend: BACKEND,
    overrides: RECEIVER_OVERRIDES,
    results,
  };
  console.log(`BENCH_RESULT ${JSON.stringify(summary)}`);
} finally {
  clearInterval(producer);
  await Promise.all(everyInstance.map((i) => i.crash()));
  await emulator.stop();
  await proxy.stop();
  await azurite.stop();
}
