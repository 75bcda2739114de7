/**
 * Scenario 1 (issue 23): the exporter's destination answers 503 for 180 s under steady load, default retry
 * settings. Per instance: seconds from the outage start until health says `degraded` (and whether the body
 * names the exporter) or anything but ready; seconds from recovery until ready again; the failure counters
 * of /metrics during the outage; lost and duplicate records. Each backend is its own fleet (own consumer
 * group and container) and the fleets run side by side against the same sink.
 */
import {
  deliveryStats,
  firstAfter,
  fmtTransitions,
  transitions,
  type DeliveryStats,
  type Transition,
} from './analysis.ts';
import type { Backend, Collector } from './collector.ts';
import { groupsPerBackend, log, sleep, startFleets, waitDelivered, waitReady, type Context } from './context.ts';
import type { DiskAzurite } from './disk-azurite.ts';
import { startWorld } from './world.ts';

const OUTAGE_S = 180;
const WARMUP_S = 20;
const AFTER_S = 60;
const INSTANCES = 1;
const DRAIN_TIMEOUT_MS = 180_000;
/** Counters an alert would watch: the collector's final failures, holds, and any per-attempt counter. */
const FAILURE_METRICS = /exporter_send_failed|export_holds|exporter.*(attempt|retr)|(attempt|retr).*fail/;

export interface ExporterOutageInstance {
  name: string;
  backend: Backend;
  degradedAfterS?: number;
  degradedNamesExporter?: boolean;
  notReadyAfterS?: number;
  readyAgainAfterS?: number;
  /** Seconds from recovery until the sink accepted this instance's first record again. */
  firstDeliveryAfterRecoveryS?: number;
  /** Failure counters at the outage's end; and when each first rose after the outage start (s). */
  metricsAtOutageEnd?: Record<string, number>;
  metricRoseAfterS: Record<string, number>;
  timeline: Transition[];
}

export interface ExporterOutageResult {
  outageS: number;
  instances: ExporterOutageInstance[];
  delivery: Record<string, DeliveryStats>;
  sinkRefused: number;
}

export async function exporterOutage(ctx: Context, azurite: DiskAzurite): Promise<ExporterOutageResult> {
  const groups = groupsPerBackend(ctx.settings, 'eo');
  const world = await startWorld(ctx.settings.partitions, Object.values(groups));
  const fleet: Collector[] = [];
  try {
    world.startProducing(ctx.settings.eventsPerSecond);
    fleet.push(...startFleets(ctx, world, azurite.connectionString, groups, 'eo', INSTANCES));
    await waitReady(fleet);
    log(`exporter-outage: ${fleet.length} instances ready; warming up ${ctx.ms(WARMUP_S) / 1000} s`);
    await sleep(ctx.ms(WARMUP_S));
    const refusedBefore = ctx.sink.requests.refused;
    const outageAt = Date.now();
    ctx.sink.refuse();
    log(`exporter-outage: sink answers 503 for ${ctx.ms(OUTAGE_S) / 1000} s`);
    const rose: Record<string, Record<string, number>> = {};
    const baseline: Record<string, Record<string, number>> = {};
    for (const c of fleet) baseline[c.name] = (await c.metrics(FAILURE_METRICS)) ?? {};
    while (Date.now() - outageAt < ctx.ms(OUTAGE_S)) {
      await sleep(2_000);
      for (const c of fleet) {
        const now = (await c.metrics(FAILURE_METRICS)) ?? {};
        for (const [k, v] of Object.entries(now)) {
          if (v > (baseline[c.name]![k] ?? 0) && rose[c.name]?.[k] === undefined)
            (rose[c.name] ??= {})[k] = (Date.now() - outageAt) / 1000;
        }
      }
    }
    const atEnd: Record<string, Record<string, number> | undefined> = {};
    for (const c of fleet) atEnd[c.name] = await c.metrics(FAILURE_METRICS);
    const recoveredAt = Date.now();
    ctx.sink.accept();
    log(`exporter-outage: sink accepts again; watching ${ctx.ms(AFTER_S) / 1000} s`);
    await sleep(ctx.ms(AFTER_S));
    world.stopProducing();
    for (const backend of ctx.settings.backends) {
      if (!(await waitDelivered(ctx.sink, world, groups[backend], DRAIN_TIMEOUT_MS)))
        log(`exporter-outage: ${backend}: not everything arrived within ${DRAIN_TIMEOUT_MS / 1000} s`);
    }
    await Promise.all(fleet.map((c) => c.stop()));
    const firstDelivery = new Map<string, number>();
    for (const copies of ctx.sink.deliveries.values()) {
      for (const d of copies)
        if (d.at >= recoveredAt && d.at < (firstDelivery.get(d.instance) ?? Infinity))
          firstDelivery.set(d.instance, d.at);
    }
    const instances = fleet.map((c): ExporterOutageInstance => {
      const notReady = (s: { code?: number }) => s.code !== undefined && s.code !== 200;
      const lastNotReady = [...c.health]
        .reverse()
        .find((s) => s.at >= outageAt && s.at <= recoveredAt + ctx.ms(AFTER_S) && notReady(s));
      const degraded = c.health.find((s) => s.at >= outageAt && s.at <= recoveredAt && s.status === 'degraded');
      return {
        name: c.name,
        backend: c.options.backend,
        degradedAfterS: degraded ? (degraded.at - outageAt) / 1000 : undefined,
        degradedNamesExporter: degraded?.namesExporter,
        notReadyAfterS: firstAfter(c.health, outageAt, notReady, recoveredAt),
        readyAgainAfterS: lastNotReady
          ? firstAfter(c.health, recoveredAt, (s) => s.code === 200 && s.at > lastNotReady.at)
          : undefined,
        ...(firstDelivery.has(c.name)
          ? { firstDeliveryAfterRecoveryS: (firstDelivery.get(c.name)! - recoveredAt) / 1000 }
          : {}),
        metricsAtOutageEnd: atEnd[c.name],
        metricRoseAfterS: rose[c.name] ?? {},
        timeline: transitions(c.health, outageAt),
      };
    });
    const delivery = Object.fromEntries(
      ctx.settings.backends.map((b) => [b, deliveryStats(ctx.sink.deliveries, groups[b], world.producedAt)]),
    );
    for (const i of instances) {
      log(
        `exporter-outage ${i.name}: degraded after ${i.degradedAfterS ?? 'never'} s (names exporter: ` +
          `${i.degradedNamesExporter ?? '-'}), ` +
          `not ready after ${i.notReadyAfterS ?? 'never'} s, ready again ${i.readyAgainAfterS ?? '-'} s after ` +
          `recovery ` +
          `(first record delivered ${i.firstDeliveryAfterRecoveryS ?? '-'} s after); ` +
          `counters at outage end ${JSON.stringify(i.metricsAtOutageEnd)}, first rose ` +
          `${JSON.stringify(i.metricRoseAfterS)}`,
      );
      log(`  timeline (s from outage start): ${fmtTransitions(i.timeline)}`);
    }
    for (const [b, d] of Object.entries(delivery))
      log(
        `exporter-outage ${b}: sent ${d.sent}, lost ${d.lost}, duplicates ${d.duplicates} ` +
          `(${d.duplicatePct.toFixed(2)} %)`,
      );
    return {
      outageS: ctx.ms(OUTAGE_S) / 1000,
      instances,
      delivery,
      sinkRefused: ctx.sink.requests.refused - refusedBefore,
    };
  } finally {
    ctx.sink.accept();
    await Promise.all(fleet.map((c) => c.kill()));
    await world.stop();
  }
}
