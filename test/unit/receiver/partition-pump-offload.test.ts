/**
 * The pump with decode threads (`offload`): a batch decoded off-thread goes to the pipeline as encoded
 * log records; a job that fails (its thread died) is decoded on the pump's thread instead, so nothing is
 * lost and the partition is not held; order and checkpoints stay as without offloading.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PartitionPump } from '../../../src/receiver/partition-pump.ts';
import { Checkpointer } from '../../../src/receiver/checkpointer.ts';
import { createPumpCounters } from '../../../src/receiver/internal/pump-counters.ts';
import type { EncodedDecode } from '../../../src/receiver/internal/decode-pool.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { FakeHub, RecordingStore, sequenceNumberDecoder, until } from './fakes.ts';

const decode = sequenceNumberDecoder;
const context = { namespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default', partitionId: '0' };
const scope = { fullyQualifiedNamespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default' };

test('encoded batches go out in order; a failed job is decoded here; checkpoints follow exports', async () => {
  const hub = new FakeHub();
  const store = new RecordingStore();
  const counters = createPumpCounters();
  const checkpointer = new Checkpointer({ store, scope, partitionId: '0', intervalMs: 60_000, everyNEvents: 0 });
  /** The sequence numbers each consumed batch stands for, and how it came (encoded or as records). */
  const consumed: { first: number; last: number; encoded: number; records: number[] }[] = [];
  let jobs = 0;
  const offload = (events: { sequenceNumber: number }[]): Promise<EncodedDecode> => {
    jobs++;
    // Every third job fails as a dead thread's would; the others answer out of order of their start.
    if (jobs % 3 === 0) return Promise.reject(new Error('decode worker ended: exit code 1'));
    const delay = jobs % 2 === 0 ? 1 : 15;
    return new Promise((resolve) =>
      setTimeout(
        () =>
          resolve({
            encodedLogs: { bytes: new Uint8Array([events.length]), records: events.length },
            metricPoints: 0,
            spans: 0,
            stats: { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 },
          }),
        delay,
      ),
    );
  };
  const pump = new PartitionPump({
    hub,
    partitionId: '0',
    start: { kind: 'earliest' },
    prefetchCount: 10,
    maxBatchSize: 10,
    maxWaitMs: 20,
    decode,
    context,
    offload: (events) => offload(events),
    consumer: {
      consume: async (b: SignalBatch) => {
        consumed.push({
          first: b.source.firstSequenceNumber,
          last: b.source.lastSequenceNumber,
          encoded: b.encodedLogs?.records ?? 0,
          records: b.records.map((r) => r.attributes.seq as number),
        });
      },
    },
    checkpointer,
    counters,
    logger: noopLogger,
    emit: () => {},
    holdInitialMs: 1,
    holdMaxMs: 5,
  });
  hub.append('0', 95);
  void pump.run();
  await until(() => consumed.reduce((n, c) => n + c.encoded + c.records.length, 0) >= 95);
  await pump.stop(1_000);
  // Batch after batch, in order, none missing or repeated.
  let next = 0;
  for (const c of consumed) {
    assert.equal(c.first, next);
    next = c.last + 1;
    if (c.records.length > 0)
      assert.deepEqual(
        c.records,
        Array.from({ length: c.last - c.first + 1 }, (_, i) => c.first + i),
      );
    else assert.equal(c.encoded, c.last - c.first + 1);
  }
  assert.equal(next, 95);
  const fallbacks = consumed.filter((c) => c.records.length > 0).length;
  assert.ok(fallbacks >= 2, `${fallbacks} batches decoded here`);
  assert.ok(consumed.length - fallbacks >= 4, 'the others went encoded');
  assert.equal(counters.eventsDecodeFallbacks + counters.eventsDecodedOffThread, 95);
  assert.equal(counters.recordsDecoded, 95);
  assert.equal(counters.recordsAccepted, 95);
  assert.equal(store.data.get('0')?.sequenceNumber, 94);
});

test('a kill does not wait for a decode thread that never answers, and writes no checkpoint', async () => {
  const hub = new FakeHub();
  const store = new RecordingStore();
  const checkpointer = new Checkpointer({ store, scope, partitionId: '0', intervalMs: 60_000, everyNEvents: 0 });
  let jobs = 0;
  const pump = new PartitionPump({
    hub,
    partitionId: '0',
    start: { kind: 'earliest' },
    prefetchCount: 10,
    maxBatchSize: 10,
    maxWaitMs: 20,
    decode,
    context,
    offload: () => {
      jobs++;
      return new Promise<EncodedDecode>(() => {});
    },
    consumer: { consume: async () => assert.fail('nothing reaches the pipeline') },
    checkpointer,
    counters: createPumpCounters(),
    logger: noopLogger,
    emit: () => {},
    holdInitialMs: 1,
    holdMaxMs: 5,
  });
  hub.append('0', 30);
  void pump.run();
  await until(() => jobs >= 1);
  const end = await pump.kill();
  assert.equal(end.reason, 'stopped');
  assert.equal(store.data.get('0'), undefined);
});
