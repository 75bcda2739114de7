import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { main } from '../../../src/distribution/cli.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { emulatorCheckpointStore } from '../../helpers/checkpoint-store.ts';

test('replay re-sends exactly the captured events of a time range, and moves no checkpoint', {
  timeout: 30_000,
}, async (t) => {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const captureContainer = randomName('cap');
  const eh = await startTestEmulator(t, {
    partitions: 2,
    capture: { storageConnectionString: azurite.connectionString, blobContainer: captureContainer, intervalMs: 60_000 },
  });
  const append = (tag: string) => {
    for (const p of ['0', '1'])
      eh.emulator.append(
        eh.hubName,
        p,
        Array.from({ length: 5 }, (_, i) => ({ body: JSON.stringify({ id: `${tag}-p${p}-${i}` }) })),
      );
  };
  append('before');
  await new Promise((r) => setTimeout(r, 30));
  const from = new Date();
  append('inside');
  await eh.emulator.flushCapture(eh.hubName); // a file boundary inside the range too
  append('inside2');
  await new Promise((r) => setTimeout(r, 30));
  const to = new Date();
  await new Promise((r) => setTimeout(r, 30));
  append('after');
  await eh.emulator.flushCapture(eh.hubName);

  const {
    containerName: checkpoints,
    scope,
    store,
  } = await emulatorCheckpointStore(azurite.connectionString, eh.connectionString, eh.hubName);
  await store.write(scope, { partitionId: '0', sequenceNumber: 3, offset: '0' });

  const dir = mkdtempSync(join(tmpdir(), 'replay-'));
  const out = join(dir, 'out.jsonl');
  const config = join(dir, 'config.yaml');
  writeFileSync(
    config,
    [
      'receivers:',
      '  azure_event_hub:',
      `    connection: "${eh.connectionString}"`,
      '    format: raw',
      '    blob_checkpoint_store:',
      `      connection: "${azurite.connectionString}"`,
      `      container_name: ${checkpoints}`,
      '    capture:',
      `      container_name: ${captureContainer}`,
      '      namespace: emulatorNs1',
      'exporters:',
      '  file:',
      `    path: ${out}`,
      'service:',
      '  pipelines:',
      '    logs:',
      '      receivers: [azure_event_hub]',
      '      exporters: [file]',
    ].join('\n'),
  );
  const lines: string[] = [];
  const errors: string[] = [];
  const code = await main(['replay', '--config', config, '--from', from.toISOString(), '--to', to.toISOString()], {
    out: (s) => lines.push(s),
    err: (s) => errors.push(s),
    env: {},
  });
  assert.equal(code, 0, errors.join('\n'));
  const ids = readFileSync(out, 'utf8').match(/(inside2?|before|after)-p[01]-\d/g) ?? [];
  const expected = ['inside', 'inside2'].flatMap((tag) =>
    ['0', '1'].flatMap((p) => Array.from({ length: 5 }, (_, i) => `${tag}-p${p}-${i}`)),
  );
  assert.deepEqual([...new Set(ids)].sort(), expected.sort(), 'exactly the events of the range');
  assert.equal(ids.length, expected.length, 'each once');
  assert.match(lines.join('\n'), /replayed 20 events/);
  assert.ok(
    errors.some((e) => /replay: partition 0: file/.test(e)),
    'progress lines',
  );
  assert.equal((await store.read(scope, '0'))?.sequenceNumber, 3, 'the live checkpoint did not move');
  assert.equal(await store.read(scope, '1'), undefined, 'and none was written');
});
