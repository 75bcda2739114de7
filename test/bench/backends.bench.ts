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
 * fastest round (other jobs on the machine only ever add time) and the median.
 */
import { spawn } from 'node:child_process';
import { loadavg } from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createHubClient } from '../../src/backends/create-hub-client.ts';
import type { BackendKind } from '../../src/backends/consumer.ts';
import { drainWithSdk } from './internal/sdk-drain.ts';

const EVENTS = Number(process.env.BENCH_EVENTS ?? 200_000);
const PARTITIONS = 8;
const EVENT_BYTES = 1024;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const PREFETCH = 300;
const BATCH = 100;
const DRAIN_TIMEOUT_MS = 300_000;
const HUB = 'bench';
/** BENCH_SIDES=streaming (comma list) measures a subset, e.g. for profiling; the ratios need `sdk`. */
const SIDES = (process.env.BENCH_SIDES ?? 'sdk,polling,streaming').split(',') as ('sdk' | BackendKind)[];

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
  stats(): Promise<ChildStats>;
  stop(): void;
}

async function startChild(): Promise<Child> {
  // BENCH_EMULATOR_PROFILE_DIR=<dir> writes the emulator child's `--cpu-prof` there (profile the bench
  // process itself with `node --cpu-prof`).
  const profileDir = process.env.BENCH_EMULATOR_PROFILE_DIR;
  const profile = profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : [];
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', fileURLToPath(import.meta.url), '--emulator-child'], { stdio: ['pipe', 'pipe', 'inherit'], env: { ...process.env, BENCH_EVENTS: String(EVENTS) } });
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`emulator child exited with ${code}`)));
  });
  const { connectionString } = JSON.parse(first) as { connectionString: string };
  // Every later line is the answer to one `stats` request, in order.
  const waiting: ((stats: ChildStats) => void)[] = [];
  lines.on('line', (line) => waiting.shift()?.(JSON.parse(line) as ChildStats));
  return {
    connectionString,
    stats: () => new Promise((resolve) => {
      waiting.push(resolve);
      child.stdin.write('stats\n');
    }),
    stop: () => { child.stdin.end(); setTimeout(() => child.kill(), 5_000).unref(); },
  };
}

/** Bare SDK: one single-partition subscription per partition, a no-op handler; ms until all events arrived. */
function drainSdk(connectionString: string): Promise<number> {
  return drainWithSdk({ connectionString, partitions: PARTITIONS, eventsPerPartition: EVENTS / PARTITIONS, prefetchCount: PREFETCH, maxBatchSize: BATCH, timeoutMs: DRAIN_TIMEOUT_MS });
}

/** One backend: a receive() loop per partition with a no-op consumer; ms until all events arrived. */
async function drainBackend(kind: BackendKind, connectionString: string): Promise<number> {
  const client = createHubClient(kind, { connectionString });
  const perPartition = EVENTS / PARTITIONS;
  const signal = AbortSignal.timeout(DRAIN_TIMEOUT_MS);
  const started = performance.now();
  await Promise.all(Array.from({ length: PARTITIONS }, async (_, p) => {
    const reader = await client.openPartition(String(p), { startPosition: { kind: 'earliest' }, prefetchCount: PREFETCH, maxBatchSize: BATCH });
    let count = 0;
    while (count < perPartition) count += (await reader.receive(BATCH, 1_000, signal)).length;
  }));
  const elapsed = performance.now() - started;
  await client.close();
  return elapsed;
}

const pct = (fraction: number): string => `${Math.round(fraction * 100)} %`;

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main(): Promise<void> {
  console.log(`preloading ${EVENTS} events of ${EVENT_BYTES} B over ${PARTITIONS} partitions in a child emulator...`);
  const child = await startChild();
  try {
    const times: Record<'sdk' | BackendKind, number[]> = { sdk: [], polling: [], streaming: [] };
    /** Client CPU per event (µs): unlike wall time, barely disturbed by other jobs on the machine. */
    const cpu: Record<'sdk' | BackendKind, number[]> = { sdk: [], polling: [], streaming: [] };
    /** The emulator child's CPU per event (µs, all its threads) while serving that side. */
    const emulatorCpu: Record<'sdk' | BackendKind, number[]> = { sdk: [], polling: [], streaming: [] };
    // A warm-up drain of each, so JIT and connection setup do not count against the first side measured.
    for (const side of SIDES) {
      if (side === 'sdk') await drainSdk(child.connectionString);
      else await drainBackend(side, child.connectionString);
    }
    for (let round = 1; round <= ROUNDS; round++) {
      for (const side of round % 2 ? SIDES : [...SIDES].reverse()) {
        collectGarbage();
        const childBefore = await child.stats();
        const eluBefore = performance.eventLoopUtilization();
        const cpuBefore = process.cpuUsage();
        const ms = side === 'sdk' ? await drainSdk(child.connectionString) : await drainBackend(side, child.connectionString);
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
        console.log(`round ${round} ${side.padEnd(9)} ${ms.toFixed(0).padStart(6)} ms  ${Math.round(EVENTS / (ms / 1000)).toLocaleString('en-US').padStart(9)} events/s  `
          + `CPU µs/event client ${cpuPerEventUs.toFixed(1)} emulator ${emulatorCpuUs.toFixed(1)}  `
          + `busy: client loop ${pct(elu)} emulator loop ${pct(emulatorElu)}  load ${loadavg()[0]!.toFixed(2)}`);
      }
    }
    const rate = (ms: number): number => Math.round(EVENTS / (ms / 1000));
    if (SIDES.length < 3) {
      // With `sdk` among the sides, each other side's ratio to it (fastest rounds) is still meaningful.
      const ratios = SIDES.includes('sdk')
        ? Object.fromEntries(SIDES.filter((s) => s !== 'sdk').map((s) => [s, Number((Math.min(...times.sdk) / Math.min(...times[s])).toFixed(3))]))
        : {};
      console.log(`ratios to the bare SDK (fastest rounds): ${JSON.stringify(ratios)}`);
      console.log(`BENCH_RESULT ${JSON.stringify({ partial: SIDES, ratios, times, cpu, emulatorCpu })}`);
      return;
    }
    const best = { sdk: Math.min(...times.sdk), polling: Math.min(...times.polling), streaming: Math.min(...times.streaming) };
    const result = {
      events: EVENTS,
      partitions: PARTITIONS,
      eventBytes: EVENT_BYTES,
      rounds: ROUNDS,
      sdkEventsPerSec: rate(best.sdk),
      pollingEventsPerSec: rate(best.polling),
      streamingEventsPerSec: rate(best.streaming),
      pollingRatio: Number((best.sdk / best.polling).toFixed(3)),
      streamingRatio: Number((best.sdk / best.streaming).toFixed(3)),
      pollingRatioOfMedians: Number((median(times.sdk) / median(times.polling)).toFixed(3)),
      streamingRatioOfMedians: Number((median(times.sdk) / median(times.streaming)).toFixed(3)),
      clientCpuUsPerEvent: { sdk: Number(Math.min(...cpu.sdk).toFixed(2)), polling: Number(Math.min(...cpu.polling).toFixed(2)), streaming: Number(Math.min(...cpu.streaming).toFixed(2)) },
      emulatorCpuUsPerEvent: { sdk: Number(Math.min(...emulatorCpu.sdk).toFixed(2)), polling: Number(Math.min(...emulatorCpu.polling).toFixed(2)), streaming: Number(Math.min(...emulatorCpu.streaming).toFixed(2)) },
      loadavg: loadavg().map((l) => Number(l.toFixed(2))),
      goals: { polling: 0.9, streaming: 1.4 },
    };
    console.log(`bare SDK  ${result.sdkEventsPerSec.toLocaleString('en-US')} events/s (best of ${ROUNDS})`);
    console.log(`polling   ${result.pollingEventsPerSec.toLocaleString('en-US')} events/s, ratio ${result.pollingRatio} (goal ≥ 0.9; ratio of medians ${result.pollingRatioOfMedians})`);
    console.log(`streaming ${result.streamingEventsPerSec.toLocaleString('en-US')} events/s, ratio ${result.streamingRatio} (goal ≥ 1.4; ratio of medians ${result.streamingRatioOfMedians})`);
    console.log(`BENCH_RESULT ${JSON.stringify(result)}`);
  } finally {
    child.stop();
  }
}

async function runEmulatorChild(): Promise<void> {
  const { startEmulator } = await import('../../src/emulator/index.ts');
  const emulator = await startEmulator({ port: 0, hubs: [{ name: HUB, partitions: PARTITIONS }] });
  const body = Buffer.alloc(EVENT_BYTES, 'x');
  const perPartition = EVENTS / PARTITIONS;
  for (let p = 0; p < PARTITIONS; p++) {
    for (let i = 0; i < perPartition; i += 1000) emulator.append(HUB, String(p), Array.from({ length: Math.min(1000, perPartition - i) }, () => ({ body })));
  }
  process.stdout.write(`${JSON.stringify({ connectionString: emulator.connectionString(HUB) })}\n`);
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
