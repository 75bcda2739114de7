/**
 * Geo-replicated namespaces serve offsets as opaque strings. With the emulator serving such offsets
 * (`opaqueOffsets`), the receiver stores them in its checkpoints as they came, positions by sequence
 * number, and resumes after a restart with nothing lost and nothing read twice, on both backends; and an
 * Azure SDK processor taking over from those checkpoints (it positions by the stored offset) reads on
 * from the right event, so the opaque text round-trips through the hub as well.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { EventHubConsumerClient } from '@azure/event-hubs';
import { BlobCheckpointStore as SdkBlobCheckpointStore } from '@azure/eventhubs-checkpointstore-blob';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { randomName, startAzurite } from '../../helpers/azurite.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { byPartition, preload, startReceiver, until } from './harness.ts';

const PARTITIONS = 2;
const OPAQUE = /^g1:[0-9a-f]{16}:r$/;

for (const backend of ['polling', 'streaming'] as const) {
  test(`opaque offsets (${backend}): stored verbatim, resumed by sequence number, then continued by an SDK processor`, {
    timeout: 120_000,
  }, async (t) => {
    const azurite = await startAzurite();
    t.after(() => azurite.stop());
    const { emulator, hubName, connectionString, track } = await startTestEmulator(t, {
      partitions: PARTITIONS,
      opaqueOffsets: true,
    });
    const containerName = randomName('opaque');
    const container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(
      containerName,
    );
    const config = {
      connection: connectionString,
      backend,
      format: 'raw' as const,
      start_position: 'earliest',
      checkpoint: { interval: '1h' }, // only the final checkpoint at shutdown holds the last events
      blob_checkpoint_store: {
        connection: azurite.connectionString,
        container_name: containerName,
        create_container: true,
      },
      ownership: { update_interval: '1s' },
    };
    const namespace = new URL(connectionString.split(';')[0]!.replace('Endpoint=', '')).hostname;
    const sdkStore = new SdkBlobCheckpointStore(container);
    const checkpoints = async () => sdkStore.listCheckpoints(namespace, hubName, '$Default');

    preload(emulator, hubName, PARTITIONS, 10);
    const first = new InMemorySignalConsumer();
    const a = startReceiver(t, config, first);
    await a.start();
    await first.waitFor(PARTITIONS * 10, 30_000);
    const offsetsSeen = first.records().map((r) => r.attributes['azure.eventhubs.message.offset']);
    assert.ok(
      offsetsSeen.every((o) => typeof o === 'string' && OPAQUE.test(o)),
      `records carry the opaque offsets: ${String(offsetsSeen[0])}`,
    );
    await a.shutdown();
    let stored = await checkpoints();
    assert.equal(stored.length, PARTITIONS);
    for (const c of stored) {
      assert.equal(c.sequenceNumber, 9);
      assert.match(String(c.offset), OPAQUE, 'the checkpoint keeps the offset as the hub wrote it');
    }

    // A restart resumes after the checkpoints: only the new events.
    preload(emulator, hubName, PARTITIONS, 5);
    const second = new InMemorySignalConsumer();
    const b = startReceiver(t, config, second);
    await b.start();
    await second.waitFor(PARTITIONS * 5, 30_000);
    await b.shutdown();
    for (const [pid, seqs] of byPartition(second.records()))
      assert.deepEqual(seqs, [10, 11, 12, 13, 14], `partition ${pid}`);
    stored = await checkpoints();
    for (const c of stored) assert.equal(c.sequenceNumber, 14);

    // An SDK processor on the same container starts from our checkpoints (by their opaque offsets).
    preload(emulator, hubName, PARTITIONS, 3);
    const seen = new Map<string, number[]>();
    const client = track(
      new EventHubConsumerClient('$Default', connectionString, sdkStore, {
        retryOptions: { maxRetries: 2, retryDelayInMs: 100 },
        // The SDK claims one partition per load-balancing round, 10 s apart by default.
        loadBalancingOptions: { updateIntervalInMs: 500 },
      }),
    );
    track(
      client.subscribe(
        {
          processEvents: async (events, ctx) => {
            for (const e of events) seen.set(ctx.partitionId, [...(seen.get(ctx.partitionId) ?? []), e.sequenceNumber]);
          },
          processError: async () => undefined,
        },
        { maxWaitTimeInSeconds: 1 },
      ),
    );
    await until(
      () => [...seen.values()].reduce((n, l) => n + l.length, 0) >= PARTITIONS * 3,
      45_000,
      'the SDK processor to read the new events',
    );
    for (let p = 0; p < PARTITIONS; p++)
      assert.deepEqual(seen.get(String(p)), [15, 16, 17], `SDK continued partition ${p} after our checkpoint`);
  });
}
