/**
 * Partition supervision against the emulator and Azurite, on both backends: every way a partition's
 * reader can end by itself leaves the partition read again (by this or another instance) with nothing lost.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { EventHubConsumerClient } from '@azure/event-hubs';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { ReceiverStatus } from '../../../src/receiver/receiver-status.ts';
import { BACKENDS, byPartition, preload, startReceiver, until } from './harness.ts';

/** A detach of the partition's link with an AMQP condition, or a foreign reader with a higher owner level. */
const ENDINGS = [
  { name: 'a bare amqp:link:stolen detach', condition: 'amqp:link:stolen' },
  { name: 'a detach with an unexpected error', condition: 'amqp:internal-error' },
  { name: 'a higher-owner-level reader that attaches and then leaves', condition: undefined },
] as const;

for (const backend of BACKENDS) {
  describe(`partition supervision on the ${backend} backend`, () => {
    for (const ending of ENDINGS) {
      test(`${ending.name}: the partition is read again, nothing lost`, { timeout: 120_000 }, async (t) => {
        const azurite = await startAzurite();
        t.after(() => azurite.stop());
        const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: 2 });
        const container = randomName('sup');
        await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(container).create();
        preload(emulator, hubName, 2, 300);
        const consumer = new InMemorySignalConsumer();
        const receiver = startReceiver(
          t,
          {
            connection: connectionString,
            backend,
            format: 'raw',
            start_position: 'earliest',
            max_poll_events: 50,
            checkpoint: { interval: '200ms' },
            ownership: { update_interval: '200ms' },
            blob_checkpoint_store: { connection: azurite.connectionString, container_name: container },
          },
          consumer,
        );
        const statuses: ReceiverStatus[] = [];
        receiver.onStatus((s) => statuses.push(s));
        await receiver.start();
        await consumer.waitFor(600, 30_000);
        const opensBefore = statuses.filter((s) => s.type === 'partitionOpened' && s.partitionId === '0').length;

        const started = Date.now();
        if (ending.condition) {
          await until(
            () => emulator.faults.detachReceivers({ hub: hubName, partitionId: '0', condition: ending.condition }) > 0,
            5_000,
            'a detach',
          );
        } else {
          const intruder = track(
            new EventHubConsumerClient('$Default', connectionString, { retryOptions: { maxRetries: 0 } }),
          );
          let received = 0;
          const sub = intruder.subscribe(
            '0',
            { processEvents: async (events) => void (received += events.length), processError: async () => {} },
            {
              ownerLevel: 1_000_000,
              startPosition: { sequenceNumber: 0 },
            },
          );
          preload(emulator, hubName, 2, 10);
          await until(() => received > 0, 20_000, 'the intruder reading');
          await sub.close();
          await intruder.close();
        }
        preload(emulator, hubName, 2, 200);
        // Read again, by a fresh open of partition 0 (in place or after a hand-back), and everything arrives.
        const expected = ending.condition ? 500 : 510;
        await until(
          () =>
            byPartition(consumer.records()).get('0')?.length === expected &&
            byPartition(consumer.records()).get('1')?.length === expected,
          60_000,
          'all events',
        );
        t.diagnostic(
          `read again and caught up ${Date.now() - started} ms after the ending; restarts ` +
            `${JSON.stringify(receiver.stats().restarts)}`,
        );
        for (const [pid, seqs] of byPartition(consumer.records())) {
          assert.deepEqual(
            [...new Set(seqs)].sort((a, b) => a - b),
            Array.from({ length: expected }, (_, i) => i),
            `partition ${pid}: nothing lost`,
          );
          assert.equal(seqs.length, expected, `partition ${pid}: nothing repeated`);
        }
        if (ending.condition !== 'amqp:internal-error') {
          assert.ok(
            statuses.filter((s) => s.type === 'partitionOpened' && s.partitionId === '0').length > opensBefore,
            'handed back and claimed again',
          );
          assert.ok(receiver.stats().restarts.ownershipLost >= 1);
        }
        assert.deepEqual(receiver.ownedPartitions(), ['0', '1']);
        assert.deepEqual(emulator.audit.overlaps(), [], 'never two readers at once');
        // Stopped here, while Azurite still runs (the after-hooks stop Azurite first): a stop with storage gone
        // waits out its final checkpoint's and releases' timeouts.
        await receiver.shutdown();
      });
    }
  });
}

for (const backend of BACKENDS) {
  test(`${backend}: a stop during the reader's reopen backoff writes the final checkpoint; the successor exports no ` +
    `duplicate`, {
    timeout: 120_000,
  }, async (t) => {
    const azurite = await startAzurite();
    t.after(() => azurite.stop());
    const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 2 });
    const container = randomName('backoff');
    await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(container).create();
    preload(emulator, hubName, 2, 300);
    const config = {
      connection: connectionString,
      backend,
      format: 'raw' as const,
      start_position: 'earliest',
      max_poll_events: 50,
      checkpoint: { interval: '1h' }, // only the final checkpoint of a stop is written
      ownership: { update_interval: '200ms' },
      blob_checkpoint_store: { connection: azurite.connectionString, container_name: container },
    };
    const first = new InMemorySignalConsumer();
    const a = startReceiver(t, config, first);
    const statuses: ReceiverStatus[] = [];
    a.onStatus((s) => statuses.push(s));
    await a.start();
    await first.waitFor(600, 30_000);
    // The hub answers the reader with "not found" once: a permanent refusal, reopened after a backoff.
    await until(
      () =>
        emulator.faults.detachReceivers({
          hub: hubName,
          partitionId: '0',
          condition: 'amqp:not-found',
          description: "The messaging entity 'x' could not be found.",
        }) > 0,
      5_000,
      'a detach',
    );
    await until(
      () => statuses.some((s) => s.type === 'partitionState' && s.partitionId === '0' && s.state === 'retrying'),
      20_000,
      'the reader in its backoff',
    );
    await a.shutdown();
    const closed = statuses.filter((s) => s.type === 'partitionClosed' && s.partitionId === '0');
    assert.equal(closed.length, 1, 'closed once');

    preload(emulator, hubName, 2, 100);
    const second = new InMemorySignalConsumer();
    const b = startReceiver(t, config, second);
    await b.start();
    await until(
      () =>
        byPartition(second.records()).get('0')?.length === 100 &&
        byPartition(second.records()).get('1')?.length === 100,
      30_000,
      'the successor catching up',
    );
    const before = byPartition(first.records());
    for (const [pid, seqs] of byPartition(second.records())) {
      const seen = new Set(before.get(pid));
      assert.deepEqual(
        seqs.filter((s) => seen.has(s)),
        [],
        `partition ${pid}: no duplicate`,
      );
      assert.deepEqual(
        [...before.get(pid)!, ...seqs],
        Array.from({ length: 400 }, (_, i) => i),
        `partition ${pid}: nothing lost`,
      );
    }
    await b.shutdown(); // while Azurite still runs, as above
  });
}
