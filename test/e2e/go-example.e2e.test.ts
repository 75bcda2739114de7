/**
 * A config written for the Go collector's azure_event_hub receiver (its README example, in
 * test/fixtures/config) validates, and runs against the emulator with only the connection pointed at it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { sampleResourceLogBody } from '../../scripts/local/samples.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { startCli, waitUntil } from './cli-process.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/config');

test('the Go receiver examples validate', { timeout: 60_000 }, async (t) => {
  const names = [
    'go_readme_connection_string.yaml',
    'go_readme_blob_checkpoint.yaml',
    'go_readme_service_principal.yaml',
    'go_readme_auth_blob.yaml',
    'go_readme_time_formats.yaml',
    'go_testdata_valid.yaml',
  ];
  // Three at a time: each is a Node process compiling TypeScript.
  for (let i = 0; i < names.length; i += 3) {
    await Promise.all(
      names.slice(i, i + 3).map(async (name) => {
        const p = startCli(t, ['validate', '--config', join(FIXTURES, name)]);
        assert.equal(await p.exited(30_000), 0, `${name}: ${p.stderr()}`);
        assert.match(p.stdout(), /the configuration is valid/);
      }),
    );
  }
});

test('the Go README example runs against the emulator and exports Azure resource logs', {
  timeout: 90_000,
}, async (t) => {
  const eh = await startTestEmulator(t, { partitions: 2 });
  const cli = startCli(
    t,
    [
      '--config',
      join(FIXTURES, 'go_readme_connection_string.yaml'),
      '--set',
      'receivers.azure_event_hub.connection=${env:EH_CONNECTION}',
      '--set',
      'service.telemetry.metrics.address=127.0.0.1:0',
    ],
    { EH_CONNECTION: eh.connectionString },
  );
  // Without a checkpoint store the Go receiver (and this one) starts at the latest event: send after both
  // partitions are open.
  await waitUntil(
    async () =>
      new Set(
        cli
          .logs()
          .filter((l) => l.msg === 'partition owned')
          .map((l) => l.partition),
      ).size === 2
        ? true
        : undefined,
    30_000,
    'both partitions open',
  );
  eh.emulator.append(eh.hubName, '0', [{ body: sampleResourceLogBody('storage-read', { records: 3 }) }]);
  eh.emulator.append(eh.hubName, '1', [{ body: sampleResourceLogBody('keyvault-audit', { records: 2 }) }]);
  await waitUntil(
    async () => {
      const counts = [...cli.stdout().matchAll(/"log records":(\d+)/g)].map((m) => Number(m[1]));
      return counts.reduce((a, b) => a + b, 0) >= 5 ? true : undefined;
    },
    30_000,
    '5 records on the debug exporter',
  );
  assert.ok(!cli.stderr().includes('c2VjcmV0LWtleS1mb3ItdGVzdHM'), 'the fixture key is not logged');
  cli.child.kill('SIGINT');
  assert.equal(await cli.exited(60_000), 0, cli.stderr().slice(-2000));
});
