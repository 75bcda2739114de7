#!/usr/bin/env node
// Times each test file run alone (TEST_CONCURRENCY at once, default 2) and writes scripts/test-durations.json,
// which run-tests.mjs reads to start the longest files first: node scripts/time-test-files.mjs [folders...]
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn } from 'node:child_process';

const files = [];
function walk(path) {
  if (statSync(path).isFile()) return void (path.endsWith('.test.ts') && files.push(path));
  for (const name of readdirSync(path).sort()) if (name !== 'node_modules' && !name.startsWith('.')) walk(join(path, name));
}
for (const root of process.argv.slice(2).length ? process.argv.slice(2) : ['test']) walk(root);
const seconds = {};
let next = 0;
async function worker() {
  while (next < files.length) {
    const file = files[next++];
    const started = Date.now();
    await new Promise((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', '--test', '--test-force-exit', '--test-reporter=dot', file], {
        stdio: 'ignore',
        env: { ...process.env, NODE_ENV: 'test' },
      });
      child.on('exit', resolve);
    });
    seconds[file] = Math.round((Date.now() - started) / 1000);
    console.log(`${seconds[file]} s\t${file}`);
  }
}
await Promise.all(Array.from({ length: Number(process.env.TEST_CONCURRENCY ?? 2) }, worker));
const slow = Object.entries(seconds).filter(([, s]) => s >= 10).sort((a, b) => b[1] - a[1]);
const note = 'Relative run time in seconds of the slowest test files, each run alone (scripts/time-test-files.mjs). ' +
  'run-tests.mjs starts these first, longest first.';
writeFileSync(new URL('./test-durations.json', import.meta.url), JSON.stringify({ '//': note, ...Object.fromEntries(slow) }, null, 2) + '\n');
