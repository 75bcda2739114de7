import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BatchProcessor } from '../../../src/processors/batch-processor.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';

const source = (partitionId: string) => ({
  namespace: 'ns',
  eventHubName: 'hub',
  consumerGroup: '$Default',
  partitionId,
  firstSequenceNumber: 0,
  lastSequenceNumber: 1,
});

function sink(accepts = true): SignalConsumer & { batches: SignalBatch[] } {
  const batches: SignalBatch[] = [];
  return { batches, acceptsEncodedLogs: accepts, consume: async (b) => void batches.push(b) };
}

test('encoded batches are combined by concatenation and counted by their records', async () => {
  const next = sink();
  const batch = new BatchProcessor(next, { sendBatchSize: 5, timeoutMs: 60_000 });
  assert.equal(batch.acceptsEncodedLogs, true);
  const a = batch.consume({
    records: [],
    encodedLogs: { bytes: Uint8Array.of(1, 2), records: 2 },
    source: source('0'),
  });
  const b = batch.consume({
    records: [],
    encodedLogs: { bytes: Uint8Array.of(3, 4, 5), records: 3 },
    source: source('1'),
  });
  await Promise.all([a, b]);
  assert.equal(next.batches.length, 1, 'five records reach send_batch_size: one export');
  assert.deepEqual([...next.batches[0]!.encodedLogs!.bytes], [1, 2, 3, 4, 5]);
  assert.equal(next.batches[0]!.encodedLogs!.records, 5);
});

test('the processor takes encoded records only when what follows does and it need not split', () => {
  assert.equal(new BatchProcessor(sink(false)).acceptsEncodedLogs, false);
  assert.equal(new BatchProcessor(sink(), { sendBatchSize: 10, sendBatchMaxSize: 20 }).acceptsEncodedLogs, false);
});

test('with send_batch_max_size, an encoded batch is never split: it goes whole, in an export of its own', async () => {
  const next = sink();
  const batch = new BatchProcessor(next, { sendBatchSize: 2, sendBatchMaxSize: 3, timeoutMs: 0 });
  await batch.consume({
    records: [],
    encodedLogs: { bytes: Uint8Array.of(9, 9, 9, 9), records: 4 },
    source: source('0'),
  });
  assert.equal(next.batches.length, 1);
  assert.equal(next.batches[0]!.encodedLogs!.records, 4);
  await batch.shutdown();
});
