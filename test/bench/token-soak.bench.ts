/**
 * Token-renewal soak: each backend (a child process, internal/token-soak-child.ts) reads a 4-partition
 * hub of the emulator for BENCH_TOKEN_SOAK_MINUTES (default 30) under a steady load of
 * BENCH_TOKEN_SOAK_RATE events/s (default 100), with SAS tokens living BENCH_TOKEN_SOAK_LIFETIME_MS
 * (default 120000, so each claim is renewed every 90 s). The emulator (with `sasKeys`) refuses expired
 * tokens and detaches links whose claim expired. Reports per backend: renewals per audience (from the
 * emulator's claims audit), refused puts, links detached for expiry, events lost and duplicated (counted
 * by id), and the child's RSS: samples every 10 s, and the slope per hour of a least-squares line over
 * the samples after the warm-up (the first fifth of the run, at most 3 min). The backends run at the same
 * time (BENCH_TOKEN_SOAK_BACKENDS, default `polling,streaming`). Exits 1 if anything was lost, refused or
 * detached for expiry.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { startEmulator } from '../../src/emulator/index.ts';
import type { BackendKind } from '../../src/backends/consumer.ts';
import { randomName } from '../helpers/azurite.ts';
import { PARTITION_AUDIENCE, SteadyLoad, claimsPerAudience } from '../helpers/token-soak.ts';
import { mib, readRss } from './internal/child-rss.ts';
import { CHILD_EXEC_ARGV, childModulePath } from './internal/child-loader.ts';

const MINUTES = Number(process.env.BENCH_TOKEN_SOAK_MINUTES ?? 30);
const LIFETIME_MS = Number(process.env.BENCH_TOKEN_SOAK_LIFETIME_MS ?? 120_000);
const RATE = Number(process.env.BENCH_TOKEN_SOAK_RATE ?? 100);
const KINDS = (process.env.BENCH_TOKEN_SOAK_BACKENDS ?? 'polling,streaming').split(',') as BackendKind[];
const PARTITIONS = 4;
const SAMPLE_MS = 10_000;
const DURATION_MS = MINUTES * 60_000;
const WARMUP_MS = Math.min(3 * 60_000, DURATION_MS / 5);
const KEY_NAME = 'RootManageSharedAccessKey';
const KEY = 'dG9rZW4tc29hay1iZW5jaC1rZXk=';

interface Run {
  kind: BackendKind;
  hub: string;
  load: SteadyLoad;
  child: ChildProcess;
  /** [ms since start, RSS bytes]. */
  rss: Array<[number, number]>;
}

/** Least-squares slope of y over x. */
function slope(points: ReadonlyArray<readonly [number, number]>): number {
  const n = points.length;
  if (n < 2) return NaN;
  const mx = points.reduce((s, [x]) => s + x, 0) / n;
  const my = points.reduce((s, [, y]) => s + y, 0) / n;
  const sxy = points.reduce((s, [x, y]) => s + (x - mx) * (y - my), 0);
  const sxx = points.reduce((s, [x]) => s + (x - mx) ** 2, 0);
  return sxy / sxx;
}

function ask<T>(child: ChildProcess, message: object, answer: string): Promise<T> {
  return new Promise((resolve) => {
    const onMessage = (m: { type: string }) => {
      if (m.type !== answer) return;
      child.off('message', onMessage);
      resolve(m as T);
    };
    child.on('message', onMessage);
    child.send(message);
  });
}

const emulator = await startEmulator({ port: 0, sasKeys: { [KEY_NAME]: KEY }, retentionMs: 10 * 60_000 });
const emulatorRss: Array<[number, number]> = [];
const runs: Run[] = [];
const started = Date.now();
try {
  for (const kind of KINDS) {
    const hub = randomName(`soak-${kind}`);
    emulator.addHub({ name: hub, partitions: PARTITIONS });
    const child = fork(childModulePath('./internal/token-soak-child.ts', import.meta.url), [], {
      execArgv: [...CHILD_EXEC_ARGV],
      env: {
        ...process.env,
        TOKEN_SOAK_KIND: kind,
        TOKEN_SOAK_CONNECTION_STRING: emulator
          .connectionString(hub)
          .replace(/SharedAccessKey=[^;]*/, `SharedAccessKey=${KEY}`),
        TOKEN_SOAK_LIFETIME_MS: String(LIFETIME_MS),
        TOKEN_SOAK_PARTITIONS: String(PARTITIONS),
      },
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    await new Promise((resolve) => child.once('message', resolve));
    const load = new SteadyLoad(emulator, hub, PARTITIONS, RATE);
    load.start();
    runs.push({ kind, hub, load, child, rss: [] });
  }
  console.log(
    `token soak: ${KINDS.join(' + ')} for ${MINUTES} min, tokens living ${LIFETIME_MS / 1000} s, ${RATE} events/s ` +
      `each, ${PARTITIONS} partitions`,
  );
  let nextPrint = 60_000;
  while (Date.now() - started < DURATION_MS) {
    await new Promise((resolve) => setTimeout(resolve, SAMPLE_MS));
    const t = Date.now() - started;
    for (const run of runs) {
      const sample = readRss(run.child.pid!);
      if (sample) run.rss.push([t, sample.rssBytes]);
    }
    emulatorRss.push([t, process.memoryUsage().rss]);
    if (t >= nextPrint) {
      nextPrint += 60_000;
      const line = runs
        .map((r) => `${r.kind} rss ${mib(r.rss.at(-1)?.[1] ?? NaN)} MiB, sent ${r.load.total}`)
        .join('; ');
      console.log(
        `  ${Math.round(t / 60_000)} min: ${line}; renewals so far ` +
          `${claimsPerAudience(emulator).reduce((s, c) => s + c.renewals, 0)}`,
      );
    }
  }
  for (const run of runs) run.load.stop();

  const results: Record<string, unknown> = {};
  let failed = false;
  for (const run of runs) {
    // Let the readers catch up with the last events (at most 30 s).
    let report = await ask<{
      missing: number;
      counts: Array<{ unique: number; duplicates: number }>;
      errors: string[];
    }>(run.child, { type: 'report', sent: run.load.sent }, 'report');
    for (const deadline = Date.now() + 30_000; report.missing > 0 && Date.now() < deadline; ) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      report = await ask(run.child, { type: 'report', sent: run.load.sent }, 'report');
    }
    await ask(run.child, { type: 'finish' }, 'finished');
    const ofHub = new RegExp(`/${run.hub}(/|$)`, 'i');
    const claims = claimsPerAudience(emulator).filter((c) => ofHub.test(c.audience));
    const partitionClaims = claims.filter((c) => PARTITION_AUDIENCE.test(c.audience));
    const expired = emulator.claims.expiredLinks.filter((l) =>
      l.entityPath.toLowerCase().startsWith(run.hub.toLowerCase()),
    );
    const detached = emulator.audit.records.filter(
      (r) => r.hub === run.hub && r.detachedAt !== undefined && r.detachedAt < started + DURATION_MS,
    );
    const afterWarmup = run.rss
      .filter(([t]) => t >= WARMUP_MS)
      .map(([t, b]) => [t / 3_600_000, b / (1024 * 1024)] as const);
    const result = {
      sent: run.load.total,
      lost: report.missing,
      duplicates: report.counts.reduce((s, c) => s + c.duplicates, 0),
      renewals: claims.reduce((s, c) => s + c.renewals, 0),
      partitionRenewalsMin: Math.min(...partitionClaims.map((c) => c.renewals)),
      partitionRenewalsMax: Math.max(...partitionClaims.map((c) => c.renewals)),
      audiences: claims.length,
      refusedPuts: claims.reduce((s, c) => s + c.refused, 0),
      linksDetachedForExpiry: expired.length,
      receiverLinksDetached: detached.length,
      readerErrors: report.errors.length,
      rssStartMiB: mib(run.rss.find(([t]) => t >= WARMUP_MS)?.[1] ?? NaN),
      rssEndMiB: mib(run.rss.at(-1)?.[1] ?? NaN),
      rssMaxMiB: mib(Math.max(...run.rss.map(([, b]) => b))),
      rssSlopeMiBPerHour: Math.round(slope(afterWarmup) * 10) / 10,
      rssSamplesMiB: run.rss.map(([, b]) => mib(b)),
    };
    results[run.kind] = result;
    failed ||= result.lost > 0 || result.refusedPuts > 0 || result.linksDetachedForExpiry > 0;
    const { rssSamplesMiB, ...summary } = result;
    console.log(`${run.kind}: ${JSON.stringify(summary)}`);
    console.log(`${run.kind} RSS samples (MiB, every ${SAMPLE_MS / 1000} s): ${rssSamplesMiB.join(' ')}`);
    if (report.errors.length) console.log(`${run.kind} reader errors: ${report.errors.slice(0, 5).join(' | ')}`);
  }
  const emulatorAfterWarmup = emulatorRss
    .filter(([t]) => t >= WARMUP_MS)
    .map(([t, b]) => [t / 3_600_000, b / (1024 * 1024)] as const);
  const emulatorSummary = {
    rssEndMiB: mib(emulatorRss.at(-1)?.[1] ?? NaN),
    rssSlopeMiBPerHour: Math.round(slope(emulatorAfterWarmup) * 10) / 10,
  };
  console.log(`emulator (bench process): ${JSON.stringify(emulatorSummary)}`);
  const benchResult = {
    minutes: MINUTES,
    tokenLifetimeMs: LIFETIME_MS,
    eventsPerSecond: RATE,
    partitions: PARTITIONS,
    ...results,
    emulator: emulatorSummary,
  };
  console.log(`BENCH_RESULT ${JSON.stringify(benchResult)}`);
  process.exitCode = failed ? 1 : 0;
} finally {
  for (const run of runs) {
    run.load.stop();
    if (run.child.exitCode === null) run.child.kill();
  }
  await emulator.stop();
}
