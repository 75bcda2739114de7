/**
 * The container image's own steps, performed on this machine (image builds cannot run here): pack the
 * package as `npm publish` would, install the tarball with production dependencies only into an empty
 * directory, and run the CLI from there as a non-root user against the emulator and Azurite. It must
 * export every event and stop cleanly on SIGTERM. This catches a file missing from `files`, a runtime
 * import of a dev dependency, and anything that needs write access outside the configured paths.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
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
  const dir = await mkdtemp(join(tmpdir(), 'otelcol-packed-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  await chmod(dir, 0o755);

  // npm pack without scripts: `prepare` would rebuild dist/, which `npm test` has just built.
  await run('npm', ['pack', '--ignore-scripts', '--pack-destination', dir, '--silent'], {
    cwd: ROOT,
    maxBuffer: 16 << 20,
  });
  const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'));
  assert.ok(tarball, 'npm pack wrote a tarball');
  const app = join(dir, 'app');
  // --prefer-offline: the clean install before the tests filled npm's cache with every dependency.
  await run(
    'npm',
    [
      'install',
      '--prefix',
      app,
      '--omit=dev',
      '--ignore-scripts',
      '--prefer-offline',
      '--no-audit',
      '--no-fund',
      join(dir, tarball),
    ],
    {
      cwd: dir,
      maxBuffer: 16 << 20,
    },
  );
  const installed = join(app, 'node_modules', 'otelcol-azure-eventhub');
  // The bins are linked as a user's `npx otelcol-azure-eventhub` finds them (npm drops bin entries it
  // considers invalid when publishing: `npm pkg fix` must have nothing to fix).
  const { stdout: version } = await run(join(app, 'node_modules', '.bin', 'otelcol-azure-eventhub'), ['--version'], {
    cwd: dir,
  });
  assert.match(version.trim(), /\d+\.\d+\.\d+/);
  assert.ok(existsSync(join(app, 'node_modules', '.bin', 'eventhubs-emulator')), 'the emulator bin is linked');
  for (const dev of ['typescript', 'tsx', 'azurite', '@biomejs/biome']) {
    assert.equal(existsSync(join(app, 'node_modules', dev)), false, `dev dependency ${dev} is not installed`);
  }

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
      bin: join(installed, 'bin', 'otelcol-azure-eventhub.js'),
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
