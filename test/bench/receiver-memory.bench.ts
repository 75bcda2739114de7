/**
 * Peak RSS of a receiver draining a backlog of 1,000,000 1-KiB events over 32 partitions (issue goal:
 * at most 256 MB with a slow consumer). The emulator holds the backlog in this process; the receiver runs
 * in a child (internal/memory-child.mjs, plain Node on the compiled dist/ as the CLI ships) so
 * /proc/<pid>/status measures it alone: VmRSS sampled every
 * 250 ms and VmHWM (the kernel's own peak) at the end. Baseline: a child that only imported the same
 * modules. Each backend runs with the default prefetch and batch settings, `start_position: earliest`,
 * format raw, first with a slow consumer (20 ms per batch) and then with a fast one (no delay).
 * BENCH_MEMORY_SECONDS bounds each run (default 60 s; a run also ends once the backlog is drained).
 * The child also reports its V8 heap and off-heap (external) use, to tell live data from GC slack, and its
 * CPU time, for CPU µs per event (steadier than the rate on a shared machine).
 * Each run names its runtime: `cli` runs the receiver as `otelcol-azure-eventhub run` does, in a worker
 * thread with the CLI's default heap ceiling (src/distribution/heap-limit.ts); `embedded` runs it on the
 * main thread with Node's own heap sizing, as a program that embeds the library and sets no V8 flag does.
 * BENCH_MEMORY_PLAN picks runs (`polling:20:cli,streaming:0:embedded`: backend, consumer delay in ms,
 * runtime; `cli=2047` runs the CLI's worker with that heap cap in MiB instead of the default; `embedded=160`
 * sets the receiver's `memory.limit_mib: 160`, the option that bounds memory without V8 flags);
 * BENCH_MEMORY_CHILD_FLAGS passes Node flags to the receiver child (e.g. `--max-old-space-size=96`);
 * BENCH_MEMORY_SET merges receiver settings into every run's config, as JSON (`{"max_poll_events":500}`).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { startEmulator } from '../../src/emulator/index.ts';
import { readRss, mib, MIB } from './internal/child-rss.ts';

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'internal', 'memory-child.mjs');
const COMPILED = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'dist', 'index.js');
const PARTITIONS = 32;
const TOTAL_EVENTS = Number(process.env.BENCH_MEMORY_EVENTS ?? 1_000_000);
const EVENT_BYTES = 1024;
const RUN_SECONDS = Number(process.env.BENCH_MEMORY_SECONDS ?? 60);
const FAST_RUN_SECONDS = Number(process.env.BENCH_MEMORY_FAST_SECONDS ?? 30);
const SAMPLE_INTERVAL_MS = 250;
const SLOW_CONSUMER_DELAY_MS = 20;
const GOAL_BYTES = 256 * MIB;
const APPEND_CHUNK_EVENTS = 1_000;
/** BENCH_MEMORY_SET: receiver settings merged into every run's config, as JSON (e.g. `{"max_poll_events":500}`). */
const EXTRA_CONFIG = JSON.parse(process.env.BENCH_MEMORY_SET ?? '{}') as Record<string, unknown>;
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 15_000;

type Runtime = 'cli' | 'embedded';

interface RunResult {
  backend: string;
  runtime: Runtime;
  /** The worker's heap cap in MiB when it is not the CLI's default. */
  heapLimitMiB?: number;
  /** The receiver's `memory.limit_mib`, when set. */
  memoryLimitMiB?: number;
  /** Times the memory guard paused reading, and collections it forced (when memoryLimitMiB is set). */
  memoryPauses?: number;
  forcedGcs?: number;
  consumerDelayMs: number;
  peakRssMiB: number;
  maxSampledRssMiB: number;
  finalRssMiB: number;
  eventsDrained: number;
  drainSeconds: number;
  eventsPerSecond: number;
  drainedAll: boolean;
  /** Largest V8 heapUsed the child reported (once a second), MiB. */
  peakHeapUsedMiB: number;
  /** Largest external memory (Buffers and other off-heap allocations) the child reported, MiB. */
  peakExternalMiB: number;
  /**
   * The child's CPU time per event drained (all its threads, µs), between its first and last report with
   * events: the cost of more frequent collections shows here even when a loaded machine blurs the rate.
   */
  cpuMicrosPerEvent: number;
}

interface MemoryUsageLine {
  heapUsed: number;
  external: number;
  /** The child's CPU time (user + system, µs, all threads) and events drained when it measured. */
  cpuMicros?: number;
  drained?: number;
}

interface GuardLine {
  pauses: number;
  forcedGcs: number;
}

const CHILD_FLAGS = (process.env.BENCH_MEMORY_CHILD_FLAGS ?? '').split(' ').filter(Boolean);

function startChild(
  env: Record<string, string>,
  args: string[] = [...CHILD_FLAGS, CHILD],
): {
  child: ChildProcess;
  ready: Promise<void>;
  drained: () => number;
  peaks: () => MemoryUsageLine;
  guard: () => GuardLine | undefined;
  cpuMicrosPerEvent: () => number;
  exited: Promise<void>;
} {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let drained = 0;
  const peaks: MemoryUsageLine = { heapUsed: 0, external: 0 };
  let guard: GuardLine | undefined;
  // The first and the latest report with events drained: CPU per event over the drain, startup excluded.
  let firstCpu: MemoryUsageLine | undefined;
  let lastCpu: MemoryUsageLine | undefined;
  let buffer = '';
  let stderr = '';
  let onReady!: () => void;
  const ready = new Promise<void>((resolve, reject) => {
    onReady = resolve;
    const timer = setTimeout(
      () => reject(new Error(`child not ready within ${START_TIMEOUT_MS} ms: ${stderr.slice(-2000)}`)),
      START_TIMEOUT_MS,
    );
    timer.unref();
    child.once('exit', (code) => reject(new Error(`child exited with ${code}: ${stderr.slice(-2000)}`)));
  });
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString();
    let nl: number;
    while ((nl = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, nl);
      buffer = buffer.slice(nl + 1);
      if (line === 'READY') onReady();
      else if (line.startsWith('N ')) drained = Number(line.slice(2));
      else if (line.startsWith('M ')) {
        const m = JSON.parse(line.slice(2)) as MemoryUsageLine;
        peaks.heapUsed = Math.max(peaks.heapUsed, m.heapUsed);
        peaks.external = Math.max(peaks.external, m.external);
        if (m.cpuMicros !== undefined && (m.drained ?? 0) > 0) {
          firstCpu ??= m;
          lastCpu = m;
        }
      } else if (line.startsWith('G ')) guard = JSON.parse(line.slice(2)) as GuardLine;
    }
  });
  child.stderr!.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-8000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const cpuMicrosPerEvent = (): number => {
    if (!firstCpu || !lastCpu || lastCpu.drained! <= firstCpu.drained!) return NaN;
    return Math.round(((lastCpu.cpuMicros! - firstCpu.cpuMicros!) / (lastCpu.drained! - firstCpu.drained!)) * 10) / 10;
  };
  return { child, ready, drained: () => drained, peaks: () => peaks, guard: () => guard, cpuMicrosPerEvent, exited };
}

async function stopChild(c: { child: ChildProcess; exited: Promise<void> }): Promise<void> {
  if (c.child.exitCode !== null || c.child.signalCode !== null) return;
  c.child.kill('SIGTERM');
  const timer = setTimeout(() => c.child.kill('SIGKILL'), STOP_TIMEOUT_MS);
  await c.exited;
  clearTimeout(timer);
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Peak RSS of an idle child: one that imported the compiled receiver, or (bare) plain Node. */
async function baselineRss(bare = false): Promise<number> {
  const c = startChild(
    { IDLE: '1' },
    bare ? ['-e', "process.stdout.write('READY\\n'); setInterval(() => undefined, 60000);"] : undefined,
  );
  try {
    await c.ready;
    await sleep(2_000);
    return readRss(c.child.pid!)?.hwmBytes ?? NaN;
  } finally {
    await stopChild(c);
  }
}

async function drainRun(
  connection: string,
  backend: 'polling' | 'streaming',
  delayMs: number,
  seconds: number,
  runtime: Runtime,
  heapLimitMiB?: number,
  memoryLimitMiB?: number,
): Promise<RunResult> {
  const config = {
    connection,
    format: 'raw',
    start_position: 'earliest',
    backend,
    ...(memoryLimitMiB ? { memory: { limit_mib: memoryLimitMiB } } : {}),
    ...EXTRA_CONFIG,
  };
  const c = startChild({
    RECEIVER_CONFIG: JSON.stringify(config),
    CONSUMER_DELAY_MS: String(delayMs),
    RUNTIME: runtime,
    ...(heapLimitMiB ? { HEAP_LIMIT_MIB: String(heapLimitMiB) } : {}),
  });
  const pid = c.child.pid!;
  let maxSampled = 0;
  let hwm = 0;
  const sample = (): void => {
    const s = readRss(pid);
    if (!s) return;
    maxSampled = Math.max(maxSampled, s.rssBytes);
    hwm = Math.max(hwm, s.hwmBytes);
  };
  const sampler = setInterval(sample, SAMPLE_INTERVAL_MS);
  try {
    await c.ready;
    const started = performance.now();
    const deadline = started + seconds * 1000;
    while (c.drained() < TOTAL_EVENTS && performance.now() < deadline) await sleep(SAMPLE_INTERVAL_MS);
    const drainSeconds = (performance.now() - started) / 1000;
    sample();
    const final = readRss(pid)?.rssBytes ?? NaN;
    const drained = c.drained();
    // The child reports its memory guard's counts as it stops.
    if (memoryLimitMiB) await stopChild(c);
    return {
      backend,
      runtime,
      ...(heapLimitMiB ? { heapLimitMiB } : {}),
      ...(memoryLimitMiB ? { memoryLimitMiB, memoryPauses: c.guard()?.pauses, forcedGcs: c.guard()?.forcedGcs } : {}),
      consumerDelayMs: delayMs,
      peakRssMiB: mib(hwm),
      maxSampledRssMiB: mib(maxSampled),
      finalRssMiB: mib(final),
      eventsDrained: drained,
      drainSeconds: Math.round(drainSeconds * 10) / 10,
      eventsPerSecond: Math.round(drained / drainSeconds),
      drainedAll: drained >= TOTAL_EVENTS,
      peakHeapUsedMiB: mib(c.peaks().heapUsed),
      peakExternalMiB: mib(c.peaks().external),
      cpuMicrosPerEvent: c.cpuMicrosPerEvent(),
    };
  } finally {
    clearInterval(sampler);
    await stopChild(c);
  }
}

if (!existsSync(COMPILED))
  throw new Error('receiver-memory measures the compiled package: run `npm run build` first (npm run bench does)');
const emulator = await startEmulator({ port: 0, hubs: [{ name: 'memory', partitions: PARTITIONS }] });
try {
  const preloadStarted = performance.now();
  const body = Buffer.alloc(EVENT_BYTES, 'x');
  const perPartition = Math.ceil(TOTAL_EVENTS / PARTITIONS);
  for (let p = 0; p < PARTITIONS; p++) {
    for (let n = 0; n < perPartition; n += APPEND_CHUNK_EVENTS) {
      const count = Math.min(APPEND_CHUNK_EVENTS, perPartition - n);
      emulator.append(
        'memory',
        String(p),
        Array.from({ length: count }, () => ({ body })),
      );
    }
  }
  const total = perPartition * PARTITIONS;
  console.log(
    `preloaded ${total.toLocaleString('en-US')} events of ${EVENT_BYTES} B over ${PARTITIONS} partitions in ` +
      `${((performance.now() - preloadStarted) / 1000).toFixed(1)} s (bench process RSS ` +
      `${mib(process.memoryUsage().rss)} MiB)`,
  );

  const baseline = await baselineRss();
  const bareNode = await baselineRss(true);
  console.log(
    `baseline: idle child that imported the compiled receiver (as the CLI runs): ${mib(baseline)} MiB RSS; bare ` +
      `idle Node: ${mib(bareNode)} MiB`,
  );
  const connection = emulator.connectionString('memory');
  const runs: RunResult[] = [];
  const slow = SLOW_CONSUMER_DELAY_MS;
  const defaultPlan =
    `polling:${slow}:cli,streaming:${slow}:cli,polling:0:cli,streaming:0:cli,` +
    `polling:${slow}:embedded,streaming:${slow}:embedded`;
  const plan = (process.env.BENCH_MEMORY_PLAN ?? defaultPlan).split(',').map((entry) => {
    const [backend, delay, runtimeSpec = 'cli'] = entry.split(':');
    const [runtime, cap] = runtimeSpec.split('=');
    if (backend !== 'polling' && backend !== 'streaming')
      throw new Error(`BENCH_MEMORY_PLAN: unknown backend ${backend}`);
    if (runtime !== 'cli' && runtime !== 'embedded') throw new Error(`BENCH_MEMORY_PLAN: unknown runtime ${runtime}`);
    const limit = cap === undefined ? undefined : Number(cap);
    if (limit !== undefined && (!Number.isInteger(limit) || limit < 64))
      throw new Error(`BENCH_MEMORY_PLAN: bad limit in ${entry}`);
    // `cli=N`: the worker's heap cap; `embedded=N`: the receiver's memory.limit_mib.
    const heapLimitMiB = runtime === 'cli' ? limit : undefined;
    const memoryLimitMiB = runtime === 'embedded' ? limit : undefined;
    const delayMs = Number(delay ?? SLOW_CONSUMER_DELAY_MS);
    return [
      backend,
      delayMs,
      delayMs > 0 ? RUN_SECONDS : FAST_RUN_SECONDS,
      runtime,
      heapLimitMiB,
      memoryLimitMiB,
    ] as const;
  });
  for (const [backend, delay, seconds, runtime, heapLimitMiB, memoryLimitMiB] of plan) {
    const r = await drainRun(connection, backend, delay, seconds, runtime, heapLimitMiB, memoryLimitMiB);
    runs.push(r);
    const limit = heapLimitMiB ?? memoryLimitMiB;
    const label = limit ? `${runtime}=${limit}` : runtime;
    const guard = memoryLimitMiB
      ? `; memory guard: ${r.memoryPauses ?? '?'} pauses, ${r.forcedGcs ?? '?'} forced GCs`
      : '';
    console.log(
      `${backend.padEnd(9)} ${label.padEnd(8)} consumer ${String(delay).padStart(2)} ms/batch: peak RSS ` +
        `${r.peakRssMiB} MiB (max sampled ${r.maxSampledRssMiB}, at end ${r.finalRssMiB}; ` +
        `${mib(r.peakRssMiB * MIB - baseline)} MiB above baseline; V8 heap used ≤ ${r.peakHeapUsedMiB} MiB, ` +
        `external ≤ ${r.peakExternalMiB} MiB), drained ${r.eventsDrained.toLocaleString('en-US')} events in ` +
        `${r.drainSeconds} s ` +
        `(${r.eventsPerSecond.toLocaleString('en-US')} ev/s, ${r.cpuMicrosPerEvent} µs CPU/` +
        `event)${r.drainedAll ? '' : ' — time limit reached'}; goal ≤ 256 MiB: ` +
        `${r.peakRssMiB * MIB <= GOAL_BYTES ? 'met' : 'NOT met'}${guard}`,
    );
  }
  const benchResult = {
    events: total,
    eventBytes: EVENT_BYTES,
    partitions: PARTITIONS,
    baselineRssMiB: mib(baseline),
    bareNodeRssMiB: mib(bareNode),
    childFlags: CHILD_FLAGS,
    goalMiB: 256,
    runs,
  };
  console.log(`BENCH_RESULT ${JSON.stringify(benchResult)}`);
} finally {
  await emulator.stop();
}
