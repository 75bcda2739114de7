/**
 * Drain throughput of the two backends against the emulator, as a ratio to a bare SDK `subscribe`
 * loop with a no-op handler on the same emulator and data in the same run. Goal (issue 14): polling ≥ 0.9,
 * streaming ≥ 1.4.
 *
 * The emulator runs in a child process (this file re-run with `--emulator-child`), so client and server
 * each get a core. It preloads BENCH_EVENTS 1-KiB events over 8 partitions with `emulator.append`; every
 * round then drains all of them from `earliest` on all partitions at once: the SDK baseline through
 * `EventHubConsumerClient.subscribe(partitionId, ...)`, each backend through its `receive()` loop with a
 * no-op consumer. All use prefetch 300, batches of 100 and last-enqueued tracking (the backends'
 * default). Rounds alternate; each side reports its
 * fastest round (other jobs on the machine only ever add time) and the median, and each measured side its
 * ratio to the baseline round by round (the same round's drain of the baseline) and the median of those: the
 * figure to judge by where the machine's speed drifts between rounds (a shared host does, by a third). Each
 * round line also shows the client's heap after a full collection before the drain (a receiver that leaves
 * something behind would show as a heap growing round after round).
 *
 * Library sides (issue 24): a second hub holds BENCH_EVENTS realistic Azure resource-log events
 * (scripts/local/samples.ts, as the pipeline bench preloads them); `polling+azure` and `streaming+azure` drain it
 * through the whole receiver (`createAzureEventHubReceiver`, format `azure`, default settings) into a consumer
 * that only counts records, against `sdk-logs`, the bare SDK draining that hub; each of its events carries
 * BENCH_LOGS_PROPERTIES application properties (3). Goals: polling ≥ 0.85,
 * streaming ≥ 1.0. Their client CPU per event shows the receiver's per-event work above the backend's.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createHubClient } from '../../src/backends/create-hub-client.ts';
import type { BackendKind } from '../../src/backends/consumer.ts';
import { CHILD_EXEC_ARGV } from './internal/child-loader.ts';
import { drainWithSdk } from './internal/sdk-drain.ts';
import { drainWithReceiver } from './internal/receiver-drain.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const PARTITIONS = 8;
const EVENT_BYTES = 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PREFETCH = 300;
const BATCH = 100;
const DRAIN_TIMEOUT_MS = 300_000;
const HUB = 'bench';
/** The hub of realistic resource-log events the library sides drain. */
const LOGS_HUB = 'logs';
/**
 * BENCH_LOGS_PROPERTIES (3): application properties per event of that hub, strings and numbers, as producers
 * that tag events set them, so the backends' property handling is part of what the library sides measure
 * (0 for none, as diagnostic settings send).
 */
const LOGS_PROPERTIES = Number(process.env.BENCH_LOGS_PROPERTIES ?? 3);
const logsProperties = (index: number): Record<string, unknown> =>
  Object.fromEntries(
    Array.from({ length: LOGS_PROPERTIES }, (_, k) => [
      `property${k}`,
      k % 2 === 0 ? `value-${index % 97}` : index % 1000,
    ]),
  );
type LibrarySide = `${BackendKind}+azure`;
type Side = 'sdk' | BackendKind | 'sdk-logs' | LibrarySide;
const ALL_SIDES: readonly Side[] = ['sdk', 'polling', 'streaming', 'sdk-logs', 'polling+azure', 'streaming+azure'];
/** BENCH_SIDES=streaming (comma list) measures a subset, e.g. for profiling; a ratio needs its baseline. */
const SIDES = (process.env.BENCH_SIDES ?? ALL_SIDES.join(',')).split(',') as Side[];
/** Each measured side's baseline: the bare SDK on the same hub. */
const BASELINE: Record<Exclude<Side, 'sdk' | 'sdk-logs'>, 'sdk' | 'sdk-logs'> = {
  polling: 'sdk',
  streaming: 'sdk',
  'polling+azure': 'sdk-logs',
  'streaming+azure': 'sdk-logs',
};
const GOALS: Record<keyof typeof BASELINE, number> = {
  polling: 0.9,
  streaming: 1.4,
  'polling+azure': 0.85,
  'streaming+azure': 1.0,
};

const collectGarbage = (): void => (globalThis as { gc?: () => void }).gc?.();

interface ChildStats {
  /** CPU time of the emulator process so far (all threads), µs. */
  readonly cpuUs: number;
  /** Its event loop's active and idle time so far (`performance.eventLoopUtilization()`), ms. */
  readonly active: number;
  readonly idle: number;
}

interface Child {
  readonly connectionString: string;
  /** The hub of realistic events, and the log records they hold. */
  readonly logsConnectionString: string;
  readonly logsRecords: number;
  stats(): Promise<ChildStats>;
  stop(): void;
}

async function startChild(): Promise<Child> {
  // BENCH_EMULATOR_PROFILE_DIR=<dir> writes the emulator child's `--cpu-prof` there (profile the bench
  // process itself with `node --cpu-prof`).
  const profileDir = process.env.BENCH_EMULATOR_PROFILE_DIR;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(
    process.execPath,
    [...profile, ...CHILD_EXEC_ARGV, fileURLToPath(import.meta.url), '--emulator-child'],
    { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, BENCH_EVENTS: String(EVENTS) } },
  );
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`emulator child exited with ${code}`)));
  });
  const { connectionString, logsConnectionString, logsRecords } = JSON.parse(first) as {
    connectionString: string;
    logsConnectionString: string;
    logsRecords: number;
  };
  // Every later line is the answer to one `stats` request, in order.
  const waiting: ((stats: ChildStats) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(JSON.parse(line) as ChildStats));
  return {
    connectionString,
    logsConnectionString,
    logsRecords,
    stats: () =>
      new Promise((resolve) => {
        waiting.push(resolve);
        child.stdin.write('stats\n');
      }),
    stop: () => {
      child.stdin.end();
      setTimeout(() => child.kill(), 5_000).unref();
    },
  };
}

/** Bare SDK: one single-partition subscription per partition, a no-op handler; ms until all events arrived. */
function drainSdk(connectionString: string): Promise<number> {
  return drainWithSdk({
    connectionString,
    partitions: PARTITIONS,
    eventsPerPartition: EVENTS / PARTITIONS,
    prefetchCount: PREFETCH,
    maxBatchSize: BATCH,
    timeoutMs: DRAIN_TIMEOUT_MS,
  });
}

/** One backend: a receive() loop per partition with a no-op consumer; ms until all events arrived. */
async function drainBackend(kind: BackendKind, connectionString: string): Promise<number> {
  const client = createHubClient(kind, { connectionString });
  const perPartition = EVENTS / PARTITIONS;
  const signal = AbortSignal.timeout(DRAIN_TIMEOUT_MS);
  const started = performance.now();
  await Promise.all(
    Array.from({ length: PARTITIONS }, async (_, p) => {
      const reader = await client.openPartition(String(p), {
        startPosition: { kind: 'earliest' },
        prefetchCount: PREFETCH,
        maxBatchSize: BATCH,
      });
      let count = 0;
      while (count < perPartition) count += (await reader.receive(BATCH, 1_000, signal)).length;
    }),
  );
  const elapsed = performance.now() - started;
  await client.close();
  return elapsed;
}

const pct = (fraction: number): string => `${Math.round(fraction * 100)} %`;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
}

/** One drain of `side`; ms until everything arrived. */
function drain(side: Side, child: Child): Promise<number> {
  if (side === 'sdk') return drainSdk(child.connectionString);
  if (side === 'sdk-logs') return drainSdk(child.logsConnectionString);
  if (side === 'polling' || side === 'streaming') return drainBackend(side, child.connectionString);
  const backend = side.replace('+azure', '') as BackendKind;
  return drainWithReceiver({
    connectionString: child.logsConnectionString,
    backend,
    format: 'azure',
    records: child.logsRecords,
    timeoutMs: DRAIN_TIMEOUT_MS,
  });
}

async function main(): Promise<void> {
  console.log(
    `preloading ${EVENTS} events of ${EVENT_BYTES} B and ${EVENTS} sample resource-log events over ${PARTITIONS} ` +
      `partitions in a child emulator...`,
  );
  const child = await startChild();
  try {
    const times = Object.fromEntries(SIDES.map((s) => [s, [] as number[]])) as Record<Side, number[]>;
    /** Client CPU per event (µs): unlike wall time, barely disturbed by other jobs on the machine. */
    const cpu = Object.fromEntries(SIDES.map((s) => [s, [] as number[]])) as Record<Side, number[]>;
    /** The emulator child's CPU per event (µs, all its threads) while serving that side. */
    const emulatorCpu = Object.fromEntries(SIDES.map((s) => [s, [] as number[]])) as Record<Side, number[]>;
    // A warm-up drain of each, so JIT and connection setup do not count against the first side measured.
    for (const side of SIDES) await drain(side, child);
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of round % 2 ? SIDES : [...SIDES].reverse()) {
        collectGarbage();
        // The client's heap after a full collection, before the drain: a receiver that left something behind
        // shows here as a heap that grows round after round.
        const heapMiB = process.memoryUsage().heapUsed / 2 ** 20;
        const childBefore = await child.stats();
        const eluBefore = performance.eventLoopUtilization();
        const cpuBefore = process.cpuUsage();
        const ms = await drain(side, child);
        const used = process.cpuUsage(cpuBefore);
        const elu = performance.eventLoopUtilization(eluBefore).utilization;
        const childAfter = await child.stats();
        const cpuPerEventUs = (used.user + used.system) / EVENTS;
        const emulatorCpuUs = (childAfter.cpuUs - childBefore.cpuUs) / EVENTS;
        const emulatorActive = childAfter.active - childBefore.active;
        const emulatorElu = emulatorActive / (emulatorActive + childAfter.idle - childBefore.idle);
        times[side].push(ms);
        cpu[side].push(cpuPerEventUs);
        emulatorCpu[side].push(emulatorCpuUs);
        console.log(
          `round ${round} ${side.padEnd(15)} ${ms.toFixed(0).padStart(6)} ms  ${Math.round(EVENTS / (ms / 1000))
            .toLocaleString('en-US')
            .padStart(9)} events/s  ` +
            `CPU µs/event client ${cpuPerEventUs.toFixed(1)} emulator ${emulatorCpuUs.toFixed(1)}  ` +
            `busy: client loop ${pct(elu)} emulator loop ${pct(emulatorElu)}  heap before ${heapMiB.toFixed(1)} MiB  ` +
            `load ${loadavg()[0]!.toFixed(2)}`,
        );
      }
    }
    const rate = (ms: number): number => Math.round(EVENTS / (ms / 1000));
    const best = (side: Side): number => Math.min(...times[side]);
    const ratios: Record<string, unknown> = {};
    for (const side of SIDES) {
      if (side === 'sdk' || side === 'sdk-logs') {
        console.log(
          `${side.padEnd(15)} ${rate(best(side)).toLocaleString('en-US')} events/s (best of ${ROUNDS}), client CPU ` +
            `${Math.min(...cpu[side]).toFixed(2)} µs/event`,
        );
        continue;
      }
      const base = BASELINE[side];
      if (!SIDES.includes(base)) continue;
      const ratio = Number((best(base) / best(side)).toFixed(3));
      const ofMedians = Number((median(times[base]) / median(times[side])).toFixed(3));
      const cpuRatio = Number((Math.min(...cpu[side]) / Math.min(...cpu[base])).toFixed(2));
      // Each round against the same round's baseline: this machine's speed drifts within a run, and best
      // against best then sets one side's fast round against the other's slow one.
      const paired = times[side].map((ms, r) => Number((times[base][r]! / ms).toFixed(2)));
      const pairedCpu = cpu[side].map((us, r) => Number((us / cpu[base][r]!).toFixed(2)));
      // The median of those: the figure least moved by a round the machine slowed or sped up.
      const pairedMedian = Number(median(paired).toFixed(2));
      ratios[side] = {
        ratio,
        ratioOfMedians: ofMedians,
        pairedMedian,
        cpuRatio,
        pairedRatios: paired,
        pairedCpuRatios: pairedCpu,
      };
      console.log(
        `${side.padEnd(15)} ${rate(best(side)).toLocaleString('en-US')} events/s, ratio ${ratio} to ${base} (goal ≥ ` +
          `${GOALS[side]}; median round by round ${pairedMedian}; ratio of medians ${ofMedians}); ` +
          `client CPU ${Math.min(...cpu[side]).toFixed(2)} µs/event, ${cpuRatio}x ${base}'s; ` +
          `round by round: ${paired.join(', ')} (CPU ${pairedCpu.map((c) => `${c}x`).join(', ')})`,
      );
    }
    const result = {
      events: EVENTS,
      logsRecords: child.logsRecords,
      partitions: PARTITIONS,
      eventBytes: EVENT_BYTES,
      rounds: ROUNDS,
      sides: SIDES,
      eventsPerSec: Object.fromEntries(SIDES.map((s) => [s, rate(best(s))])),
      ratios,
      // The names the results file had before the library sides, kept for scripts that read them.
      ...(ratios.polling ? { pollingRatio: (ratios.polling as { ratio: number }).ratio } : {}),
      ...(ratios.streaming ? { streamingRatio: (ratios.streaming as { ratio: number }).ratio } : {}),
      clientCpuUsPerEvent: Object.fromEntries(SIDES.map((s) => [s, Number(Math.min(...cpu[s]).toFixed(2))])),
      emulatorCpuUsPerEvent: Object.fromEntries(SIDES.map((s) => [s, Number(Math.min(...emulatorCpu[s]).toFixed(2))])),
      times,
      loadavg: loadavg().map((l) => Number(l.toFixed(2))),
      goals: GOALS,
    };
    console.log(`BENCH_RESULT ${JSON.stringify(result)}`);
  } finally {
    child.stop();
  }
}

async function runEmulatorChild(): Promise<void> {
  const { startEmulator } = await import('../../src/emulator/index.ts');
  const { SAMPLE_CATEGORIES, sampleResourceLogBody } = await import('../../scripts/local/samples.ts');
  const emulator = await startEmulator({
    port: 0,
    hubs: [
      { name: HUB, partitions: PARTITIONS },
      { name: LOGS_HUB, partitions: PARTITIONS },
    ],
  });
  const body = Buffer.alloc(EVENT_BYTES, 'x');
  const perPartition = EVENTS / PARTITIONS;
  for (let p = 0; p < PARTITIONS; p++) {
    for (let i = 0; i < perPartition; i += 1000)
      emulator.append(
        HUB,
        String(p),
        Array.from({ length: Math.min(1000, perPartition - i) }, () => ({ body })),
      );
  }
  // The pipeline bench's mix: every category in turn, one event in six holding two records.
  let logsRecords = 0;
  const time = new Date();
  for (let p = 0; p < PARTITIONS; p++) {
    for (let i = 0; i < perPartition; i += 1000) {
      emulator.append(
        LOGS_HUB,
        String(p),
        Array.from({ length: Math.min(1000, perPartition - i) }, (_, k) => {
          const index = p * perPartition + i + k;
          const records = index % 6 === 5 ? 2 : 1;
          logsRecords += records;
          const body = Buffer.from(
            sampleResourceLogBody(SAMPLE_CATEGORIES[index % SAMPLE_CATEGORIES.length]!, { records, index, time }),
          );
          return LOGS_PROPERTIES > 0 ? { body, properties: logsProperties(index) } : { body };
        }),
      );
    }
  }
  const hubs = {
    connectionString: emulator.connectionString(HUB),
    logsConnectionString: emulator.connectionString(LOGS_HUB),
    logsRecords,
  };
  process.stdout.write(`${JSON.stringify(hubs)}\n`);
  const stdinLines = createInterface({ input: process.stdin });
  stdinLines.on('line', () => {
    const cpu = process.cpuUsage();
    const { active, idle } = performance.eventLoopUtilization();
    process.stdout.write(`${JSON.stringify({ cpuUs: cpu.user + cpu.system, active, idle })}\n`);
  });
  process.stdin.on('end', () => void emulator.stop().then(() => process.exit(0)));
}

if (process.argv.includes('--emulator-child')) await runEmulatorChild();
else await main();
