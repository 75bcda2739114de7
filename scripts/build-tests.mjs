#!/usr/bin/env node
// Type-checks src/, test/, scripts/ and examples/ and compiles them to .test-build/ (tsconfig.test.json), so
// `npm test` runs the tests as plain JavaScript: each test file's process then loads the project without a
// TypeScript loader (tsx costs 2-3 s of CPU per process that loads the receiver; there are ~230 test files).
// Files the tests read next to themselves (fixtures, .mjs helpers, Python scripts) are copied, and the
// folders they reach by relative path from the repository root (docs, config, bin, ...) are linked, so
// every `new URL('../x', import.meta.url)` resolves the same from .test-build/ as from the sources.
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const OUT = '.test-build';
const tsc = fileURLToPath(new URL('./tsc.mjs', import.meta.url));
const compiled = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.test.json'], { stdio: 'inherit' });
if (compiled.status !== 0) process.exit(compiled.status ?? 1);

/** Copies every file that is not TypeScript (and not already there and as new) from `dir` into OUT. */
function copyAssets(dir) {
  for (const name of readdirSync(dir)) {
    if (name === 'node_modules' || name.startsWith('.') || name === '__pycache__') continue;
    const from = join(dir, name);
    const st = statSync(from);
    if (st.isDirectory()) copyAssets(from);
    else if (!name.endsWith('.ts') || name.endsWith('.d.ts')) {
      const to = join(OUT, from);
      if (existsSync(to) && statSync(to).mtimeMs >= st.mtimeMs) continue;
      mkdirSync(dirname(to), { recursive: true });
      copyFileSync(from, to);
    }
  }
}
for (const dir of ['test', 'scripts', 'examples']) copyAssets(dir);

for (const name of [
  'package.json',
  'docs',
  'config',
  'bin',
  'dist',
  'README.md',
  'LICENSE',
  'Dockerfile',
  'node_modules',
]) {
  const link = join(OUT, name);
  if (!existsSync(name)) continue;
  rmSync(link, { recursive: true, force: true });
  symlinkSync(relative(OUT, name), link);
}
