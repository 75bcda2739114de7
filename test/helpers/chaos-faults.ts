/**
 * Random protocol faults for chaos tests, through the emulator's documented fault API: receivers detached
 * with the service's error conditions, and client connections cut or closed. The schedule (which faults,
 * how often) is data here so it can be tuned without touching the tests; the random source is seeded so
 * a run can be repeated. Kinds are dealt like cards, every kind once a round in a random order, so that
 * even a short run (the default 20 s of the chaos test sees some ten faults) injects each of them.
 *
 * Environment, for runs by hand: `CHAOS_FAULTS=server-busy,detach-forced,drop` picks the kinds (names
 * below, `none` for no faults), `CHAOS_FAULT_SEED=7` changes the seed.
 */
import type { Emulator } from '../../src/emulator/index.ts';

/** A fault kind and what it does to the SDK reading the partition (docs/emulator.md). */
export const FAULT_KINDS = {
  /** Detach with `amqp:link:stolen`: ReceiverDisconnectedError, not retryable (ownership lost). */
  'link-stolen': { detach: 'amqp:link:stolen' },
  /** Detach with `com.microsoft:server-busy`: ServerBusyError, retryable. */
  'server-busy': { detach: 'com.microsoft:server-busy' },
  /** Detach with `amqp:link:detach-forced`: retryable. */
  'detach-forced': { detach: 'amqp:link:detach-forced' },
  /** Cut the TCP connection of one reading instance (a network failure). */
  drop: { drop: undefined },
  /** Close the connection of one reading instance with `amqp:connection:forced`. */
  'drop-forced': { drop: 'amqp:connection:forced' },
} as const;

export type FaultKind = keyof typeof FAULT_KINDS;

export interface FaultSchedule {
  /** Times each kind is dealt per round (a round is shuffled); a kind with weight 0 (or absent) is never injected. */
  weights: Partial<Record<FaultKind, number>>;
  /** Shortest pause between two faults. Default 1000 ms. */
  minIntervalMs: number;
  /** Longest pause between two faults. Default 3000 ms. */
  maxIntervalMs: number;
  /** Seed of the schedule's own random source (separate from the test's). Default 7. */
  seed: number;
}

export const DEFAULT_FAULT_SCHEDULE: FaultSchedule = {
  weights: { 'link-stolen': 1, 'server-busy': 1, 'detach-forced': 1, drop: 1, 'drop-forced': 1 },
  minIntervalMs: 1_000,
  maxIntervalMs: 3_000,
  seed: 7,
};

/** The default schedule, narrowed by CHAOS_FAULTS and reseeded by CHAOS_FAULT_SEED when set. */
export function faultScheduleFromEnv(env: NodeJS.ProcessEnv = process.env): FaultSchedule {
  const schedule = { ...DEFAULT_FAULT_SCHEDULE, weights: { ...DEFAULT_FAULT_SCHEDULE.weights } };
  if (env.CHAOS_FAULTS !== undefined) {
    const chosen = env.CHAOS_FAULTS.split(',')
      .map((s) => s.trim())
      .filter((s) => s && s !== 'none');
    for (const name of chosen) if (!(name in FAULT_KINDS)) throw new Error(`CHAOS_FAULTS: unknown fault '${name}'`);
    for (const kind of Object.keys(schedule.weights) as FaultKind[])
      if (!chosen.includes(kind)) delete schedule.weights[kind];
  }
  if (env.CHAOS_FAULT_SEED !== undefined) schedule.seed = Number(env.CHAOS_FAULT_SEED);
  return schedule;
}

/** One injected fault, for the test's report. */
export interface InjectedFault {
  kind: FaultKind;
  /** The partition detached, or the partitions the dropped connection was reading. */
  partitionIds: string[];
  /** Receivers detached or connections dropped (0 when nothing matched at that moment). */
  affected: number;
  at: number;
}

export interface FaultInjector {
  readonly injected: InjectedFault[];
  /** Counts of faults that hit something, per kind. */
  counts(): Partial<Record<FaultKind, number>>;
  /** Stops injecting; resolves once no fault is in progress. */
  stop(): Promise<void>;
}

/** Injects faults into the readers of `hub` (partitions `0`..`partitions-1`) until stopped. */
export function startFaultInjector(
  emulator: Emulator,
  hub: string,
  partitions: number,
  schedule: FaultSchedule,
): FaultInjector {
  let seed = schedule.seed;
  const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const kinds = (Object.entries(schedule.weights) as [FaultKind, number][]).filter(([, w]) => w > 0);
  const totalWeight = kinds.reduce((sum, [, w]) => sum + w, 0);
  const injected: InjectedFault[] = [];
  let stopped = false;
  let wake: (() => void) | undefined;

  let deck: FaultKind[] = [];
  const pick = (): FaultKind => {
    if (deck.length === 0) {
      deck = kinds.flatMap(([kind, weight]) => Array.from({ length: Math.max(1, Math.round(weight)) }, () => kind));
      for (let i = deck.length - 1; i > 0; i--) {
        const j = Math.floor(random() * (i + 1));
        [deck[i], deck[j]] = [deck[j]!, deck[i]!];
      }
    }
    return deck.pop()!;
  };
  const openReaders = () => emulator.audit.records.filter((r) => r.hub === hub && r.detachedAt === undefined);

  const injectOne = (): void => {
    const kind = pick();
    const fault = FAULT_KINDS[kind];
    const readers = openReaders();
    if ('detach' in fault) {
      // A partition being read, when one is: a partition whose owner crashed has no reader until its lease
      // expires, and a detach aimed there would hit nothing.
      const reader = readers[Math.floor(random() * readers.length)];
      const partitionId = reader?.partitionId ?? String(Math.floor(random() * partitions));
      const affected = emulator.faults.detachReceivers({ hub, partitionId, condition: fault.detach });
      injected.push({ kind, partitionIds: [partitionId], affected, at: Date.now() });
      return;
    }
    const victim = readers[Math.floor(random() * readers.length)];
    if (!victim) {
      injected.push({ kind, partitionIds: [], affected: 0, at: Date.now() });
      return;
    }
    const partitionIds = readers.filter((r) => r.connectionId === victim.connectionId).map((r) => r.partitionId);
    const options =
      fault.drop === undefined
        ? { containerId: victim.connectionId }
        : { containerId: victim.connectionId, condition: fault.drop };
    const affected = emulator.faults.dropConnections(options);
    injected.push({ kind, partitionIds, affected, at: Date.now() });
  };

  const loop = (async () => {
    if (totalWeight <= 0) return;
    while (!stopped) {
      const pauseMs = schedule.minIntervalMs + random() * (schedule.maxIntervalMs - schedule.minIntervalMs);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, pauseMs);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      if (!stopped) injectOne();
    }
  })();

  return {
    injected,
    counts() {
      const counts: Partial<Record<FaultKind, number>> = {};
      for (const f of injected) if (f.affected > 0) counts[f.kind] = (counts[f.kind] ?? 0) + 1;
      return counts;
    },
    async stop() {
      stopped = true;
      wake?.();
      await loop;
    },
  };
}
