/**
 * `npm run bench`: runs every test/bench/*.bench.ts in its own process, one after another (they compete
 * for the same two cores otherwise), and prints each one's report. A bench prints human-readable lines
 * and ends with one line `BENCH_RESULT <json>`; the results are collected into .tmp/bench-results.json.
 * Pass names to run a subset: `npm run bench -- decode emulator`. It builds dist/ first (`npm run build`)
 * and compiles the benches with the rest of the project into .test-build/ (scripts/build-tests.mjs), and
 * runs that JavaScript, as the package ships it, not the sources under tsx (internal/child-loader.ts says
 * why). `node --import tsx test/bench/<name>.bench.ts` runs one bench from its sources.
 */
import { readdirSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawn, spawnSync } from 'node:child_process';

const here = dirname(fileURLToPath(import.meta.url));
const wanted = process.argv.slice(2);
const files = readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => wanted.length === 0 || wanted.some((w) => f.startsWith(w)))
  .sort();

const root = join(here, '..', '..');
// Benchmarks that run the CLI as it ships (pipeline, receiver-memory) need the compiled dist/ up to date; the
// benches themselves run from the test build.
const build = spawnSync('npm', ['run', '--silent', 'build'], { cwd: root, stdio: 'inherit' });
if (build.status !== 0) throw new Error('npm run build failed');
const testBuild = spawnSync(process.execPath, ['scripts/build-tests.mjs'], { cwd: root, stdio: 'inherit' });
if (testBuild.status !== 0) throw new Error('node scripts/build-tests.mjs failed');
const compiled = join(root, '.test-build', 'test', 'bench');

const results: Record<string, unknown> = {};
let failed = 0;
for (const file of files) {
  console.log(`\n=== ${file}`);
  const code = await new Promise<number>((resolve) => {
    const child = spawn(process.execPath, ['--expose-gc', join(compiled, file.replace(/\.ts$/, '.js'))], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let tail = '';
    child.stdout.on('data', (chunk: Buffer) => {
      process.stdout.write(chunk);
      tail = (tail + chunk.toString()).slice(-200_000);
    });
    child.on('exit', (c) => {
      const line = tail
        .split('\n')
        .reverse()
        .find((l) => l.startsWith('BENCH_RESULT '));
      if (line) results[file.replace(/\.bench\.ts$/, '')] = JSON.parse(line.slice('BENCH_RESULT '.length));
      resolve(c ?? 1);
    });
  });
  if (code !== 0) failed++;
}
mkdirSync(join(root, '.tmp'), { recursive: true });
writeFileSync(join(root, '.tmp', 'bench-results.json'), JSON.stringify(results, null, 2));
console.log(`\n${files.length - failed} benchmarks ran, ${failed} failed; results in .tmp/bench-results.json`);
process.exit(failed ? 1 : 0);
