/**
 * A checkpoint beyond the partition's last event (a recreated hub, a container reused for another hub):
 * detected at partition start, counted, reported, and handled by `on_invalid_checkpoint`. `fail` leaves the
 * partition unread with health `invalidCheckpoint` until an operator resets the checkpoint, then reading
 * resumes by itself; `earliest` and `latest` rewrite the checkpoint and say so. Never a silent jump.
 */
import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { startAzurite, randomName, type Azurite } from '../../helpers/azurite.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { BlobCheckpointStore } from '../../../src/ownership/blob-checkpoint-store.ts';
import { resetCheckpoints } from '../../../src/ownership/admin.ts';
import { HealthState } from '../../../src/telemetry/health-state.ts';
import { byPartition, startReceiver, until } from './harness.ts';
import { waitUntil } from '../../helpers/wait-until.ts';

const BOGUS = 1_000;

async function eventually(probe: () => Promise<boolean>, timeoutMs: number, what: string): Promise<void> {
  await waitUntil(probe, timeoutMs, what, 100);
}

async function setup(
  t: TestContext,
  azurite: Azurite,
  metadata: Record<string, string> = { sequencenumber: String(BOGUS), offset: '123456' },
) {
  const eh = await startTestEmulator(t, { partitions: 1 });
  eh.emulator.append(
    eh.hubName,
    '0',
    Array.from({ length: 5 }, (_, i) => ({ body: `e${i}` })),
  );
  const containerName = randomName('invalid');
  const container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(containerName);
  await container.create();
  const namespace = new URL(eh.connectionString.split(';')[0]!.replace('Endpoint=', '').replace('sb://', 'http://'))
    .hostname;
  const scope = { fullyQualifiedNamespace: namespace, eventHubName: eh.hubName, consumerGroup: '$Default' };
  // What a recreated hub leaves behind: the old hub's checkpoint, far beyond the new hub's 5 events.
  await container
    .getBlockBlobClient(`${namespace}/${eh.hubName}/$default/checkpoint/0`.toLowerCase())
    .upload('', 0, { metadata });
  const config = (policy?: 'fail' | 'earliest' | 'latest') => ({
    connection: eh.connectionString,
    format: 'raw' as const,
    start_position: 'earliest',
    ...(policy ? { on_invalid_checkpoint: policy } : {}),
    checkpoint: { interval: '100ms' },
    blob_checkpoint_store: { connection: azurite.connectionString, container_name: containerName },
    ownership: { update_interval: '1s' },
  });
  return { eh, container, scope, store: new BlobCheckpointStore(container), config };
}

describe('on_invalid_checkpoint', () => {
  let azurite: Azurite;
  before(async () => {
    azurite = await startAzurite();
  });
  after(() => azurite?.stop());

  test('fail (default): unread, unhealthy with reason invalidCheckpoint, counted; resumes by itself after ' +
    'checkpoints reset', {
    timeout: 90_000,
  }, async (t) => {
    const { container, scope, store, config } = await setup(t, azurite);
    const consumer = new InMemorySignalConsumer();
    const receiver = startReceiver(t, config(), consumer);
    const health = new HealthState();
    health.register('r');
    receiver.onStatus((s) => health.update('r', s));
    await receiver.start();
    await until(
      () => receiver.stats().counters.invalidCheckpoints >= 1,
      30_000,
      'the invalid checkpoint to be counted',
    );
    await until(
      () => health.report().receivers.r?.reason === 'invalidCheckpoint',
      10_000,
      'health to say invalidCheckpoint',
    );
    const report = health.report().receivers.r!;
    assert.equal(report.status, 'unhealthy');
    assert.equal(report.configKey, 'on_invalid_checkpoint');
    assert.match(
      report.error ?? '',
      /checkpoint \(sequence number 1000\) is beyond the last event in the partition \(sequence number 4\)/,
    );
    assert.equal(consumer.records().length, 0, 'nothing read from a position that cannot be right');
    assert.equal((await store.read(scope, '0'))?.sequenceNumber, BOGUS, 'the checkpoint is left for the operator');

    // The operator resets (as `checkpoints reset --to earliest --force` does); the next start attempt reads.
    await resetCheckpoints(container, scope, { kind: 'earliest' }, { partitions: ['0'], force: true });
    await consumer.waitFor(5, 60_000);
    assert.deepEqual(byPartition(consumer.records()).get('0'), [0, 1, 2, 3, 4]);
    await until(() => health.report().receivers.r?.reason !== 'invalidCheckpoint', 10_000, 'health to recover');
  });

  for (const backend of ['polling', 'streaming'] as const) {
    test(`earliest (${backend}): the checkpoint is rewritten before the first event and every event is read`, {
      timeout: 60_000,
    }, async (t) => {
      const { scope, store, config } = await setup(t, azurite);
      const consumer = new InMemorySignalConsumer();
      const receiver = startReceiver(t, { ...config('earliest'), backend }, consumer);
      await receiver.start();
      await consumer.waitFor(5, 30_000);
      assert.deepEqual(byPartition(consumer.records()).get('0'), [0, 1, 2, 3, 4]);
      assert.equal(receiver.stats().counters.invalidCheckpoints, 1);
      await eventually(
        async () => (await store.read(scope, '0'))?.sequenceNumber === 4,
        10_000,
        'checkpoint at the last exported event',
      );
    });
  }

  test('a checkpoint blob without a usable sequence number (an offset the receiver cannot position by) follows the ' +
    'same policy', {
    timeout: 60_000,
  }, async (t) => {
    // fail: unread, reported, counted.
    const failing = await setup(t, azurite, { offset: 'g1:0000000000abcdef:r' });
    const consumer = new InMemorySignalConsumer();
    const receiver = startReceiver(t, failing.config(), consumer);
    const health = new HealthState();
    health.register('r');
    receiver.onStatus((s) => health.update('r', s));
    await receiver.start();
    await until(
      () => health.report().receivers.r?.reason === 'invalidCheckpoint',
      30_000,
      'health to say invalidCheckpoint',
    );
    assert.match(
      health.report().receivers.r!.error ?? '',
      /checkpoint cannot be used .*lacks a numeric 'sequencenumber'/,
    );
    assert.equal(consumer.records().length, 0);
    await receiver.shutdown();

    // earliest: rewritten, every event read.
    const resetting = await setup(t, azurite, { offset: 'g1:0000000000abcdef:r' });
    const second = new InMemorySignalConsumer();
    const other = startReceiver(t, resetting.config('earliest'), second);
    await other.start();
    await second.waitFor(5, 30_000);
    assert.deepEqual(byPartition(second.records()).get('0'), [0, 1, 2, 3, 4]);
    await eventually(
      async () => (await resetting.store.read(resetting.scope, '0'))?.sequenceNumber === 4,
      10_000,
      'checkpoint at the last exported event',
    );
  });

  test('an offset the hub does not know, beside a valid sequence number, is carried and never sent: reading resumes ' +
    'after the sequence number', {
    timeout: 60_000,
  }, async (t) => {
    const { config } = await setup(t, azurite, { sequencenumber: '2', offset: 'no-such-offset' });
    const consumer = new InMemorySignalConsumer();
    const receiver = startReceiver(t, config(), consumer);
    await receiver.start();
    await consumer.waitFor(2, 30_000);
    assert.deepEqual(byPartition(consumer.records()).get('0'), [3, 4]);
    assert.equal(receiver.stats().counters.invalidCheckpoints, 0);
  });

  test('latest: the checkpoint moves to the last event; only new events are read', { timeout: 60_000 }, async (t) => {
    const { eh, scope, store, config } = await setup(t, azurite);
    const consumer = new InMemorySignalConsumer();
    const receiver = startReceiver(t, config('latest'), consumer);
    await receiver.start();
    await until(
      () => receiver.ownedPartitions().length === 1 && receiver.stats().counters.invalidCheckpoints === 1,
      30_000,
      'the partition to be read',
    );
    await eventually(
      async () => (await store.read(scope, '0'))?.sequenceNumber === 4,
      10_000,
      'checkpoint moved to the last event',
    );
    eh.emulator.append(eh.hubName, '0', [{ body: 'new' }]);
    await consumer.waitFor(1, 30_000);
    assert.deepEqual(byPartition(consumer.records()).get('0'), [5]);
  });
});
