#!/usr/bin/env node
// What `npm test` does before the tests, side by side (this machine has two cores or more): the checks of
// `npm run lint` (`biome check`: Biome's linter and format check; scripts/check-layout.mjs: layering, folder
// cycles, line lengths), the package build (the end-to-end tests run the built CLI; emitted without a second
// type check, since the test build checks the same sources) and the type-checked test build
// (scripts/build-tests.mjs). Each step's output is printed when it ends, so two steps never interleave; the
// exit code is non-zero if any step failed.
import { spawn } from 'node:child_process';
import { join } from 'node:path';

const bin = (name) => join('node_modules', '.bin', name);
const steps = [
  ['lint and format (biome check; `npm run format` fixes the format)', bin('biome'), ['check', '.']],
  ['layout', process.execPath, ['scripts/check-layout.mjs']],
  ['build', process.execPath, ['scripts/tsc.mjs', '-p', 'tsconfig.build.json', '--noCheck']],
  ['typecheck and compile the tests', process.execPath, ['scripts/build-tests.mjs']],
];
const started = Date.now();
const results = await Promise.all(
  steps.map(
    ([name, command, args]) =>
      new Promise((resolve) => {
        const t0 = Date.now();
        const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.on('data', (c) => (out += c));
        child.stderr.on('data', (c) => (out += c));
        child.on('close', (code) => {
          const seconds = ((Date.now() - t0) / 1000).toFixed(1);
          console.log(`${code === 0 ? 'ok  ' : 'FAIL'} ${seconds.padStart(6)} s  ${name}`);
          if (out.trim()) console.log(out.trimEnd());
          resolve(code === 0);
        });
      }),
  ),
);
console.log(`# prepared in ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (results.includes(false)) process.exitCode = 1;
