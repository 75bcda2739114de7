/**
 * Scenario 3 (issue 23): a fleet of 4 under steady load; every 10-20 s a random instance is killed (kill -9)
 * and a replacement started at once, for 5 minutes; one backend after the other. Reports lost records,
 * duplicates as a share of the records sent, and per crash the largest re-read of one partition: the
 * records the victim had delivered that another instance delivered again, and the production-time span
 * they cover, against `checkpoint.interval`.
 */
import { randomName } from '../../../helpers/azurite.ts';
import { deliveryStats, rereadsByInstance, type DeliveryStats, type Reread } from './analysis.ts';
import type { Backend, Collector } from './collector.ts';
import { log, sleep, startCollector, waitDelivered, waitReady, type Context } from './context.ts';
import type { DiskAzurite } from './disk-azurite.ts';
import { startWorld } from './world.ts';

const INSTANCES = 4;
const DURATION_S = 300;
const KILL_MIN_S = 10;
const KILL_MAX_S = 20;
const WARMUP_S = 30;
const DRAIN_TIMEOUT_MS = 180_000;
/** The product's default `checkpoint.interval` (docs/configuration.md), when FLEET_CHECKPOINT_INTERVAL is unset. */
const DEFAULT_CHECKPOINT_INTERVAL_S = 10;

export interface Crash {
  victim: string;
  /** Seconds since the chaos started. */
  atS: number;
  /** Seconds the victim had lived. */
  livedS: number;
  rereadTotal: number;
  largest?: Reread;
}

export interface KillChaosBackendResult {
  backend: Backend;
  kills: number;
  delivery: DeliveryStats;
  crashes: Crash[];
  /** The largest re-read of one partition by one crash, and its span in seconds. */
  worstReread?: Reread & { victim: string };
  /** Re-reads of records first delivered by instances that were not killed (rebalancing, stops). */
  otherRereads: number;
  /** Per-partition traffic of one checkpoint interval, records: the bound without the batch. */
  intervalTrafficRecords: number;
}

export async function killChaos(ctx: Context, azurite: DiskAzurite): Promise<KillChaosBackendResult[]> {
  const results: KillChaosBackendResult[] = [];
  for (const backend of ctx.settings.backends) results.push(await killChaosOne(ctx, azurite, backend));
  return results;
}

function parseSeconds(duration: string | undefined): number {
  if (!duration) return DEFAULT_CHECKPOINT_INTERVAL_S;
  const m = /^(\d+(?:\.\d+)?)(ms|s|m)$/.exec(duration);
  if (!m) throw new Error(`FLEET_CHECKPOINT_INTERVAL: expected e.g. 10s, 500ms, not '${duration}'`);
  return Number(m[1]) * ({ ms: 0.001, s: 1, m: 60 } as const)[m[2] as 'ms' | 's' | 'm'];
}

async function killChaosOne(ctx: Context, azurite: DiskAzurite, backend: Backend): Promise<KillChaosBackendResult> {
  const group = randomName(`kc${backend.slice(0, 4)}`);
  const container = randomName('kc');
  const world = await startWorld(ctx.settings.partitions, [group]);
  const all: Collector[] = [];
  let generation = 0;
  const spawn = (): Collector => {
    const name = `kc-${backend}-g${generation++}`;
    const c = startCollector({
      name,
      dir: ctx.dir,
      backend,
      group,
      container,
      hubConnection: world.connectionString,
      storageConnection: azurite.connectionString,
      exporterEndpoint: ctx.sink.endpointFor(name),
      checkpointInterval: ctx.settings.checkpointInterval,
    });
    all.push(c);
    return c;
  };
  try {
    world.startProducing(ctx.settings.eventsPerSecond);
    const fleet = Array.from({ length: INSTANCES }, spawn);
    await waitReady(fleet);
    log(`kill-chaos ${backend}: ${INSTANCES} instances ready; warming up ${ctx.ms(WARMUP_S) / 1000} s`);
    await sleep(ctx.ms(WARMUP_S));
    const chaosAt = Date.now();
    const victims: { name: string; atS: number; livedS: number }[] = [];
    for (;;) {
      const pause = (KILL_MIN_S + ctx.random() * (KILL_MAX_S - KILL_MIN_S)) * 1000;
      if (Date.now() + pause - chaosAt > ctx.ms(DURATION_S)) break;
      await sleep(pause);
      const index = Math.floor(ctx.random() * fleet.length);
      const victim = fleet[index]!;
      await victim.kill();
      victims.push({
        name: victim.name,
        atS: (victim.killedAt! - chaosAt) / 1000,
        livedS: (victim.killedAt! - victim.startedAt) / 1000,
      });
      fleet[index] = spawn();
      log(
        `kill-chaos ${backend}: killed ${victim.name} (lived ${victims.at(-1)!.livedS.toFixed(0)} s), started ` +
          `${fleet[index]!.name}`,
      );
    }
    log(`kill-chaos ${backend}: ${victims.length} kills; letting the fleet settle, then draining`);
    await sleep(ctx.ms(30));
    world.stopProducing();
    if (!(await waitDelivered(ctx.sink, world, group, DRAIN_TIMEOUT_MS)))
      log(`kill-chaos ${backend}: not everything arrived within ${DRAIN_TIMEOUT_MS / 1000} s`);
    await Promise.all(fleet.map((c) => c.stop()));

    const delivery = deliveryStats(ctx.sink.deliveries, group, world.producedAt);
    const rereads = rereadsByInstance(ctx.sink.deliveries, group, world.producedAt);
    const crashes: Crash[] = victims.map((v) => ({
      victim: v.name,
      atS: v.atS,
      livedS: v.livedS,
      rereadTotal: rereads.get(v.name)?.total ?? 0,
      largest: rereads.get(v.name)?.largest,
    }));
    const victimNames = new Set(victims.map((v) => v.name));
    const otherRereads = [...rereads.values()]
      .filter((r) => !victimNames.has(r.instance))
      .reduce((n, r) => n + r.total, 0);
    const worst = crashes
      .filter((c) => c.largest)
      .reduce<Crash | undefined>((a, b) => (!a || b.largest!.records > a.largest!.records ? b : a), undefined);
    const intervalTrafficRecords =
      (parseSeconds(ctx.settings.checkpointInterval) * ctx.settings.eventsPerSecond) / ctx.settings.partitions;
    for (const c of crashes) {
      const largest = c.largest
        ? `${c.largest.records} records of partition ${c.largest.partition}, ${c.largest.spanS.toFixed(1)} s`
        : '-';
      log(
        `kill-chaos ${backend} crash ${c.victim} at ${c.atS.toFixed(0)} s (lived ${c.livedS.toFixed(0)} s): ` +
          `${c.rereadTotal} re-read; ` +
          `largest ${largest}`,
      );
    }
    const worstText = worst
      ? `${worst.largest!.records} records / ${worst.largest!.spanS.toFixed(1)} s ` +
        `(one interval ≈ ${intervalTrafficRecords} records)`
      : '-';
    log(
      `kill-chaos ${backend}: sent ${delivery.sent}, lost ${delivery.lost}, duplicates ${delivery.duplicates} ` +
        `(${delivery.duplicatePct.toFixed(2)} %), ` +
        `same-instance ${delivery.sameInstanceDuplicates}, re-reads not after a crash ${otherRereads}; worst crash ` +
        `re-read ${worstText}`,
    );
    return {
      backend,
      kills: victims.length,
      delivery,
      crashes,
      otherRereads,
      intervalTrafficRecords,
      ...(worst ? { worstReread: { ...worst.largest!, victim: worst.victim } } : {}),
    };
  } finally {
    await Promise.all(all.map((c) => c.kill()));
    await world.stop();
  }
}
