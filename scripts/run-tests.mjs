#!/usr/bin/env node
// Runs every *.test.ts under the given folders or files (default: test/) with node's built-in test runner and
// prints one line per file, the output of every file that failed, and a summary with the slowest files.
//
// Scheduling: the suite is CPU-bound on a small machine, but many integration files mostly wait (leases,
// child processes, outages), so a fixed number of files at once either idles the cores or overloads them.
// Each file's share of a core (its CPU seconds over its wall seconds in a recorded run,
// scripts/test-durations.json) is its load; files start longest first while the loads of the running files
// fit in the cores, and a lighter file fills a gap a heavy one does not fit in. TEST_CONCURRENCY=N instead
// runs N files at once whatever their load. Files the durations file does not know count as one core.
//
// Grouped files share processes: each process imports a group of test files (node:test runs them in one
// root, one after the other). That is every unit test (test/unit/), and the integration tests of the emulator
// and the exporters, which run their servers in their own process and start no child that outlives a test;
// a file that acts on its whole process says `// run-tests: own process` in its first lines and runs alone.
// A Node process that loads the project costs about 0.4-1 s of CPU, paid once per group instead of once per
// file (the 147 unit files: 69 s of CPU alone, 28 s in groups; the 26 emulator and exporter files: 42 s
// alone, 28 s together). TEST_GROUPS sets the number of groups (default: cores + 1; 0, or --isolated, runs
// every file alone).
//
// --compiled runs the JavaScript that scripts/build-tests.mjs compiled into .test-build/ (what `npm test`
// does): no TypeScript loader in the test processes, which saves 1-3 s of CPU per file. Without it, the
// sources run through tsx. --isolated runs every file in a process of its own. --record-durations writes
// this run's times to scripts/test-durations.json (with TEST_CPU=1, which measures each file's CPU with
// GNU time, their CPU too). Other --flags are passed to node (e.g. --test-name-pattern=...).
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative, resolve, sep } from 'node:path';
import { pathToFileURL } from 'node:url';
import { spawn } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';

const argv = process.argv.slice(2);
const compiled = argv.includes('--compiled');
const record = argv.includes('--record-durations');
const isolated = argv.includes('--isolated');
const roots = argv.filter((a) => !a.startsWith('--'));
const OWN_FLAGS = ['--compiled', '--record-durations', '--isolated'];
const passthrough = argv.filter((a) => a.startsWith('--') && !OWN_FLAGS.includes(a));
const files = [];
function walk(path) {
  const st = statSync(path);
  if (st.isFile()) {
    if (path.endsWith('.test.ts')) files.push(relative(process.cwd(), path));
    return;
  }
  for (const name of readdirSync(path).sort()) {
    if (name === 'node_modules' || name.startsWith('.')) continue;
    walk(join(path, name));
  }
}
for (const root of roots.length ? roots : ['test']) walk(root);
if (files.length === 0) {
  console.error(`no test files under ${roots.join(', ') || 'test'}`);
  process.exit(1);
}
const durationsFile = new URL('./test-durations.json', import.meta.url);
const durations = JSON.parse(readFileSync(durationsFile, 'utf8'));
/** A file's recorded [wall seconds, CPU seconds]; an older entry may hold the wall seconds alone. */
const recorded = (f) => {
  const entry = durations[f];
  return Array.isArray(entry) ? entry : typeof entry === 'number' ? [entry, undefined] : [0, undefined];
};
files.sort((a, b) => recorded(b)[0] - recorded(a)[0]); // stable: unlisted files keep their path order

const BUILD = '.test-build';
const runnable = (f) => (compiled ? join(BUILD, f.replace(/\.ts$/, '.js')) : f);
if (compiled) {
  const missing = files.map(runnable).filter((f) => !existsSync(f));
  if (missing.length > 0) {
    console.error(
      `--compiled: ${missing.length} test file(s) not compiled (first: ${missing[0]}); run node scripts/` +
        `build-tests.mjs first`,
    );
    process.exit(1);
  }
}
const cores = availableParallelism();
const fixedConcurrency = process.env.TEST_CONCURRENCY ? Number(process.env.TEST_CONCURRENCY) : undefined;
/** At most this many files at once, whatever their loads (each holds memory, ports and child processes). */
const MAX_RUNNING = fixedConcurrency ?? cores * 3;

/**
 * What runs: one job per file, except grouped files, which go into TEST_GROUPS groups of about equal
 * recorded time (longest first, each file to the group with the least so far). A group's load is its files'.
 */
const jobs = [];
const groupCount = isolated ? 0 : Number(process.env.TEST_GROUPS ?? cores + 1);
const GROUPED_FOLDERS = ['test/unit/', 'test/integration/emulator/', 'test/integration/exporters/'];
/** A file that acts on its whole process (heap snapshots, process-wide hooks) says so in its first lines. */
const OWN_PROCESS = /^\/\/ run-tests: own process\b/m;
const ownProcess = (f) => OWN_PROCESS.test(readFileSync(f, 'utf8').slice(0, 1000));
const grouped = (f) => GROUPED_FOLDERS.some((folder) => f.split(sep).join('/').startsWith(folder)) && !ownProcess(f);
const groupedFiles = groupCount > 0 ? files.filter(grouped) : [];
const inGroup = new Set(groupedFiles);
for (const file of files) {
  if (inGroup.has(file)) continue;
  const [wall, cpu] = recorded(file);
  jobs.push({ name: file, files: [file], wall, load: cpu === undefined || wall === 0 ? 1 : cpu / wall });
}
if (groupedFiles.length > 0) {
  const groups = Array.from({ length: Math.min(groupCount, groupedFiles.length) }, () => ({
    files: [],
    wall: 0,
    cpu: 0,
  }));
  for (const file of groupedFiles) {
    const group = groups.reduce((least, g) =>
      g.wall < least.wall || (g.wall === least.wall && g.files.length < least.files.length) ? g : least,
    );
    const [wall, cpu] = recorded(file);
    group.files.push(file);
    group.wall += wall;
    group.cpu += cpu ?? wall;
  }
  groups.forEach((g, i) =>
    jobs.push({
      name: `group ${i + 1} of ${groups.length} (${g.files.length} files)`,
      group: true,
      files: g.files,
      wall: g.wall,
      load: g.wall === 0 ? 1 : Math.min(1, g.cpu / g.wall),
    }),
  );
  jobs.sort((a, b) => b.wall - a.wall);
}
const nodeArgs = [
  ...(compiled ? [] : ['--import', 'tsx']),
  // Report writes that --test-force-exit cannot cut short (see blocking-stdio.mjs).
  '--import',
  new URL('./blocking-stdio.mjs', import.meta.url).href,
  // A test file's process ends when its tests end: @azure/event-hubs 6.0.4 leaves a 45-minute token
  // renewal timer behind after a receiver reconnects, which would otherwise keep the file running.
  '--test-force-exit',
  // No single test may hang the suite; tests that need longer set their own timeout.
  '--test-timeout=300000',
  '--test-reporter=tap',
  ...passthrough,
];

// One Azurite for every test file (test/helpers/azurite.ts says which tests take their own): its start costs
// about 1.5 s of CPU, paid once instead of some 80 times. TEST_SHARED_AZURITE=0 gives every test its own.
let sharedAzurite;
if (process.env.TEST_SHARED_AZURITE !== '0') {
  const launcher = compiled
    ? await import(new URL(`../${BUILD}/scripts/local/azurite.js`, import.meta.url).href)
    : await (await import('tsx/esm/api')).tsImport('./local/azurite.ts', import.meta.url);
  sharedAzurite = await launcher.startAzurite();
  process.env.TEST_SHARED_AZURITE_PORT = String(sharedAzurite.port);
}

const COUNTS = ['tests', 'pass', 'fail', 'cancelled', 'skipped', 'todo'];
const totals = Object.fromEntries(COUNTS.map((k) => [k, 0]));
const results = [];
const started = Date.now();

/** The module a job's process runs: the file itself, or for a group, a module importing each of its files. */
function entryOf(job) {
  if (!job.group) return runnable(job.files[0]);
  // Static imports: every file registers its tests before any runs (a dynamic import could land after
  // --test-force-exit has ended the process at the end of the tests registered so far).
  const entry = join(tmpdir(), `test-group-${process.pid}-${jobs.indexOf(job)}.mjs`);
  const lines = job.files.map((f) => `import ${JSON.stringify(pathToFileURL(resolve(runnable(f))).href)};`);
  writeFileSync(entry, `${lines.join('\n')}\n`);
  entries.push(entry);
  return entry;
}
const entries = [];

function runJob(job) {
  return new Promise((done) => {
    const t0 = Date.now();
    // TEST_CPU=1: measure each file's CPU (user + system, its child processes included) with GNU time.
    const cpuFile = process.env.TEST_CPU
      ? join(tmpdir(), `test-cpu-${process.pid}-${results.length}-${Math.random()}`)
      : undefined;
    const command = cpuFile ? ['/usr/bin/time', '-f', '%U %S', '-o', cpuFile, process.execPath] : [process.execPath];
    const child = spawn(command[0], [...command.slice(1), ...nodeArgs, entryOf(job)], {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NODE_ENV: 'test' },
    });
    let out = '';
    child.stdout.on('data', (c) => (out += c));
    child.stderr.on('data', (c) => (out += c));
    child.on('close', (code, signal) => {
      const seconds = (Date.now() - t0) / 1000;
      let cpu;
      if (cpuFile && existsSync(cpuFile)) {
        const m = /([\d.]+) ([\d.]+)\s*$/.exec(readFileSync(cpuFile, 'utf8'));
        if (m) cpu = Number(m[1]) + Number(m[2]);
        rmSync(cpuFile, { force: true });
      }
      const counts = Object.fromEntries(
        COUNTS.map((k) => [k, Number(new RegExp(`^# ${k} (\\d+)$`, 'm').exec(out)?.[1] ?? 0)]),
      );
      const summarised = /^# tests \d+$/m.test(out);
      const ok = code === 0 && summarised && counts.fail === 0 && counts.cancelled === 0;
      for (const k of COUNTS) totals[k] += counts[k];
      results.push({ job, seconds, ok, counts, cpu });
      const cpuText = cpu === undefined ? '' : `  cpu ${cpu.toFixed(1)} s`;
      const line =
        `${ok ? 'ok  ' : 'FAIL'} ${seconds.toFixed(1).padStart(6)} s  ${job.name}  (${counts.pass}/` +
        `${counts.tests})${cpuText}`;
      if (ok) console.log(line);
      else {
        const files = job.files.length > 1 ? `\n(files: ${job.files.join(' ')})` : '';
        console.log(
          `${line}  exit ${code ?? signal}${files}\n----- ${job.name} -----\n${out.trimEnd()}\n` +
            `----- end of ${job.name} -----`,
        );
      }
      done();
    });
  });
}

// Longest first, while the running jobs' loads fit in the cores (or, with TEST_CONCURRENCY, while fewer than
// that many run); a job that does not fit waits for the next end, and a lighter one behind it may start.
await new Promise((allDone) => {
  const pending = [...jobs];
  let running = 0;
  let runningLoad = 0;
  const fits = (job) =>
    running === 0 || (running < MAX_RUNNING && (fixedConcurrency !== undefined || runningLoad + job.load <= cores));
  const startWhatFits = () => {
    for (let i = 0; i < pending.length; ) {
      const job = pending[i];
      if (!fits(job)) {
        i++;
        continue;
      }
      pending.splice(i, 1);
      running++;
      runningLoad += job.load;
      runJob(job).then(() => {
        running--;
        runningLoad -= job.load;
        if (pending.length === 0 && running === 0) allDone();
        else startWhatFits();
      });
    }
  };
  if (jobs.length === 0) allDone();
  else startWhatFits();
});
for (const entry of entries) rmSync(entry, { force: true });

await sharedAzurite?.stop();
const failed = results.filter((r) => !r.ok);
const wall = (Date.now() - started) / 1000;
const scheduling =
  fixedConcurrency === undefined ? `by load on ${cores} cores` : `${fixedConcurrency} at a time (TEST_CONCURRENCY)`;
console.log(
  `\n# files ${files.length} in ${results.length} processes (${failed.length} failed), ${scheduling}, ` +
    `${wall.toFixed(0)} s`,
);
for (const k of COUNTS) console.log(`# ${k} ${totals[k]}`);
const cpuTotal = results.reduce((sum, r) => sum + (r.cpu ?? 0), 0);
if (cpuTotal > 0) console.log(`# cpu ${cpuTotal.toFixed(0)} s`);
console.log('# slowest:');
for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 12))
  console.log(`#   ${r.seconds.toFixed(1).padStart(6)} s  ${r.job.name}`);
if (failed.length > 0) console.log(`# failed:\n${failed.map((r) => `#   ${r.job.name}`).join('\n')}`);
if (record) {
  // Only files run alone are timed; a grouped file keeps its entry (refresh them with --isolated).
  const next = { ...durations };
  for (const r of results) {
    if (r.job.group) continue;
    const wall = Math.round(r.seconds * 10) / 10;
    next[r.job.name] = r.cpu === undefined ? wall : [wall, Math.round(r.cpu * 10) / 10];
  }
  const seconds = (v) => (Array.isArray(v) ? v[0] : v);
  const sorted = Object.fromEntries(
    Object.entries(next).sort((a, b) => (a[0] === '//' ? -1 : b[0] === '//' ? 1 : seconds(b[1]) - seconds(a[1]))),
  );
  const value = (v) => (Array.isArray(v) ? `[${v.join(', ')}]` : JSON.stringify(v));
  const body = Object.entries(sorted).map(([k, v]) => `  ${JSON.stringify(k)}: ${value(v)}`);
  writeFileSync(durationsFile, `{\n${body.join(',\n')}\n}\n`);
}
process.exitCode = failed.length > 0 ? 1 : 0;
