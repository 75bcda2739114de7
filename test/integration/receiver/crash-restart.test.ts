import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { exportedAll, Instance, tally, waitUntil } from '../../helpers/fleet.ts';
import { BACKENDS, preload } from './harness.ts';

const PARTITIONS = 4;
/** Events per partition; with delivery slowed to 1 ms an event, the crash lands well before the end. */
const PER_PARTITION = 2_000;
const TOTAL = PARTITIONS * PER_PARTITION;
/** The first instance is killed once it has exported this many: mid-stream, after several checkpoints. */
const CRASH_AFTER = 1_500;

// The backends' runs are independent (an emulator each, their own container): they run side by side, so that
// their waits for the crashed instance's leases to expire overlap.
describe('crash and restart', { concurrency: true }, () => {
  for (const backend of BACKENDS) {
    test(`${backend}: killed mid-stream without a graceful stop, then started again: nothing lost, duplicates only ` +
      `after the last checkpoint`, {
      timeout: 120_000,
    }, async (t) => {
      const azurite = await startAzurite();
      t.after(() => azurite.stop());
      const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: PARTITIONS });
      const container = randomName('crash');
      await BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(container).create();
      preload(emulator, hubName, PARTITIONS, PER_PARTITION);
      // Slow the hub down so the crash lands mid-stream.
      emulator.faults.slowDelivery(1);
      const config = {
        connection: connectionString,
        backend,
        format: 'raw' as const,
        start_position: 'earliest',
        poll_rate: 0.2,
        max_poll_events: 50,
        checkpoint: { interval: '500ms' },
        // The restarted instance waits for the crashed one's leases to expire (lease ids are per process);
        // 15 s is the shortest lease, the least to wait.
        ownership: { owner_id: 'solo', update_interval: '1s', lease_duration: '15s' },
        blob_checkpoint_store: { connection: azurite.connectionString, container_name: container },
      };
      const first = new Instance('first', config);
      t.after(() => first.crash());
      await waitUntil(() => first.records.length >= CRASH_AFTER, 60_000, 'events flowing', [first]);
      await first.crash();
      const lastCheckpoint = new Map<string, number>();
      for (const s of first.statuses)
        if (s.type === 'checkpointWritten')
          lastCheckpoint.set(s.partitionId!, Math.max(lastCheckpoint.get(s.partitionId!) ?? -1, s.sequenceNumber!));
      emulator.faults.slowDelivery(0);

      const restartAt = Date.now();
      const second = new Instance('second', config);
      t.after(() => second.crash());
      const exported = () => exportedAll([first, second], TOTAL);
      await waitUntil(exported, 60_000, 'every event exported after the restart', [second]);
      await second.stop();
      const counts = tally([first, second]);
      const duplicates = [...counts].filter(([, n]) => n > 1).map(([k]) => k);
      for (const key of duplicates) {
        const [pid, seq] = key.split('/');
        assert.ok(
          Number(seq) > (lastCheckpoint.get(pid!) ?? -1),
          `duplicate ${key} is at or before the last checkpoint`,
        );
      }
      const firstByPartition = new Map<string, number>();
      for (const [pid, seq] of first.records) firstByPartition.set(pid, Math.max(firstByPartition.get(pid) ?? -1, seq));
      const bound = [...firstByPartition].reduce((sum, [pid, max]) => sum + (max - (lastCheckpoint.get(pid) ?? -1)), 0);
      assert.ok(
        duplicates.length <= bound,
        `${duplicates.length} duplicates exceed the ${bound} events exported after the last checkpoints`,
      );
      const reopened = second.statuses.find((s) => s.type === 'partitionOpened');
      t.diagnostic(
        `${first.records.length} exported before the crash; ${duplicates.length} duplicates (bound ${bound}); ` +
          `restarted instance reading after ${reopened?.at ? reopened.at - restartAt : '?'} ms`,
      );
      assert.deepEqual(emulator.audit.overlaps(), []);
    });
  }
});
