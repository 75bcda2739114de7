import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventHubProducerClient } from '@azure/event-hubs';
import { randomName } from '../../helpers/azurite.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { FAST_RETRY } from './sdk-helpers.ts';

test('partition keys land on the partitions of the service hash test vectors', async (t) => {
  const { emulator, track } = await startTestEmulator(t, { partitions: 1 });
  const vectors: Array<[key: string, partitions: number, expected: string]> = [
    ['alphabet', 3, '0'],
    ['alphabet', 11, '4'],
    ['TheBestParitionEver', 4, '2'],
    ['TheWorstParitionEver', 15, '1'],
  ];
  for (const [key, partitions, expected] of vectors) {
    const hub = randomName('hub');
    emulator.addHub({ name: hub, partitions });
    const producer = track(new EventHubProducerClient(emulator.connectionString(hub)));
    await producer.sendBatch([{ body: key }], { partitionKey: key });
    const landed: string[] = [];
    for (let p = 0; p < partitions; p++) {
      if (!(await producer.getPartitionProperties(String(p))).isEmpty) landed.push(String(p));
    }
    assert.deepEqual(landed, [expected], `key '${key}' with ${partitions} partitions`);
    await producer.close();
  }
});

test('events without partition id or key are spread round-robin; a partition id is honoured', async (t) => {
  const { connectionString, track } = await startTestEmulator(t, { partitions: 3 });
  const producer = track(new EventHubProducerClient(connectionString));
  for (let i = 0; i < 6; i++) await producer.sendBatch([{ body: i }]);
  await producer.sendBatch([{ body: 'x' }, { body: 'y' }], { partitionId: '2' });
  const counts: number[] = [];
  for (const p of ['0', '1', '2']) {
    const props = await producer.getPartitionProperties(p);
    counts.push(props.lastEnqueuedSequenceNumber + 1);
  }
  assert.deepEqual(counts, [2, 2, 4]);
});

test('a batch over 1 MB is rejected with amqp:link:message-size-exceeded (MessageTooLargeError)', async (t) => {
  const { connectionString, track } = await startTestEmulator(t, { partitions: 1 });
  const producer = track(new EventHubProducerClient(connectionString, { retryOptions: FAST_RETRY }));
  const big = Buffer.alloc(1_100_000, 7);
  // An array bypasses the SDK's client-side batch sizing, so the service's limit decides.
  await assert.rejects(producer.sendBatch([{ body: big }], { partitionId: '0' }), (err: any) => {
    assert.equal(err.code, 'MessageTooLargeError');
    // The service's text names the transfer's delivery-id and size (matched so by the Azure SDK's tests).
    const m = new RegExp(
      String.raw`The received message \(delivery-id:(\d+), size:(\d+) bytes\) exceeds the limit \(104` +
        String.raw`8576 bytes\) currently allowed on the link\.`,
    ).exec(err.message);
    assert.ok(m, err.message);
    assert.ok(Number(m[2]) > 1_100_000, `size ${m[2]} is the transfer's, body included`);
    return true;
  });
  assert.equal((await producer.getPartitionProperties('0')).isEmpty, true);
  // Just under the limit is accepted.
  await producer.sendBatch([{ body: Buffer.alloc(1_000_000, 1) }], { partitionId: '0' });
  assert.equal((await producer.getPartitionProperties('0')).lastEnqueuedSequenceNumber, 0);
});

test('unknown hubs and partitions give the service errors to producers and management reads', async (t) => {
  const { emulator, hubName, track } = await startTestEmulator(t, { partitions: 2 });
  const missing = track(
    new EventHubProducerClient(emulator.connectionString('nosuchhub'), { retryOptions: FAST_RETRY }),
  );
  await assert.rejects(missing.getEventHubProperties(), (err: any) => err.code === 'MessagingEntityNotFoundError');
  await assert.rejects(missing.sendBatch([{ body: 1 }]), (err: any) => err.code === 'MessagingEntityNotFoundError');

  const producer = track(new EventHubProducerClient(emulator.connectionString(hubName), { retryOptions: FAST_RETRY }));
  await assert.rejects(producer.getPartitionProperties('9'), (err: any) => err.code === 'ArgumentOutOfRangeError');
  await assert.rejects(
    producer.sendBatch([{ body: 1 }], { partitionId: '9' }),
    (err: any) => err.code === 'ArgumentOutOfRangeError',
  );

  await producer.sendBatch([{ body: 1 }], { partitionId: '0' });
  emulator.removeHub(hubName);
  await assert.rejects(producer.getEventHubProperties(), (err: any) => err.code === 'MessagingEntityNotFoundError');
  await assert.rejects(
    producer.sendBatch([{ body: 2 }], { partitionId: '0' }),
    (err: any) => err.code === 'MessagingEntityNotFoundError',
  );
});
