/**
 * A backlog drained the way the collector wires it: simulated partition pumps (one consume call at a
 * time, each announced with attachProducer) → withRetry → fanOut over two pipelines → a BatchProcessor
 * each → in-memory exporters. The processors' timeout is one hour: the drain completes only because
 * they export as soon as every pump is waiting on them.
 */
import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { BatchProcessor } from '../../../src/processors/batch-processor.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { fanOut } from '../../../src/pipeline/fan-out.ts';
import { withRetry } from '../../../src/pipeline/retry.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import { holdEventLoopOpen, makeRecord, makeSource } from '../pipeline/records.ts';

holdEventLoopOpen(after);

const HOUR_MS = 3_600_000;
const PUMPS = 8;

/** Rejects if `promise` has not settled within `ms`, so a stall fails instead of hanging. */
function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error(`not settled within ${ms} ms`)), ms).unref(),
  );
  return Promise.race([promise, timeout]);
}

/** Batch sizes of one pump: 1 to 150 records, deterministic, so batches split and combine unevenly. */
function batchSizes(pump: number): number[] {
  return Array.from({ length: 10 + pump * 3 }, (_, n) => 1 + ((pump * 37 + n * 53) % 150));
}

/** One partition pump: consumes its backlog one batch at a time, attached for as long as it runs. */
async function runPump(consumer: SignalConsumer, pump: number): Promise<void> {
  const detach = consumer.attachProducer?.();
  try {
    let seq = 0;
    for (const size of batchSizes(pump)) {
      const records = Array.from({ length: size }, (_, i) => makeRecord(`${pump}:${seq + i}`));
      await consumer.consume({ records, source: makeSource(String(pump), seq, seq + size - 1) });
      seq += size;
    }
  } finally {
    detach?.();
  }
}

/** Per partition, the record indexes in the order the exporter accepted them. */
function indexesByPartition(consumer: InMemorySignalConsumer): Map<string, number[]> {
  const map = new Map<string, number[]>();
  for (const r of consumer.records()) {
    const [pump, index] = String(r.body).split(':');
    map.set(pump!, [...(map.get(pump!) ?? []), Number(index)]);
  }
  return map;
}

const instantClock = { now: () => Date.now(), sleep: async () => {} };

describe('BatchProcessor draining a backlog from partition pumps', () => {
  test('every pump drains with a one-hour timeout, each partition in order, nothing lost or doubled', async () => {
    const plain = new InMemorySignalConsumer();
    const split = new InMemorySignalConsumer();
    const head = withRetry(
      fanOut([
        new BatchProcessor(plain, { timeoutMs: HOUR_MS }),
        new BatchProcessor(split, {
          timeoutMs: HOUR_MS,
          sendBatchSize: 200,
          sendBatchMaxSize: 250,
          maxConcurrentExports: 3,
        }),
      ]),
      { clock: instantClock },
    );
    await within(Promise.all(Array.from({ length: PUMPS }, (_, p) => runPump(head, p))), 30_000);

    for (const consumer of [plain, split]) {
      const byPartition = indexesByPartition(consumer);
      for (let p = 0; p < PUMPS; p++) {
        const total = batchSizes(p).reduce((a, b) => a + b, 0);
        assert.deepEqual(
          byPartition.get(String(p)),
          Array.from({ length: total }, (_, i) => i),
          `partition ${p}`,
        );
      }
    }
    assert.ok(plain.calls < batchSizes(0).length * PUMPS, 'batches were combined');
    assert.ok(
      split.batches.every((b) => b.records.length <= 250),
      'send_batch_max_size held',
    );
  });

  test('retried failures on the way do not stall the drain', async () => {
    const flaky = new InMemorySignalConsumer().failNext(3, 'retryable');
    const processor = new BatchProcessor(flaky, {
      timeoutMs: HOUR_MS,
      sendBatchMaxSize: 8192,
      maxConcurrentExports: 2,
    });
    const head = withRetry(fanOut([processor]), { clock: instantClock });
    await within(Promise.all(Array.from({ length: PUMPS }, (_, p) => runPump(head, p))), 30_000);
    const byPartition = indexesByPartition(flaky);
    for (let p = 0; p < PUMPS; p++) {
      const total = batchSizes(p).reduce((a, b) => a + b, 0);
      assert.equal(new Set(byPartition.get(String(p))).size, total, `partition ${p}: every record at least once`);
    }
  });
});
