#!/usr/bin/env node
// Runs every *.test.ts under the given folders or files (default: test/) with node's built-in test runner,
// one process per test file, TEST_CONCURRENCY (default: the cores, at least 2) at a time, longest first
// (scripts/test-durations.json; a long file started last would run alone at the end while the other slots
// idle). Prints one line per file, the output of every file that failed, and a summary with the slowest files.
//
// --compiled runs the JavaScript that scripts/build-tests.mjs compiled into .test-build/ (what `npm test`
// does): no TypeScript loader in the test processes, which saves 1-3 s of CPU per file. Without it, the
// sources run through tsx. --record-durations writes this run's times to scripts/test-durations.json.
// Other --flags are passed to node (e.g. --test-name-pattern=...).
import { existsSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { availableParallelism, tmpdir } from 'node:os';

const argv = process.argv.slice(2);
const compiled = argv.includes('--compiled');
const record = argv.includes('--record-durations');
const roots = argv.filter((a) => !a.startsWith('--'));
const passthrough = argv.filter((a) => a.startsWith('--') && a !== '--compiled' && a !== '--record-durations');
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
const weight = (f) => Number(durations[f] ?? 0);
files.sort((a, b) => weight(b) - weight(a)); // stable: unlisted files keep their path order

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
// One more file than cores: most integration files spend much of their time waiting (leases, child processes).
const concurrency = Number(process.env.TEST_CONCURRENCY ?? availableParallelism() + 1);
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

function runFile(file) {
  return new Promise((resolve) => {
    const t0 = Date.now();
    // TEST_CPU=1: measure each file's CPU (user + system, its child processes included) with GNU time.
    const cpuFile = process.env.TEST_CPU
      ? join(tmpdir(), `test-cpu-${process.pid}-${results.length}-${Math.random()}`)
      : undefined;
    const command = cpuFile ? ['/usr/bin/time', '-f', '%U %S', '-o', cpuFile, process.execPath] : [process.execPath];
    const child = spawn(command[0], [...command.slice(1), ...nodeArgs, runnable(file)], {
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
      results.push({ file, seconds, ok, counts, cpu });
      const cpuText = cpu === undefined ? '' : `  cpu ${cpu.toFixed(1)} s`;
      const line =
        `${ok ? 'ok  ' : 'FAIL'} ${seconds.toFixed(1).padStart(6)} s  ${file}  (${counts.pass}/` +
        `${counts.tests})${cpuText}`;
      if (ok) console.log(line);
      else {
        console.log(
          `${line}  exit ${code ?? signal}\n----- ${file} -----\n${out.trimEnd()}\n----- end of ${file} -----`,
        );
      }
      resolve();
    });
  });
}

const queue = [...files];
await Promise.all(
  Array.from({ length: Math.min(concurrency, queue.length) }, async () => {
    for (let file = queue.shift(); file !== undefined; file = queue.shift()) await runFile(file);
  }),
);

await sharedAzurite?.stop();
const failed = results.filter((r) => !r.ok);
const wall = (Date.now() - started) / 1000;
console.log(`\n# files ${results.length} (${failed.length} failed), concurrency ${concurrency}, ${wall.toFixed(0)} s`);
for (const k of COUNTS) console.log(`# ${k} ${totals[k]}`);
const cpuTotal = results.reduce((sum, r) => sum + (r.cpu ?? 0), 0);
if (cpuTotal > 0) console.log(`# cpu ${cpuTotal.toFixed(0)} s`);
console.log('# slowest files:');
for (const r of [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 12))
  console.log(`#   ${r.seconds.toFixed(1).padStart(6)} s  ${r.file}`);
if (failed.length > 0) console.log(`# failed files:\n${failed.map((r) => `#   ${r.file}`).join('\n')}`);
if (record) {
  const next = { ...durations };
  for (const r of results) next[r.file] = Math.round(r.seconds);
  const sorted = Object.fromEntries(
    Object.entries(next).sort((a, b) => (a[0] === '//' ? -1 : b[0] === '//' ? 1 : b[1] - a[1])),
  );
  writeFileSync(durationsFile, `${JSON.stringify(sorted, null, 2)}\n`);
}
process.exitCode = failed.length > 0 ? 1 : 0;
