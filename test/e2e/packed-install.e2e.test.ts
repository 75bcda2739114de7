/**
 * The container image's own steps, performed on this machine (image builds cannot run here): pack the
 * package as `npm publish` would, unpack the tarball into an empty directory, install its production
 * dependencies at the versions of the repository's package-lock.json (`npm ci --omit=dev`), and run the CLI
 * from there as a non-root user against the emulator and Azurite. It must export every event and stop
 * cleanly on SIGTERM. This catches a file missing from `files`, a runtime import of a dev dependency, and
 * anything that needs write access outside the configured paths. The bins are then linked as `npm install
 * -g` links them, into a temporary global prefix, and must run.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, copyFile, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { existsSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { randomName, startAzurite } from '../helpers/azurite.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { fileRecords, startCli, waitUntil } from './cli-process.ts';

const run = promisify(execFile);
// The repository (from .test-build/, where `npm test` runs this file, package.json links back to it).
const ROOT = dirname(realpathSync(join(import.meta.dirname, '../../package.json')));
/** The image's numeric user (Dockerfile `USER 10001:10001`); used when the tests run as root, as in CI. */
const IMAGE_UID = 10001;

test('packed tarball, production dependencies only, run as a non-root user: exports and stops cleanly', {
  timeout: 240_000,
}, async (t) => {
  assert.ok(existsSync(join(ROOT, 'dist', 'index.js')), 'dist/ is built (npm test builds before the tests)');
  // In memory where Linux offers it: npm ci writes ~18,000 files, and on a busy disk their system time went
  // from 5 s to 15-23 s in half of the runs measured (on /dev/shm, 4.7-5.2 s in every run).
  const dir = await mkdtemp(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'otelcol-packed-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await chmod(dir, 0o755);

  // npm pack without scripts: `prepare` would rebuild dist/, which `npm test` has just built.
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], {
    cwd: ROOT,
    maxBuffer: 16 << 20,
  });
  const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack wrote a tarball');
  // The Dockerfile's runtime stage: the tarball's files (and nothing else of the repository) plus the lock
  // file, then a production install at the locked versions. --prefer-offline: the clean install before the
  // tests filled npm's cache with every dependency. The package goes where the image puts it (the path of its
  // entry point).
  const app = join(dir, 'opt', 'otelcol', 'node_modules', 'otelcol-azure-eventhub');
  await mkdir(app, { recursive: true });
  await run('tar', ['-xzf', join(dir, tarball), '-C', app, '--strip-components=1', '--no-same-owner']);
  await copyFile(join(ROOT, 'package-lock.json'), join(app, 'package-lock.json'));
  await run('npm', ['ci', '--omit=dev', '--ignore-scripts', '--prefer-offline', '--no-audit', '--no-fund'], {
    cwd: app,
    maxBuffer: 16 << 20,
  });
  for (const dev of ['typescript', 'tsx', 'azurite', '@biomejs/biome']) {
    assert.equal(existsSync(join(app, 'node_modules', dev)), false, `dev dependency ${dev} is not installed`);
  }
  // The bins, linked as `npm install -g` links them, run as a user's `npx otelcol-azure-eventhub` finds them
  // (npm drops bin entries it considers invalid: `npm pkg fix` must have nothing to fix).
  const globalPrefix = join(dir, 'global');
  await run('npm', ['link', '--ignore-scripts', '--offline', '--no-audit', '--no-fund'], {
    cwd: app,
    env: { ...process.env, NPM_CONFIG_PREFIX: globalPrefix },
  });
  const { stdout: version } = await run(join(globalPrefix, 'bin', 'otelcol-azure-eventhub'), ['--version'], {
    cwd: dir,
  });
  assert.match(version.trim(), /\d+\.\d+\.\d+/);
  assert.ok(existsSync(join(globalPrefix, 'bin', 'eventhubs-emulator')), 'the emulator bin is linked');

  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const eh = await startTestEmulator(t, { partitions: 2 });
  // The only writable place for the collector: its output directory (the image mounts one).
  const outDir = join(dir, 'out');
  await mkdir(outDir);
  await chmod(outDir, 0o777);
  const out = join(outDir, 'records.jsonl');
  const configPath = join(dir, 'config.yaml');
  await writeFile(
    configPath,
    `receivers:
  azure_event_hub:
    connection: \${env:EH_CONNECTION}
    group: ${eh.consumerGroup}
    format: json
    start_position: earliest
    blob_checkpoint_store:
      connection: \${env:STORAGE_CONNECTION}
      container_name: ${randomName('packed')}
      create_container: true
exporters:
  file:
    path: ${out}
service:
  pipelines:
    logs:
      receivers: [azure_event_hub]
      exporters: [file]
  telemetry:
    metrics:
      address: 127.0.0.1:0
`,
  );
  await chmod(configPath, 0o644);
  for (const p of ['0', '1'])
    eh.emulator.append(
      eh.hubName,
      p,
      Array.from({ length: 3 }, (_, i) => ({ body: JSON.stringify({ p, i }) })),
    );

  const asRoot = process.getuid?.() === 0;
  const cli = startCli(
    t,
    ['--config', configPath],
    { EH_CONNECTION: eh.connectionString, STORAGE_CONNECTION: azurite.connectionString, HOME: outDir },
    {
      bin: join(app, 'bin', 'otelcol-azure-eventhub.js'),
      cwd: outDir,
      ...(asRoot ? { uid: IMAGE_UID, gid: IMAGE_UID } : {}),
    },
  );
  const bodies = await waitUntil(
    async () => {
      const b = (await fileRecords(out)).map((r) => r.body);
      return b.length >= 6 ? b : undefined;
    },
    60_000,
    'six exported records from the installed package',
  );
  assert.equal(bodies.length, 6);
  cli.child.kill('SIGTERM');
  assert.equal(await cli.exited(60_000), 0, cli.stderr().slice(-3000));
  assert.ok(
    cli.logs().some((l) => l.msg === 'shutdown complete'),
    'the graceful shutdown completed',
  );
});
