/**
 * What every fleet-faults scenario shares: the settings read from the environment, the sink, a scratch
 * directory, and the fleet operations (start collectors, wait until they are ready, wait until every
 * produced record arrived, stop them).
 */
import { randomName } from '../../../helpers/azurite.ts';
import type { Backend, Collector, CollectorOptions } from './collector.ts';
import { Collector as CollectorProcess } from './collector.ts';
import type { IdSink } from './id-sink.ts';
import type { World } from './world.ts';

export interface Settings {
  /** Multiplies every scenario duration (1 = the issue's durations). */
  readonly scale: number;
  readonly backends: Backend[];
  readonly eventsPerSecond: number;
  readonly partitions: number;
  readonly checkpointInterval?: string;
  readonly livenessPath?: string;
  readonly seed: number;
}

export function settingsFromEnv(env: NodeJS.ProcessEnv = process.env): Settings {
  const backend = env.FLEET_BACKEND ?? 'both';
  if (!['polling', 'streaming', 'both'].includes(backend))
    throw new Error(`FLEET_BACKEND: polling, streaming or both, not '${backend}'`);
  return {
    scale: Number(env.FLEET_SCALE ?? 1),
    backends: backend === 'both' ? ['polling', 'streaming'] : [backend as Backend],
    eventsPerSecond: Number(env.FLEET_RATE ?? 100),
    partitions: Number(env.FLEET_PARTITIONS ?? 8),
    ...(env.FLEET_CHECKPOINT_INTERVAL ? { checkpointInterval: env.FLEET_CHECKPOINT_INTERVAL } : {}),
    ...(env.FLEET_LIVENESS_PATH ? { livenessPath: env.FLEET_LIVENESS_PATH } : {}),
    seed: Number(env.FLEET_SEED ?? 23),
  };
}

export interface Context {
  readonly settings: Settings;
  readonly sink: IdSink;
  readonly dir: string;
  /** Seeded random in [0, 1). */
  random(): number;
  /** Scaled seconds → ms. */
  ms(seconds: number): number;
}

export const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

export function log(line: string): void {
  console.log(`[${new Date().toISOString().slice(11, 19)}] ${line}`);
}

/** Starts a collector; every process started is remembered so a failed run can still kill them all. */
export const everyCollector: Collector[] = [];
export function startCollector(options: CollectorOptions): Collector {
  const c = new CollectorProcess(options);
  everyCollector.push(c);
  return c;
}

/** Waits until `cond` holds; false after `timeoutMs`. */
export async function waitFor(cond: () => boolean, timeoutMs: number, pollMs = 250): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) return false;
    await sleep(pollMs);
  }
  return true;
}

export const isReady = (c: Collector): boolean => c.health.at(-1)?.code === 200;

/** Waits until each collector answers 200; throws naming the ones that did not, with their last lines. */
export async function waitReady(collectors: readonly Collector[], timeoutMs = 90_000): Promise<void> {
  if (await waitFor(() => collectors.every(isReady), timeoutMs)) return;
  const stuck = collectors.filter((c) => !isReady(c));
  throw new Error(
    `not ready within ${timeoutMs} ms: ${stuck
      .map(
        (c) =>
          `${c.name} ${JSON.stringify(c.health.at(-1))} ${c.logs
            .slice(-5)
            .map((l) => l.raw)
            .join('\n')}`,
      )
      .join('\n')}`,
  );
}

/** Waits until every record produced so far for `group` arrived; returns whether it did within `timeoutMs`. */
export async function waitDelivered(sink: IdSink, world: World, group: string, timeoutMs: number): Promise<boolean> {
  const missing = (): boolean =>
    world.producedAt.some((times, p) => {
      for (let seq = times.length - 1; seq >= 0; seq--) if (!sink.deliveries.has(`${group}/${p}/${seq}`)) return true;
      return false;
    });
  return waitFor(() => !missing(), timeoutMs, 1_000);
}

/** A consumer group per backend, named with `prefix`. */
export function groupsPerBackend(settings: Settings, prefix: string): Record<Backend, string> {
  return Object.fromEntries(settings.backends.map((b) => [b, randomName(`${prefix}${b.slice(0, 4)}`)])) as Record<
    Backend,
    string
  >;
}

/**
 * Starts `perBackend` collectors for each backend, each backend's fleet with its own consumer group (from
 * `groups`) and checkpoint container; named `<prefix>-<backend>-<i>`.
 */
export function startFleets(
  ctx: Context,
  world: World,
  storageConnection: string,
  groups: Record<Backend, string>,
  prefix: string,
  perBackend: number,
): Collector[] {
  const fleet: Collector[] = [];
  for (const backend of ctx.settings.backends) {
    const container = randomName(prefix);
    for (let i = 0; i < perBackend; i++) {
      const name = `${prefix}-${backend}-${i}`;
      fleet.push(
        startCollector({
          name,
          dir: ctx.dir,
          backend,
          group: groups[backend],
          container,
          hubConnection: world.connectionString,
          storageConnection,
          exporterEndpoint: ctx.sink.endpointFor(name),
          checkpointInterval: ctx.settings.checkpointInterval,
          livenessPath: ctx.settings.livenessPath,
        }),
      );
    }
  }
  return fleet;
}
