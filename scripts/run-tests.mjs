#!/usr/bin/env node
// Runs every *.test.ts under the given folders (default: test/) with node's built-in test runner,
// TypeScript loaded through tsx. Node 20's --test does not expand globs or find .ts files itself,
// so the file list is made here. TEST_CONCURRENCY overrides how many files run at once.
// Files run longest first (scripts/test-durations.json, refreshed with scripts/time-test-files.mjs): a long
// file started last would otherwise run alone at the end while the other slots idle.
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { spawn } from 'node:child_process';
import { availableParallelism } from 'node:os';

const roots = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const passthrough = process.argv.slice(2).filter((a) => a.startsWith('--'));
const files = [];
function walk(path) {
  const st = statSync(path);
  if (st.isFile()) {
    if (path.endsWith('.test.ts')) files.push(path);
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
const durations = JSON.parse(readFileSync(new URL('./test-durations.json', import.meta.url), 'utf8'));
const weight = (f) => Number(durations[relative(process.cwd(), f)] ?? 0);
files.sort((a, b) => weight(b) - weight(a)); // stable: unlisted files keep their path order
// TEST_CONCURRENCY=4 was tried on 2 cores (2026-11-28): with other work on the machine (load 16-22) nine
// timing-bound files failed, so the default stays at the cores (issue 26).
const concurrency = Number(process.env.TEST_CONCURRENCY ?? Math.max(2, availableParallelism()));
const args = [
  '--import', 'tsx',
  // Report writes that --test-force-exit cannot cut short (see blocking-stdio.mjs).
  '--import', new URL('./blocking-stdio.mjs', import.meta.url).href,
  '--test',
  `--test-concurrency=${concurrency}`,
  // A test file's process ends when its tests end: @azure/event-hubs 6.0.4 leaves a 45-minute token
  // renewal timer behind after a receiver reconnects, which would otherwise keep the file running.
  '--test-force-exit',
  // No single test may hang the suite; tests that need longer set their own timeout.
  '--test-timeout=300000',
  ...passthrough,
  ...files.map((f) => relative(process.cwd(), f)),
];
const child = spawn(process.execPath, args, { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } });
child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
