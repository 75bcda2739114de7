/**
 * Checkpoints across SDKs: the Azure SDK for Python's event processor (azure-eventhub 5.11.0 with its
 * asyncio BlobCheckpointStore, unmodified) and our receiver take over from each other's checkpoints in
 * one Azurite container. Skipped, with the packages to install, when the system Python lacks the SDK.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { EventHubConsumerClient } from '@azure/event-hubs';
import { Instance, waitUntil } from '../../helpers/fleet.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { byPartition, startReceiver, until } from '../receiver/harness.ts';
import { PythonProcessor, runScript, SKIP, startPythonWorld } from './python-world.ts';

const PROCESSOR_ENV = { PROCESSOR_LB_SECONDS: '0.5', PROCESSOR_EXPIRY_SECONDS: '5' };
const range = (from: number, to: number): number[] => Array.from({ length: to - from + 1 }, (_, i) => from + i);

/** Sequence numbers read per partition, sorted: duplicates show as repeats. */
function readPerPartition(records: readonly (readonly [string, number, ...unknown[]])[]): Record<string, number[]> {
  const out: Record<string, number[]> = {};
  for (const [pid, seq] of records) (out[pid] ??= []).push(seq);
  for (const list of Object.values(out)) list.sort((a, b) => a - b);
  return out;
}

test('checkpoints carry over: Python processor → our receiver → Python processor, nothing lost or read twice', {
  skip: SKIP,
  timeout: 120_000,
}, async (t) => {
  const children: (Instance | PythonProcessor)[] = [];
  // Registered before the world: hooks run in registration order, and storage and the hub must outlive them.
  t.after(() => Promise.all(children.map((c) => c.crash())));
  const world = await startPythonWorld(t, { partitions: 2, storage: true });
  const storage = world.storage!;
  const append = (from: number) => {
    for (const pid of ['0', '1'])
      world.emulator.append(
        world.hubName,
        pid,
        range(from, from + 9).map((n) => ({ body: `p${pid}-${n}` })),
      );
  };
  const checkpointed = (p: PythonProcessor, seq: number) =>
    ['0', '1'].every((pid) => p.lines.some((l) => l.t === 'cp' && l.p === pid && l.s === seq));

  // 1. The Python processor reads 0..9 of each partition from the start and checkpoints after every batch.
  append(0);
  const first = new PythonProcessor('python-1', world, PROCESSOR_ENV);
  children.push(first);
  await waitUntil(
    () => checkpointed(first, 9),
    60_000,
    () => `the Python processor's checkpoints at 9 (${first.stderr})`,
  );
  assert.equal(await first.stop(), 0, first.stderr);
  assert.ok(first.lines.some((l) => l.t === 'stopped'));
  // Its blob names use the port-less namespace, as ours: 127.0.0.1/<hub>/$default/checkpoint/<pid>.
  const container = BlobServiceClient.fromConnectionString(storage.connectionString).getContainerClient(
    storage.container,
  );
  const names: string[] = [];
  for await (const blob of container.listBlobsFlat()) names.push(blob.name);
  const prefix = `127.0.0.1/${world.hubName}/$default/`.toLowerCase();
  assert.deepEqual(names.filter((n) => n.includes('/checkpoint/')).sort(), [
    `${prefix}checkpoint/0`,
    `${prefix}checkpoint/1`,
  ]);

  // 2. Ours resumes from them ('latest' would skip what came meanwhile, 'earliest' would read 0..9 again).
  append(10);
  const ours = new Instance('ours', {
    connection: world.connectionString,
    format: 'raw',
    start_position: 'latest',
    checkpoint: { interval: '1s' },
    ownership: { update_interval: '1s', owner_id: 'ours', foreign_ownership_expiry: '5s' },
    blob_checkpoint_store: { connection: storage.connectionString, container_name: storage.container },
  });
  children.push(ours);
  await waitUntil(() => ours.records.length >= 20, 60_000, 'our receiver reads 10..19', [ours]);
  assert.equal(await ours.stop(), 0, ours.stderr);
  assert.deepEqual(readPerPartition(ours.records), { 0: range(10, 19), 1: range(10, 19) });

  // 3. A Python processor resumes from ours: 20..29 only.
  append(20);
  const second = new PythonProcessor('python-2', world, PROCESSOR_ENV);
  children.push(second);
  await waitUntil(
    () => checkpointed(second, 29),
    60_000,
    () => `the second Python processor at 29 (${second.stderr})`,
  );
  assert.equal(await second.stop(), 0, second.stderr);
  assert.deepEqual(readPerPartition(first.records), { 0: range(0, 9), 1: range(0, 9) });
  assert.deepEqual(readPerPartition(second.records), { 0: range(20, 29), 1: range(20, 29) });
  const errors = [...first.lines, ...second.lines].filter((l) => l.t === 'err');
  assert.deepEqual(errors, [], 'no processor error');
});

test('a checkpoint the Python store wrote under host:port (its spelling when the Endpoint names a port) ' +
  'is resumed by ours', {
  skip: SKIP,
  timeout: 60_000,
}, async (t) => {
  const world = await startPythonWorld(t, { partitions: 1, storage: true });
  const storage = world.storage!;
  world.emulator.append(
    world.hubName,
    '0',
    range(0, 4).map((n) => ({ body: `e${n}` })),
  );
  const js = world.track(new EventHubConsumerClient('$Default', world.connectionString));
  const { lastEnqueuedOffset } = await js.getPartitionProperties('0');
  world.emulator.append(
    world.hubName,
    '0',
    range(5, 9).map((n) => ({ body: `e${n}` })),
  );
  // The Python SDK names blobs after the Endpoint's netloc: with Endpoint=sb://127.0.0.1:PORT, '127.0.0.1:PORT'.
  const portSpelling = `127.0.0.1:${world.emulator.port}`;
  const written = await runScript(world, 'checkpoint_store.py', [
    'update',
    portSpelling,
    world.hubName,
    '$Default',
    '0',
    '4',
    lastEnqueuedOffset,
  ]);
  assert.deepEqual(
    written.checkpoints.map((c: any) => [c.partition_id, c.sequence_number]),
    [['0', 4]],
  );

  const consumer = new InMemorySignalConsumer();
  const receiver = startReceiver(
    t,
    {
      connection: world.connectionString,
      format: 'raw',
      start_position: 'earliest',
      checkpoint: { interval: '1s' },
      blob_checkpoint_store: { connection: storage.connectionString, container_name: storage.container },
    },
    consumer,
  );
  await receiver.start();
  await until(() => consumer.records().length >= 5, 30_000, 'events 5..9');
  await receiver.shutdown();
  assert.deepEqual(
    byPartition(consumer.records()),
    new Map([['0', range(5, 9)]]),
    'resumed after the port-spelled checkpoint',
  );
  // We wrote ours under the port-less spelling and left the Python blob as it was.
  const ours = await runScript(world, 'checkpoint_store.py', ['list', '127.0.0.1', world.hubName, '$Default']);
  assert.deepEqual(
    ours.checkpoints.map((c: any) => [c.partition_id, c.sequence_number]),
    [['0', 9]],
  );
  const theirs = await runScript(world, 'checkpoint_store.py', ['list', portSpelling, world.hubName, '$Default']);
  assert.deepEqual(
    theirs.checkpoints.map((c: any) => [c.partition_id, c.sequence_number]),
    [['0', 4]],
  );
});
