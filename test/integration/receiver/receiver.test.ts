import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { BACKENDS, byPartition, preload, startReceiver, until } from './harness.ts';

for (const backend of BACKENDS) {
  describe(`receiver on the ${backend} backend`, () => {
    test('100,000 events over 8 partitions: each exported exactly once, per-partition order kept', {
      timeout: 180_000,
    }, async (t) => {
      const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 8 });
      preload(emulator, hubName, 8, 12_500);
      const consumer = new InMemorySignalConsumer();
      const receiver = startReceiver(
        t,
        {
          connection: connectionString,
          backend,
          format: 'raw',
          start_position: 'earliest',
          max_poll_events: 500,
          prefetch_count: 1000,
        },
        consumer,
      );
      await receiver.start();
      await consumer.waitFor(100_000, 150_000);
      await receiver.shutdown();
      const parts = byPartition(consumer.records());
      assert.equal(parts.size, 8);
      for (const [pid, seqs] of parts) {
        assert.equal(seqs.length, 12_500, `partition ${pid} count`);
        assert.ok(
          seqs.every((s, i) => s === i),
          `partition ${pid} in order, no duplicates`,
        );
      }
      assert.equal(receiver.stats().counters.recordsAccepted, 100_000);
    });

    test('prefetch_count 0 shares one budget: 16 partitions buffer 150 each, a set prefetch_count holds', {
      timeout: 60_000,
    }, async (t) => {
      const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 16 });
      preload(emulator, hubName, 16, 50);
      const prefetchOf = (r: ReturnType<typeof startReceiver>) => r.stats().partitions.map((p) => p.prefetch);
      const consumer = new InMemorySignalConsumer();
      const shared = startReceiver(
        t,
        { connection: connectionString, backend, format: 'raw', start_position: 'earliest' },
        consumer,
      );
      await shared.start();
      await consumer.waitFor(800, 30_000);
      await until(() => shared.stats().partitions.length === 16, 10_000, 'all 16 partitions read');
      // 2,400 events for the receiver: 150 for each of 16 (the harness's max_poll_events, 200, floors it at 100).
      assert.deepEqual(prefetchOf(shared), Array(16).fill(150));
      await shared.shutdown();

      const fixed = startReceiver(t, {
        connection: connectionString,
        backend,
        format: 'raw',
        start_position: 'earliest',
        prefetch_count: 40,
      });
      await fixed.start();
      await until(() => fixed.stats().partitions.length === 16, 10_000, 'all 16 partitions read');
      assert.deepEqual(prefetchOf(fixed), Array(16).fill(200), 'a prefetch_count below one batch is one batch');
    });

    for (const inFlight of [1, 2]) {
      test(`an exporter failing transiently: nothing lost, recovery on its own; max_batches_in_flight ${inFlight}`, {
        timeout: 60_000,
      }, async (t) => {
        const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 2 });
        preload(emulator, hubName, 2, 1_000);
        const consumer = new InMemorySignalConsumer().failNext(8, 'retryable');
        const receiver = startReceiver(
          t,
          {
            connection: connectionString,
            backend,
            format: 'raw',
            start_position: 'earliest',
            max_batches_in_flight: inFlight,
          },
          consumer,
        );
        await receiver.start();
        await consumer.waitFor(2_000, 45_000);
        const parts = byPartition(consumer.records());
        const all = Array.from({ length: 1_000 }, (_, i) => i);
        for (const seqs of parts.values()) {
          // With one batch in flight a partition's order survives the retries; with two a retried batch may
          // land after the next one (docs/configuration.md#batches-in-flight), but each event arrives once.
          if (inFlight === 1) assert.deepEqual(seqs, all);
          else
            assert.deepEqual(
              seqs.toSorted((a, b) => a - b),
              all,
            );
        }
        assert.ok(consumer.calls >= consumer.batches.length + 8, 'the failed calls were retried');
        assert.equal(receiver.stats().counters.eventsDeadLettered, 0);
        await receiver.shutdown();
      });
    }

    test('a batch refused permanently lands in the dead-letter directory, counted, and reading moves on', {
      timeout: 60_000,
    }, async (t) => {
      const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 1 });
      preload(emulator, hubName, 1, 600);
      const dir = await mkdtemp(join(tmpdir(), 'dlq-'));
      t.after(() => rm(dir, { recursive: true, force: true }));
      const consumer = new InMemorySignalConsumer().failNext(1, 'permanent');
      const receiver = startReceiver(
        t,
        {
          connection: connectionString,
          backend,
          format: 'raw',
          start_position: 'earliest',
          dead_letter: { directory: dir },
        },
        consumer,
      );
      await receiver.start();
      await until(
        () => receiver.stats().counters.recordsAccepted + receiver.stats().counters.eventsDeadLettered >= 600,
        45_000,
        'all events handled',
      );
      await receiver.shutdown();
      const dead = receiver.stats().counters.eventsDeadLettered;
      assert.ok(dead > 0 && dead <= 200, `dead-lettered ${dead}`);
      const files = (await readdir(dir, { recursive: true })).filter((f) => String(f).endsWith('.jsonl'));
      const lines = (await Promise.all(files.map((f) => readFile(join(dir, String(f)), 'utf8'))))
        .join('')
        .trim()
        .split('\n');
      assert.equal(lines.length, dead);
      const first = JSON.parse(lines[0]!);
      assert.equal(JSON.stringify(first).includes('p0-e0'), true, 'original body kept');
      const exported = byPartition(consumer.records()).get('0') ?? [];
      const deadSeqs = lines
        .map((l) => JSON.parse(l))
        .map((r) => Number(r.sequence_number ?? r.event?.sequence_number ?? r.sequenceNumber));
      assert.deepEqual(
        [...exported, ...deadSeqs].sort((a, b) => a - b),
        Array.from({ length: 600 }, (_, i) => i),
      );
    });

    test('a graceful stop writes the final checkpoint to blob storage; a new instance resumes with zero duplicates', {
      timeout: 90_000,
    }, async (t) => {
      const azurite = await startAzurite();
      t.after(() => azurite.stop());
      const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 4 });
      const container = randomName('ckpt');
      const config = {
        connection: connectionString,
        backend,
        format: 'raw' as const,
        start_position: 'earliest',
        checkpoint: { interval: '60s' },
        // Rounds 200 ms apart: the default 5 s update interval is also the delay before the first claim.
        ownership: { update_interval: '200ms' },
        blob_checkpoint_store: {
          connection: azurite.connectionString,
          container_name: container,
          create_container: true,
        },
      };
      preload(emulator, hubName, 4, 500);
      const first = new InMemorySignalConsumer();
      const a = startReceiver(t, { ...config, partition: '' }, first);
      await a.start();
      await first.waitFor(2_000, 45_000);
      await a.shutdown();
      preload(emulator, hubName, 4, 300);
      const second = new InMemorySignalConsumer();
      const b = startReceiver(t, config, second);
      await b.start();
      await second.waitFor(1_200, 45_000);
      await new Promise((r) => setTimeout(r, 500));
      await b.shutdown();
      for (const [pid, seqs] of byPartition(second.records())) {
        assert.deepEqual(
          seqs,
          Array.from({ length: 300 }, (_, i) => 500 + i),
          `partition ${pid} resumed right after the checkpoint`,
        );
      }
    });
  });
}
