/**
 * The health_check extension of a running CLI: not ready (503) while the hub cannot be reached, ready
 * (200) once partitions are owned, unhealthy (503, reason hubUnreachable) once the hub has been gone
 * longer than `unhealthy_after`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomName, startAzurite } from '../helpers/azurite.ts';
import { startEmulator } from '../../src/emulator/index.ts';
import { endpointOf, httpGet, startCli, waitUntil } from './cli-process.ts';

test('health: not ready → ready → unhealthy when the hub disappears', { timeout: 120_000 }, async (t) => {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const emulator = await startEmulator({ port: 0 });
  t.after(() => emulator.stop());
  const hubName = randomName('hub');
  const dir = await mkdtemp(join(tmpdir(), 'otelcol-e2e-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'config.yaml');
  await writeFile(
    configPath,
    `receivers:
  azure_event_hub:
    connection: \${env:EH_CONNECTION}
    blob_checkpoint_store:
      connection: \${env:STORAGE_CONNECTION}
      container_name: ${randomName('ckpt')}
      create_container: true
    ownership:
      update_interval: 500ms
exporters:
  debug:
    verbosity: basic
extensions:
  health_check:
    endpoint: 127.0.0.1:0
    path: /ready
    unhealthy_after: 3s
service:
  extensions: [health_check]
  pipelines:
    logs:
      receivers: [azure_event_hub]
      exporters: [debug]
  telemetry:
    metrics:
      level: none
`,
  );
  const cli = startCli(t, ['--config', configPath], { EH_CONNECTION: emulator.connectionString(hubName), STORAGE_CONNECTION: azurite.connectionString });
  const url = `http://${endpointOf(await cli.waitForLog((l) => l.msg === 'health check endpoint listening', 30_000, 'health endpoint'))}/ready`;

  // The hub does not exist yet: not ready, with the reason.
  const starting = await waitUntil(async () => {
    const r = await httpGet(url);
    return r.status === 503 && JSON.parse(r.body).receivers.azure_event_hub.reason === 'hubUnreachable' ? r : undefined;
  }, 20_000, 'not ready because the hub is unreachable');
  assert.equal(JSON.parse(starting.body).status, 'starting');

  emulator.addHub({ name: hubName, partitions: 2 });
  const ready = await waitUntil(async () => {
    const r = await httpGet(url);
    return r.status === 200 ? r : undefined;
  }, 30_000, 'ready');
  assert.equal(JSON.parse(ready.body).status, 'ready');
  assert.equal((await httpGet(url.replace('/ready', '/health'))).status, 200);

  emulator.removeHub(hubName);
  const unhealthy = await waitUntil(async () => {
    const r = await httpGet(url);
    return r.status === 503 && JSON.parse(r.body).status === 'unhealthy' ? r : undefined;
  }, 30_000, 'unhealthy');
  const body = JSON.parse(unhealthy.body);
  assert.equal(body.receivers.azure_event_hub.reason, 'hubUnreachable');
  assert.ok(!unhealthy.body.includes('SharedAccessKey='), 'no connection string in the reason');

  cli.child.kill('SIGTERM');
  assert.equal(await cli.exited(60_000), 0, cli.stderr().slice(-2000));
});
