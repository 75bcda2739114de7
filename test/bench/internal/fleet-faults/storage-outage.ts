/**
 * Scenario 2 (issue 23): storage (Azurite, on disk) stopped for 60 s under steady load and started again
 * with its data on the same port. Per backend a fleet of instances (own consumer group and container), the
 * fleets side by side. Reports lost records, duplicates as a share of the records sent, each instance's
 * health timeline, and whether the liveness path (when the product has one; else the main endpoint) ever
 * failed.
 */
import { deliveryStats, fmtTransitions, transitions, type DeliveryStats, type Transition } from './analysis.ts';
import type { Backend, Collector } from './collector.ts';
import { groupsPerBackend, log, sleep, startFleets, waitDelivered, waitReady, type Context } from './context.ts';
import type { DiskAzurite } from './disk-azurite.ts';
import { startWorld } from './world.ts';

const OUTAGE_S = 60;
const WARMUP_S = 40;
const AFTER_S = 90;
const DRAIN_TIMEOUT_MS = 180_000;
/** Head start for Azurite's restart (its data is loaded from disk first). */
const RESTART_ALLOWANCE_MS = 3_000;

export interface StorageOutageInstance {
  name: string;
  backend: Backend;
  /** Health samples from the outage on that answered other than 200 (the main endpoint). */
  notReadySamples: number;
  /** Samples that got no answer within the poll's timeout (a busy machine, or a wedged process). */
  noAnswerSamples: number;
  /** Liveness samples that answered other than 200, when FLEET_LIVENESS_PATH is set. */
  livenessFailures?: number;
  timeline: Transition[];
}

export interface StorageOutageResult {
  outageS: number;
  /** From the stop until Azurite listened again and the gate opened. */
  actualOutageS: number;
  instancesPerBackend: number;
  instances: StorageOutageInstance[];
  delivery: Record<string, DeliveryStats>;
}

export async function storageOutage(ctx: Context, azurite: DiskAzurite): Promise<StorageOutageResult> {
  const perBackend = Number(process.env.FLEET_STORAGE_INSTANCES ?? 2);
  const groups = groupsPerBackend(ctx.settings, 'so');
  const world = await startWorld(ctx.settings.partitions, Object.values(groups));
  const fleet: Collector[] = [];
  try {
    world.startProducing(ctx.settings.eventsPerSecond);
    fleet.push(...startFleets(ctx, world, azurite.connectionString, groups, 'so', perBackend));
    await waitReady(fleet);
    log(`storage-outage: ${fleet.length} instances ready; settling ${ctx.ms(WARMUP_S) / 1000} s`);
    await sleep(ctx.ms(WARMUP_S));
    const outageAt = Date.now();
    await azurite.stop();
    log(`storage-outage: Azurite stopped for ${ctx.ms(OUTAGE_S) / 1000} s`);
    // Azurite starts in a few seconds (more on a busy machine): start it early so the outage lasts OUTAGE_S.
    await sleep(Math.max(0, ctx.ms(OUTAGE_S) - RESTART_ALLOWANCE_MS - (Date.now() - outageAt)));
    await azurite.restart();
    const actualOutageS = (Date.now() - outageAt) / 1000;
    log(
      `storage-outage: Azurite back, ${actualOutageS.toFixed(1)} s after the stop; watching ` +
        `${ctx.ms(AFTER_S) / 1000} s`,
    );
    await sleep(ctx.ms(AFTER_S));
    world.stopProducing();
    for (const backend of ctx.settings.backends) {
      if (!(await waitDelivered(ctx.sink, world, groups[backend], DRAIN_TIMEOUT_MS)))
        log(`storage-outage: ${backend}: not everything arrived within ${DRAIN_TIMEOUT_MS / 1000} s`);
    }
    await Promise.all(fleet.map((c) => c.stop()));
    const instances = fleet.map((c): StorageOutageInstance => {
      const during = c.health.filter((s) => s.at >= outageAt);
      return {
        name: c.name,
        backend: c.options.backend,
        notReadySamples: during.filter((s) => s.code !== undefined && s.code !== 200).length,
        noAnswerSamples: during.filter((s) => s.code === undefined).length,
        ...(ctx.settings.livenessPath
          ? { livenessFailures: during.filter((s) => s.liveCode !== undefined && s.liveCode !== 200).length }
          : {}),
        timeline: transitions(c.health, outageAt),
      };
    });
    const delivery = Object.fromEntries(
      ctx.settings.backends.map((b) => [b, deliveryStats(ctx.sink.deliveries, groups[b], world.producedAt)]),
    );
    for (const i of instances) {
      log(
        `storage-outage ${i.name}: ${i.notReadySamples} non-200 samples, ${i.noAnswerSamples} ` +
          `unanswered${i.livenessFailures !== undefined ? `, liveness failed ${i.livenessFailures}` : ''}`,
      );
      log(`  timeline (s from outage start): ${fmtTransitions(i.timeline)}`);
    }
    for (const [b, d] of Object.entries(delivery))
      log(
        `storage-outage ${b}: sent ${d.sent}, lost ${d.lost}, duplicates ${d.duplicates} ` +
          `(${d.duplicatePct.toFixed(2)} % of sent)`,
      );
    return { outageS: ctx.ms(OUTAGE_S) / 1000, actualOutageS, instancesPerBackend: perBackend, instances, delivery };
  } finally {
    await Promise.all(fleet.map((c) => c.kill()));
    await world.stop();
  }
}
