/**
 * `checkpoints list` and `checkpoints reset` as child processes against the emulator and Azurite, around a
 * running collector: listing shows owners, checkpoints and lag; a reset is refused while partitions are
 * owned; after a graceful stop it moves a checkpoint back, and the next run replays from there.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomName, startAzurite } from '../helpers/azurite.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { fileRecords, startCli, waitUntil } from './cli-process.ts';

async function recordCount(path: string): Promise<number> {
  return (await fileRecords(path)).length;
}

test('checkpoints: list, reset refused while owned, reset after stop, replay', { timeout: 120_000 }, async (t) => {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const eh = await startTestEmulator(t, { partitions: 2 });
  const dir = await mkdtemp(join(tmpdir(), 'otelcol-e2e-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const out = join(dir, 'out.jsonl');
  const configPath = join(dir, 'config.yaml');
  await writeFile(
    configPath,
    `receivers:
  azure_event_hub:
    connection: \${env:EH_CONNECTION}
    group: ${eh.consumerGroup}
    format: raw
    start_position: earliest
    poll_rate: 1
    blob_checkpoint_store:
      connection: \${env:STORAGE_CONNECTION}
      container_name: ${randomName('ckpt')}
      create_container: true
    checkpoint:
      interval: 100ms
    ownership:
      update_interval: 1s
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
      level: none
`,
  );
  const env = { EH_CONNECTION: eh.connectionString, STORAGE_CONNECTION: azurite.connectionString };
  const cli = async (args: string[]) => {
    const p = startCli(t, args, env);
    const code = await p.exited(60_000);
    return { code, out: p.stdout(), err: p.stderr() };
  };
  eh.emulator.append(
    eh.hubName,
    '0',
    ['a', 'b', 'c'].map((body) => ({ body })),
  );
  eh.emulator.append(
    eh.hubName,
    '1',
    ['d', 'e'].map((body) => ({ body })),
  );

  const run = startCli(t, ['--config', configPath], env);
  await waitUntil(async () => ((await recordCount(out)) >= 5 ? true : undefined), 30_000, '5 records exported');

  const listed = await waitUntil(
    async () => {
      const r = await cli(['checkpoints', 'list', '--config', configPath, '--output', 'json']);
      assert.equal(r.code, 0, r.err);
      const doc = JSON.parse(r.out) as {
        partitions: {
          partition: string;
          owner: string | null;
          lease: string;
          checkpoint: number | null;
          lastEnqueued: number;
          lagEvents: number;
        }[];
      };
      return doc.partitions.every((p) => p.lagEvents === 0) ? doc : undefined;
    },
    30_000,
    'checkpoints to catch up',
  );
  assert.deepEqual(
    listed.partitions.map((p) => [p.partition, p.checkpoint, p.lastEnqueued, p.lease]),
    [
      ['0', 2, 2, 'leased'],
      ['1', 1, 1, 'leased'],
    ],
  );
  assert.ok(listed.partitions.every((p) => typeof p.owner === 'string'));

  const table = await cli(['checkpoints', '--config', configPath]);
  assert.equal(table.code, 0, table.err);
  assert.match(table.out, /^PARTITION +OWNER +LEASE/m);

  const refused = await cli(['checkpoints', 'reset', '--config', configPath, '--to', 'earliest']);
  assert.equal(refused.code, 3, refused.err);
  assert.match(refused.err, /refusing to reset checkpoints/);

  run.child.kill('SIGTERM');
  assert.equal(await run.exited(60_000), 0);

  const reset = await cli(['checkpoints', 'reset', '--config', configPath, '--to', '1', '--partition', '0']);
  assert.equal(reset.code, 0, reset.err);
  assert.match(reset.out, /partition 0: checkpoint set to sequence number 0/);

  const after = JSON.parse((await cli(['checkpoints', 'list', '--config', configPath, '--output', 'json'])).out) as {
    partitions: { checkpoint: number; lagEvents: number; lease: string }[];
  };
  assert.deepEqual(
    after.partitions.map((p) => p.checkpoint),
    [0, 1],
  );
  assert.equal(after.partitions[0]!.lagEvents, 2);

  // The next run reads partition 0 again from event 1: two records replayed, nothing else.
  const replay = startCli(t, ['--config', configPath], env);
  await waitUntil(async () => ((await recordCount(out)) >= 7 ? true : undefined), 30_000, 'the replay');
  replay.child.kill('SIGTERM');
  assert.equal(await replay.exited(60_000), 0);
  assert.equal(await recordCount(out), 7);
  for (const r of [table, refused, reset])
    assert.ok(
      !`${r.out}${r.err}`.includes('Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq'),
      'no account key printed',
    );
});
