import { after, before, describe, test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { startAzurite, randomName, type Azurite } from '../../helpers/azurite.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { emulatorCheckpointStore } from '../../helpers/checkpoint-store.ts';
import { CapturePartitionReader } from '../../../src/capture/capture-reader.ts';
import { DEFAULT_ARCHIVE_NAME_FORMAT } from '../../../src/capture/archive-name-format.ts';
import type { ReceiverStatus } from '../../../src/receiver/receiver-status.ts';
import { BACKENDS, byPartition, startReceiver, until } from './harness.ts';

/**
 * Short retention so events expire within the test; Capture windows shorter still, so every expired
 * event is in a file by then (on Azure: windows of at most 15 min against retention of an hour or more).
 */
const RETENTION_MS = 4_000;
const CAPTURE_INTERVAL_MS = 200;
const PARTITIONS = 2;

let azurite: Azurite;
before(async () => {
  azurite = await startAzurite();
});
after(async () => {
  await azurite?.stop();
});

/**
 * A hub with Capture on and a checkpoint at sequence number 9 in each partition (where a collector stopped),
 * then 20 more events per partition that expire unread: the retention gap is 10..29 in every partition.
 */
async function hubPastRetention(t: TestContext, captureExtra: { sizeLimitBytes?: number } = {}) {
  const captureContainer = randomName('cap');
  const eh = await startTestEmulator(t, {
    partitions: PARTITIONS,
    retentionMs: RETENTION_MS,
    capture: {
      storageConnectionString: azurite.connectionString,
      blobContainer: captureContainer,
      intervalMs: CAPTURE_INTERVAL_MS,
      ...captureExtra,
    },
  });
  const {
    containerName: checkpoints,
    scope,
    store,
  } = await emulatorCheckpointStore(azurite.connectionString, eh.connectionString, eh.hubName);
  const service = BlobServiceClient.fromConnectionString(azurite.connectionString);
  for (let p = 0; p < PARTITIONS; p++) {
    eh.emulator.append(
      eh.hubName,
      String(p),
      Array.from({ length: 30 }, (_, i) => ({ body: JSON.stringify({ id: `p${p}-${i}` }) })),
    );
    await store.write(scope, { partitionId: String(p), sequenceNumber: 9, offset: '0' });
  }
  await eh.emulator.flushCapture(eh.hubName);
  // Wait on the hub's state, not a fixed time: every partition's first retained event is past 29.
  const { EventHubConsumerClient } = await import('@azure/event-hubs');
  const admin = eh.track(new EventHubConsumerClient('$Default', eh.connectionString));
  for (let p = 0; p < PARTITIONS; p++) {
    for (;;) {
      const props = await admin.getPartitionProperties(String(p));
      if (props.beginningSequenceNumber >= 30) break;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  const config = (backend: string) => ({
    connection: eh.connectionString,
    backend: backend as 'polling' | 'streaming',
    format: 'raw' as const,
    start_position: 'earliest',
    checkpoint: { interval: '100ms' },
    blob_checkpoint_store: { connection: azurite.connectionString, container_name: checkpoints },
    ownership: { update_interval: '200ms', strategy: 'greedy' as const },
    capture: { container_name: captureContainer, namespace: 'emulatorNs1' },
  });
  const location = {
    container: service.getContainerClient(captureContainer),
    archiveNameFormat: DEFAULT_ARCHIVE_NAME_FORMAT,
    namespace: 'emulatorNs1',
    eventHub: eh.hubName,
  };
  return { ...eh, config, store, scope, location };
}

/** Each partition's exported record bodies' ids, in export order. */
function idsByPartition(consumer: InMemorySignalConsumer): Map<string, number[]> {
  return byPartition(consumer.records());
}

for (const backend of BACKENDS) {
  describe(`capture backfill (${backend})`, () => {
    test('events that expired unread come from Capture in order, then the hub; nothing lost, checkpoints continuous', {
      timeout: 60_000,
    }, async (t) => {
      const hub = await hubPastRetention(t);
      const consumer = new InMemorySignalConsumer();
      const receiver = startReceiver(t, hub.config(backend), consumer);
      const statuses: ReceiverStatus[] = [];
      receiver.onStatus((s) => statuses.push(s));
      let live = false;
      receiver.onStatus((s) => {
        // Live events arrive once the backfill is under way (they are read from the hub, well within retention).
        if (s.type === 'backfillStarted' && !live) {
          live = true;
          for (let p = 0; p < PARTITIONS; p++)
            hub.emulator.append(
              hub.hubName,
              String(p),
              Array.from({ length: 5 }, (_, i) => ({ body: JSON.stringify({ id: `p${p}-live${i}` }) })),
            );
        }
      });
      await receiver.start();
      await consumer.waitFor(PARTITIONS * 25, 20_000);
      // A live event that expired before delivery starts a second backfill of its partition: wait for every
      // partition's.
      await until(
        () =>
          new Set(statuses.flatMap((s) => (s.type === 'backfillFinished' ? [s.partitionId] : []))).size === PARTITIONS,
        5_000,
        'both backfills to finish',
      );
      const seqs = idsByPartition(consumer);
      const expected = Array.from({ length: 25 }, (_, i) => 10 + i);
      for (let p = 0; p < PARTITIONS; p++)
        assert.deepEqual(
          seqs.get(String(p)),
          expected,
          `partition ${p}: 10..29 from Capture, then 30..34 live, each once`,
        );
      const bodies = consumer.records().map((r) => JSON.parse(String(r.body)).id as string);
      for (let p = 0; p < PARTITIONS; p++) {
        for (let i = 10; i < 30; i++) assert.ok(bodies.includes(`p${p}-${i}`), `p${p}-${i} arrived`);
        for (let i = 0; i < 5; i++) assert.ok(bodies.includes(`p${p}-live${i}`));
      }
      const stats = receiver.stats();
      // Every expired event came from Capture; on a loaded machine a live event may expire before the hub
      // delivers it, and then it comes from Capture too (never lost: eventsMissingFromCapture stays 0).
      assert.ok(
        stats.counters.eventsBackfilled >= PARTITIONS * 20,
        `the expired events came from Capture: ${stats.counters.eventsBackfilled}`,
      );
      assert.equal(stats.counters.eventsMissingFromCapture, 0);
      assert.equal(stats.counters.eventsLostToRetention, 0);
      assert.ok(!statuses.some((s) => s.type === 'retentionGap' || s.type === 'captureGap'));
      // Checkpoints continuous: each partition's checkpoint reaches its last event.
      await receiver.shutdown();
      for (let p = 0; p < PARTITIONS; p++)
        assert.equal((await hub.store.read(hub.scope, String(p)))?.sequenceNumber, 34);
    });

    test('a deleted capture file is reported with its exact range; every other event arrives', {
      timeout: 60_000,
    }, async (t) => {
      // Small size windows: several files per partition.
      const hub = await hubPastRetention(t, { sizeLimitBytes: 400 });
      const reader = new CapturePartitionReader(hub.location, '0');
      let deleted: { from: number; to: number } | undefined;
      for (const file of await reader.listFiles()) {
        const records = await reader.readFile(file.name);
        const seqs = records.map((r) => r.sequenceNumber);
        if (seqs.length > 0 && seqs[0]! > 10 && seqs.at(-1)! < 29) {
          deleted = { from: seqs[0]!, to: seqs.at(-1)! };
          await hub.location.container.deleteBlob(file.name);
          break;
        }
      }
      assert.ok(deleted, 'a file inside the gap to delete');
      const consumer = new InMemorySignalConsumer();
      const receiver = startReceiver(t, hub.config(backend), consumer);
      const statuses: ReceiverStatus[] = [];
      receiver.onStatus((s) => statuses.push(s));
      await receiver.start();
      const missing = deleted.to - deleted.from + 1;
      await consumer.waitFor(PARTITIONS * 20 - missing, 20_000);
      await until(() => statuses.some((s) => s.type === 'captureGap'), 5_000, 'the captureGap status');
      const gaps = statuses.filter((s) => s.type === 'captureGap');
      assert.deepEqual(
        gaps.map((g) => ({ p: g.partitionId, from: g.fromSequenceNumber, to: g.toSequenceNumber })),
        [{ p: '0', from: deleted.from, to: deleted.to }],
      );
      const seqs = idsByPartition(consumer);
      const all = Array.from({ length: 20 }, (_, i) => 10 + i);
      assert.deepEqual(
        seqs.get('0'),
        all.filter((s) => s < deleted!.from || s > deleted!.to),
      );
      assert.deepEqual(seqs.get('1'), all);
      assert.equal(receiver.stats().counters.eventsMissingFromCapture, missing);
      assert.equal(
        receiver.stats().counters.eventsLostToRetention,
        missing,
        'counted once, not again by the decode step',
      );
      // Stopped here, while the emulator runs: the after-hooks stop it first, and a streaming receiver stopped
      // after it waits out its links' close timeouts.
      await receiver.shutdown();
    });
  });
}
