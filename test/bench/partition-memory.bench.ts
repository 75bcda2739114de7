/**
 * Idle memory per owned partition (issue 14: idle RSS ≤ 150 KiB per owned partition above the process
 * baseline). One receiver process (internal/partition-memory-child.mjs, the compiled dist/) reads every
 * partition of a hub: a 1-partition hub, then a MANY-partition hub (128 by default), same config, same
 * process shape, no checkpoint store (static ownership, so only the backend and the pumps differ). Each
 * hub holds one event per partition, so "open" means every link attached and delivered. Once all
 * delivered, the child idles for BENCH_PARTITION_MEMORY_IDLE_SECONDS (20) while VmRSS is sampled every
 * second; the result is the median of the samples of the second half:
 *   per partition = (RSS at MANY − RSS at 1) ÷ (MANY − 1).
 * The child then reports process.memoryUsage() and V8's heap statistics, and again after forced full
 * collections (the child runs with --expose-gc, only to explain the figure: the live heap per partition,
 * and how much of the RSS is heap that V8 grew and keeps).
 * BENCH_PARTITION_MEMORY_PLAN picks runs, comma-separated `backend:runtime[:variant]`: backend `polling`
 * or `streaming`; runtime `embedded` (main thread, Node's heap sizing) or `cli` (the CLI's heap-capped
 * worker); variant names an entry of VARIANTS below (receiver options or environment for the child).
 * BENCH_PARTITION_MEMORY_PARTITIONS sets MANY. BENCH_PARTITION_MEMORY_CHILD_FLAGS adds Node flags to every
 * child. BENCH_PARTITION_MEMORY_SNAPSHOT=dir writes a heap snapshot of each child after the forced
 * collections; BENCH_PARTITION_MEMORY_PROFILE=dir profiles each child's CPU over its idle window and prints
 * where the time went (what an idle instance keeps doing).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import { startEmulator } from '../../src/emulator/index.ts';
import { startAzurite, type Azurite } from '../helpers/azurite.ts';
import { containerWithForeignClaims, namespaceOf } from './internal/foreign-claims.ts';
import { readRss } from './internal/child-rss.ts';
import { summariseCpuProfile } from './internal/cpu-profile-summary.ts';

const HERE = dirname(fileURLToPath(import.meta.url));
const CHILD = join(HERE, 'internal', 'partition-memory-child.mjs');
const COMPILED = join(HERE, '..', '..', 'dist', 'index.js');
const MANY = Number(process.env.BENCH_PARTITION_MEMORY_PARTITIONS ?? 128);
const HUB_PARTITIONS = Number(process.env.BENCH_PARTITION_MEMORY_HUB_PARTITIONS ?? 1024);
const IDLE_SECONDS = Number(process.env.BENCH_PARTITION_MEMORY_IDLE_SECONDS ?? 30);
const ROUNDS = Number(process.env.BENCH_PARTITION_MEMORY_ROUNDS ?? 3);
const SNAPSHOT_DIR = process.env.BENCH_PARTITION_MEMORY_SNAPSHOT;
const PROFILE_DIR = process.env.BENCH_PARTITION_MEMORY_PROFILE;
/** Extra Node flags for every child, e.g. `--cpu-prof --cpu-prof-dir=.tmp/prof` to see what an idle instance does. */
const CHILD_FLAGS = (process.env.BENCH_PARTITION_MEMORY_CHILD_FLAGS ?? '').split(' ').filter(Boolean);
const SAMPLE_MS = 1_000;
const OPEN_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 15_000;
const GOAL_KIB = 150;
const KIB = 1024;

type Backend = 'polling' | 'streaming';
type Runtime = 'embedded' | 'cli';

/** What a variant changes: receiver options merged into the config, environment of the child. */
interface Variant {
  /**
   * Default: leases and checkpoints in Azurite, as a fleet runs. `static`: no checkpoint store (one
   * instance reads the whole hub), to see the backend and the pumps alone.
   */
  readonly store?: 'static';
  readonly receiver?: Record<string, unknown>;
  readonly env?: Record<string, string>;
  readonly nodeFlags?: readonly string[];
}

const VARIANTS: Record<string, Variant> = {
  default: {},
  /** No checkpoint store: one instance reads the whole hub (the backend and the pumps alone). */
  static: { store: 'static' },
  /** No hub-wide lag (`hub_lag_interval: 0`): what reading every partition's properties costs an instance. */
  nolag: { receiver: { hub_lag_interval: 0 } },
  /** glibc's malloc with at most 2 arenas (every thread shares them), as a container can set it. */
  arenas2: { env: { MALLOC_ARENA_MAX: '2' } },
  /** V8's young generation capped at 1 MiB per semi-space (Node 20's default ceiling is 16 MiB). */
  semi1: { nodeFlags: ['--max-semi-space-size=1'] },
  /** The receiver's memory guard (memory.limit_mib), which also holds V8's heap growth to 1.5× live. */
  guard96: { receiver: { memory: { limit_mib: 96 } } },
};

interface Measure {
  rss: number;
  /** The child's CPU time so far (all threads), µs. */
  cpuMicros: number;
  /** V8's young generation (new space): committed bytes. */
  youngCommitted: number;
  heapUsed: number;
  heapTotal: number;
  external: number;
  arrayBuffers: number;
  mallocedMemory: number;
}

interface Point {
  partitions: number;
  /** Median VmRSS over the second half of the idle window, bytes. */
  idleRss: number;
  idle: Measure;
  afterGc: Measure;
  /** CPU the idle instance used during the idle window, as a share of one core (%). */
  idleCpuPercent: number;
  openSeconds: number;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const kib = (bytes: number): number => Math.round(bytes / KIB);
const round1 = (x: number): number => Math.round(x * 10) / 10;
const mib = (bytes: number): number => Math.round((bytes / KIB / KIB) * 10) / 10;
const show = (p: Point): string =>
  `RSS ${kib(p.idleRss)} KiB, CPU ${p.idleCpuPercent.toFixed(1)} % of a core, heap used ${kib(p.idle.heapUsed)} / ` +
  `total ${kib(p.idle.heapTotal)} (young ${kib(p.idle.youngCommitted)}), ` +
  `external ${kib(p.idle.external)}, ` +
  `array buffers ${kib(p.idle.arrayBuffers)}; after GC: RSS ${kib(p.afterGc.rss)}, heap used ` +
  `${kib(p.afterGc.heapUsed)} / ` +
  `total ${kib(p.afterGc.heapTotal)} (young ${kib(p.afterGc.youngCommitted)}), external ${kib(p.afterGc.external)}`;

class Child {
  readonly process: ChildProcess;
  readonly exited: Promise<void>;
  #buffer = '';
  #stderr = '';
  #waiters: Array<{ prefix: string; resolve: (line: string) => void }> = [];

  constructor(args: string[], env: Record<string, string>) {
    this.process = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    this.exited = new Promise((resolve) => this.process.once('exit', () => resolve()));
    this.process.stderr!.on('data', (c: Buffer) => (this.#stderr = (this.#stderr + c.toString()).slice(-4000)));
    this.process.stdout!.on('data', (chunk: Buffer) => {
      this.#buffer += chunk.toString();
      let nl: number;
      while ((nl = this.#buffer.indexOf('\n')) >= 0) {
        const line = this.#buffer.slice(0, nl);
        this.#buffer = this.#buffer.slice(nl + 1);
        const i = this.#waiters.findIndex((w) => line.startsWith(w.prefix));
        if (i >= 0) this.#waiters.splice(i, 1)[0]!.resolve(line);
      }
    });
  }

  /** The next line that starts with `prefix` (after `command`, if given). */
  next(prefix: string, command?: string, timeoutMs = OPEN_TIMEOUT_MS): Promise<string> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no '${prefix}' from the child in ${timeoutMs} ms: ${this.#stderr}`)),
        timeoutMs,
      );
      const onExit = (): void => reject(new Error(`the child exited: ${this.#stderr}`));
      this.process.once('exit', onExit);
      this.#waiters.push({
        prefix,
        resolve: (line) => {
          clearTimeout(timer);
          this.process.off('exit', onExit);
          resolve(line);
        },
      });
      if (command) this.process.stdin!.write(`${command}\n`);
    });
  }

  async measure(command: 'M' | 'GC'): Promise<Measure> {
    type Reply = Record<
      'vmRss' | 'cpuMicros' | 'heapUsed' | 'heapTotal' | 'external' | 'arrayBuffers' | 'mallocedMemory',
      number
    >;
    const m = JSON.parse((await this.next('M ', command)).slice(2)) as Reply & {
      spaces: Record<string, [number, number]>;
    };
    return { ...m, rss: m.vmRss, youngCommitted: m.spaces.new_space?.[1] ?? NaN };
  }

  async stop(): Promise<void> {
    if (this.process.exitCode !== null || this.process.signalCode !== null) return;
    this.process.stdin!.end();
    const timer = setTimeout(() => this.process.kill('SIGKILL'), STOP_TIMEOUT_MS);
    await this.exited;
    clearTimeout(timer);
  }
}

/**
 * One child owning `partitions` partitions. Blob store: of the big hub (a foreign claim on every other
 * partition), or with `ownHub` of a hub that has only those. Static: it reads the whole of a hub of that size.
 */
async function measurePoint(
  partitions: number,
  backend: Backend,
  runtime: Runtime,
  variant: Variant,
  label: string,
  ownHub = false,
): Promise<Point> {
  const blob = variant.store !== 'static';
  const hub = blob && !ownHub ? 'big' : partitions === 1 ? 'one' : 'many';
  const store = blob
    ? { blob_checkpoint_store: await foreignClaimsStore(hub === 'big' ? partitions : HUB_PARTITIONS) }
    : {};
  const ownership = blob ? { ownership: { strategy: 'greedy', foreign_ownership_expiry: '1h' } } : {};
  const config = {
    connection: emulator.connectionString(hub),
    format: 'raw',
    start_position: 'earliest',
    backend,
    ...store,
    ...ownership,
    ...variant.receiver,
  };
  const env = {
    RECEIVER_CONFIG: JSON.stringify(config),
    EXPECT_PARTITIONS: String(partitions),
    RUNTIME: runtime,
    ...variant.env,
  };
  const child = new Child(['--expose-gc', ...CHILD_FLAGS, ...(variant.nodeFlags ?? []), CHILD], env);
  try {
    const started = performance.now();
    await child.next('ALL');
    const openSeconds = (performance.now() - started) / 1000;
    const samples: number[] = [];
    const before = await child.measure('M');
    if (PROFILE_DIR) child.process.stdin!.write('PROF\n');
    const idleStarted = performance.now();
    for (let s = 1; s <= IDLE_SECONDS; s++) {
      await sleep(SAMPLE_MS);
      const r = readRss(child.process.pid!);
      if (r && s > IDLE_SECONDS / 3) samples.push(r.rssBytes);
    }
    const idle = await child.measure('M');
    if (PROFILE_DIR) {
      mkdirSync(PROFILE_DIR, { recursive: true });
      const path = join(PROFILE_DIR, `${label}-${ownHub ? 'own-hub-' : ''}${partitions}.cpuprofile`);
      await child.next('PROFILED', `PROF ${path}`);
      const summary = summariseCpuProfile(path, 8);
      const top = summary.topFunctions.map((f) => `${f.name} ${f.percent} %`).join(', ');
      console.log(
        `${label} ${partitions} partition(s)${ownHub ? ' of a 1-partition hub' : ''}, idle: busy ` +
          `${Math.round(summary.busyMs)} ms of ` +
          `${IDLE_SECONDS} s: ${summary.categories.map((c) => `${c.category} ${c.percent} %`).join(', ')}; top: ${top}`,
      );
    }
    const idleCpuPercent = (idle.cpuMicros - before.cpuMicros) / 10 / (performance.now() - idleStarted);
    const afterGc = await child.measure('GC');
    if (SNAPSHOT_DIR) {
      mkdirSync(SNAPSHOT_DIR, { recursive: true });
      await child.next('SNAPPED', `SNAP ${join(SNAPSHOT_DIR, `${label}-${partitions}.heapsnapshot`)}`);
    }
    return { partitions, idleRss: median(samples), idle, afterGc, idleCpuPercent, openSeconds };
  } finally {
    await child.stop();
  }
}

interface RunResult {
  backend: Backend;
  runtime: Runtime;
  variant: string;
  partitions: number;
  /** (idle RSS at MANY − at 1) ÷ (MANY − 1), KiB, median of the rounds: the figure the goal is about. */
  rssKibPerPartition: number;
  /** Each round's figure, KiB. */
  rssKibPerPartitionRounds: number[];
  /** The same difference for V8's heap used and total while idle, and the live heap after forced collections, KiB. */
  heapUsedKibPerPartition: number;
  heapTotalKibPerPartition: number;
  liveHeapKibPerPartition: number;
  externalKibPerPartition: number;
  /** RSS per partition after the forced collections, KiB. */
  rssAfterGcKibPerPartition: number;
  /** Median idle RSS of the 1-partition and the MANY-partition instances, MiB. */
  oneRssMiB: number;
  manyRssMiB: number;
  /** Blob store only: idle RSS of an instance of a 1-partition hub, MiB (what the hub's size costs). */
  ownHubRssMiB?: number;
  /** CPU of the idle instances, % of one core: 1 partition, MANY partitions, 1 partition of a 1-partition hub. */
  oneCpuPercent: number;
  manyCpuPercent: number;
  ownHubCpuPercent?: number;
  openSeconds: number;
}

let azurite: Azurite | undefined;

/**
 * A fresh container in Azurite (started on first use) for the receiver's blob_checkpoint_store, where a
 * processor outside the fleet holds every partition of the big hub from `owned` on: the receiver owns
 * partitions 0 to owned − 1 of a hub of HUB_PARTITIONS, as one instance of a fleet does.
 */
async function foreignClaimsStore(owned: number): Promise<{ connection: string; container_name: string }> {
  azurite ??= await startAzurite();
  const container = await containerWithForeignClaims({
    storageConnection: azurite.connectionString,
    fullyQualifiedNamespace,
    hub: 'big',
    hubPartitions: HUB_PARTITIONS,
    owned,
  });
  return { connection: azurite.connectionString, container_name: container };
}

if (!existsSync(COMPILED))
  throw new Error('partition-memory measures the compiled package: run `npm run build` first (npm run bench does)');
const emulator = await startEmulator({
  port: 0,
  tier: 'dedicated',
  hubs: [
    { name: 'big', partitions: HUB_PARTITIONS },
    { name: 'one', partitions: 1 },
    { name: 'many', partitions: MANY },
  ],
});
// The namespace as the receiver names it in blob names (the SDK's reading of the endpoint).
const fullyQualifiedNamespace = await namespaceOf(emulator.connectionString('big'));
try {
  for (const [hub, count] of [
    ['big', HUB_PARTITIONS],
    ['one', 1],
    ['many', MANY],
  ] as const) {
    for (let p = 0; p < count; p++) emulator.append(hub, String(p), [{ body: 'x' }]);
  }
  const plan = (process.env.BENCH_PARTITION_MEMORY_PLAN ?? 'polling:embedded,streaming:embedded')
    .split(',')
    .map((entry) => {
      const [backend, runtime = 'embedded', variant = 'default'] = entry.split(':');
      if (backend !== 'polling' && backend !== 'streaming')
        throw new Error(`BENCH_PARTITION_MEMORY_PLAN: unknown backend ${backend}`);
      if (runtime !== 'embedded' && runtime !== 'cli')
        throw new Error(`BENCH_PARTITION_MEMORY_PLAN: unknown runtime ${runtime}`);
      if (!VARIANTS[variant])
        throw new Error(
          `BENCH_PARTITION_MEMORY_PLAN: unknown variant ${variant} (${Object.keys(VARIANTS).join(', ')})`,
        );
      return { backend: backend as Backend, runtime: runtime as Runtime, variant };
    });
  const runs: RunResult[] = [];
  for (const { backend, runtime, variant } of plan) {
    const label = `${backend}-${runtime}-${variant}`;
    const v = VARIANTS[variant]!;
    const ones: Point[] = [];
    const manys: Point[] = [];
    // Rounds alternate the two sizes, so that a change in the machine's load touches both alike.
    for (let round = 0; round < ROUNDS; round++) {
      ones.push(await measurePoint(1, backend, runtime, v, label));
      manys.push(await measurePoint(MANY, backend, runtime, v, label));
      console.log(`${label} round ${round + 1}:   1 partition:  ${show(ones.at(-1)!)}`);
      console.log(
        `${label} round ${round + 1}: ${String(MANY).padStart(3)} partitions: ${show(manys.at(-1)!)} (all delivered ` +
          `after ${manys.at(-1)!.openSeconds.toFixed(1)} s)`,
      );
    }
    const ownHub = v.store === 'static' ? undefined : await measurePoint(1, backend, runtime, v, label, true);
    if (ownHub) console.log(`${label}: 1 partition of a 1-partition hub: ${show(ownHub)}`);
    const per = (f: (p: Point) => number): number => kib((median(manys.map(f)) - median(ones.map(f))) / (MANY - 1));
    const rounds = ones.map((one, i) => kib((manys[i]!.idleRss - one.idleRss) / (MANY - 1)));
    const r: RunResult = {
      backend,
      runtime,
      variant,
      partitions: MANY,
      rssKibPerPartition: per((p) => p.idleRss),
      rssKibPerPartitionRounds: rounds,
      heapUsedKibPerPartition: per((p) => p.idle.heapUsed),
      heapTotalKibPerPartition: per((p) => p.idle.heapTotal),
      liveHeapKibPerPartition: per((p) => p.afterGc.heapUsed),
      externalKibPerPartition: per((p) => p.afterGc.external),
      rssAfterGcKibPerPartition: per((p) => p.afterGc.rss),
      oneRssMiB: mib(median(ones.map((p) => p.idleRss))),
      manyRssMiB: mib(median(manys.map((p) => p.idleRss))),
      ...(ownHub ? { ownHubRssMiB: mib(ownHub.idleRss) } : {}),
      oneCpuPercent: round1(median(ones.map((p) => p.idleCpuPercent))),
      manyCpuPercent: round1(median(manys.map((p) => p.idleCpuPercent))),
      ...(ownHub ? { ownHubCpuPercent: round1(ownHub.idleCpuPercent) } : {}),
      openSeconds: Math.round(median(manys.map((p) => p.openSeconds)) * 10) / 10,
    };
    runs.push(r);
    console.log(
      `${label}: per owned partition: idle RSS ${r.rssKibPerPartition} KiB (rounds ${rounds.join(', ')}; goal ≤ ` +
        `${GOAL_KIB}: ` +
        `${r.rssKibPerPartition <= GOAL_KIB ? 'met' : 'NOT met'}); V8 heap used ${r.heapUsedKibPerPartition}, heap ` +
        `total ` +
        `${r.heapTotalKibPerPartition}, live heap after GC ${r.liveHeapKibPerPartition}, external ` +
        `${r.externalKibPerPartition}, ` +
        `RSS after GC ${r.rssAfterGcKibPerPartition} KiB. Idle RSS: 1 partition ${r.oneRssMiB} MiB, ${MANY} ` +
        `partitions ${r.manyRssMiB} MiB` +
        (ownHub ? `, 1 partition of a 1-partition hub ${r.ownHubRssMiB} MiB` : ''),
    );
  }
  const benchResult = {
    partitions: MANY,
    idleSeconds: IDLE_SECONDS,
    rounds: ROUNDS,
    hubPartitions: HUB_PARTITIONS,
    goalKibPerPartition: GOAL_KIB,
    runs,
  };
  console.log(`BENCH_RESULT ${JSON.stringify(benchResult)}`);
} finally {
  await emulator.stop();
  await azurite?.stop();
}
