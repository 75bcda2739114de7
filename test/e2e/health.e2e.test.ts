/**
 * The health_check extension of a running CLI: unhealthy (503, reason misconfigured, the key to fix)
 * while the hub does not exist, ready (200) once partitions are owned, unhealthy again once the hub is
 * gone. (A hub that is merely unreachable is `hubUnreachable` after `unhealthy_after`: unit-tested.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomName, startAzurite } from '../helpers/azurite.ts';
import { startEmulator } from '../../src/emulator/index.ts';
import { endpointOf, httpGet, startCli, waitUntil } from './cli-process.ts';

test('health: unhealthy naming the key while the hub does not exist → ready → unhealthy when it disappears', {
  timeout: 120_000,
}, async (t) => {
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
  const cli = startCli(t, ['--config', configPath], {
    EH_CONNECTION: emulator.connectionString(hubName),
    STORAGE_CONNECTION: azurite.connectionString,
  });
  const healthLine = await cli.waitForLog(
    (l) => l.msg === 'health check endpoint listening',
    30_000,
    'health endpoint',
  );
  const url = `http://${endpointOf(healthLine)}/ready`;

  // The hub does not exist yet: a permanent failure, reported at once with the key to fix.
  const missing = await waitUntil(
    async () => {
      const r = await httpGet(url);
      return r.status === 503 && JSON.parse(r.body).receivers.azure_event_hub.reason === 'misconfigured'
        ? r
        : undefined;
    },
    20_000,
    'not ready because the hub does not exist',
  );
  assert.equal(JSON.parse(missing.body).status, 'unhealthy');
  assert.equal(
    JSON.parse(missing.body).receivers.azure_event_hub.configKey,
    'connection',
    'the hub comes from the EntityPath',
  );

  emulator.addHub({ name: hubName, partitions: 2 });
  const ready = await waitUntil(
    async () => {
      const r = await httpGet(url);
      return r.status === 200 ? r : undefined;
    },
    30_000,
    'ready',
  );
  assert.equal(JSON.parse(ready.body).status, 'ready');
  assert.equal((await httpGet(url.replace('/ready', '/health'))).status, 200);

  emulator.removeHub(hubName);
  const unhealthy = await waitUntil(
    async () => {
      const r = await httpGet(url);
      return r.status === 503 && JSON.parse(r.body).status === 'unhealthy' ? r : undefined;
    },
    30_000,
    'unhealthy',
  );
  const body = JSON.parse(unhealthy.body);
  assert.equal(body.receivers.azure_event_hub.reason, 'misconfigured', 'a hub that no longer exists');
  assert.ok(!unhealthy.body.includes('SharedAccessKey='), 'no connection string in the reason');

  cli.child.kill('SIGTERM');
  assert.equal(await cli.exited(60_000), 0, cli.stderr().slice(-2000));
});
