/**
 * Several batches of one partition in the pipeline at once (`maxBatchesInFlight`): they are handed over in
 * order, at most that many at a time, and the checkpoint only ever passes a batch once it and every batch
 * before it were delivered (or dead-lettered); a stop with batches in flight ends at the highest such batch.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PartitionPump } from '../../../src/receiver/partition-pump.ts';
import type { PartitionPumpOptions } from '../../../src/receiver/partition-pump-options.ts';
import { Checkpointer } from '../../../src/receiver/checkpointer.ts';
import { createPumpCounters } from '../../../src/receiver/internal/pump-counters.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import { PermanentError } from '../../../src/component/errors.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import type { ReceiverStatus } from '../../../src/receiver/receiver-status.ts';
import { BatchProcessor } from '../../../src/processors/batch-processor.ts';
import { FakeHub, RecordingStore, sequenceNumberDecoder, until } from './fakes.ts';

const context = { namespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default', partitionId: '0' };
const scope = { fullyQualifiedNamespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default' };

/** The first sequence number of a batch (one record per event, in order). */
const firstOf = (b: SignalBatch) => b.records[0]!.attributes.seq as number;

/** A consumer whose calls wait until the test settles them, one handle per call. */
function heldConsumer() {
  const calls: { first: number; resolve: () => void; reject: (e: Error) => void }[] = [];
  let outstanding = 0;
  let maxOutstanding = 0;
  const consumer: SignalConsumer = {
    consume: (b, signal) => {
      outstanding++;
      maxOutstanding = Math.max(maxOutstanding, outstanding);
      return new Promise<void>((resolve, reject) => {
        let open = true;
        const done = () => {
          if (open) outstanding--;
          open = false;
        };
        // As the contract asks: a call ends promptly when its signal aborts (a kill).
        signal?.addEventListener('abort', () => (done(), reject(signal.reason)), { once: true });
        calls.push({ first: firstOf(b), resolve: () => (done(), resolve()), reject: (e) => (done(), reject(e)) });
      });
    },
  };
  return {
    consumer,
    calls,
    maxOutstanding: () => maxOutstanding,
    call: (first: number) => calls.find((c) => c.first === first),
  };
}

function setup(consumer: SignalConsumer, opts: Partial<PartitionPumpOptions> = {}) {
  const hub = new FakeHub();
  const store = new RecordingStore();
  const statuses: ReceiverStatus[] = [];
  const counters = createPumpCounters();
  const checkpointer = new Checkpointer({ store, scope, partitionId: '0', intervalMs: 60_000, everyNEvents: 1 });
  const pump = new PartitionPump({
    hub,
    partitionId: '0',
    start: { kind: 'earliest' },
    prefetchCount: 10,
    maxBatchSize: 10,
    maxWaitMs: 20,
    decode: sequenceNumberDecoder,
    context,
    consumer,
    checkpointer,
    counters,
    logger: noopLogger,
    emit: (s) => statuses.push(s),
    holdInitialMs: 1,
    holdMaxMs: 5,
    maxBatchesInFlight: 3,
    ...opts,
  });
  return { hub, store, pump, statuses, counters, checkpoint: () => store.data.get('0')?.sequenceNumber };
}

/** A pump over 30 events with its first three batches handed over and held. */
async function threeInFlight() {
  const held = heldConsumer();
  const parts = setup(held.consumer);
  parts.hub.append('0', 30);
  void parts.pump.run();
  await until(() => held.calls.length === 3);
  return { held, ...parts };
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 40));

test('up to maxBatchesInFlight batches are handed over, in order, before the first is delivered', async () => {
  const held = heldConsumer();
  const { hub, pump } = setup(held.consumer);
  hub.append('0', 60);
  void pump.run();
  await until(() => held.calls.length === 3);
  await settle();
  assert.deepEqual(
    held.calls.map((c) => c.first),
    [0, 10, 20],
    'three in flight, in receive order, no fourth',
  );
  held.call(0)!.resolve();
  await until(() => held.calls.length === 4);
  for (const c of held.calls) c.resolve();
  await until(() => held.calls.length === 6);
  for (const c of held.calls) c.resolve();
  await pump.stop(1_000);
  assert.equal(held.maxOutstanding(), 3);
});

test(
  "a later batch delivered while an earlier one is held moves no checkpoint; the earlier one's delivery moves it " +
    'to the highest contiguous',
  async () => {
    const { held, pump, checkpoint } = await threeInFlight();
    held.call(0)!.resolve();
    held.call(20)!.resolve();
    await until(() => pump.lastSequenceNumber === 9);
    await settle();
    assert.equal(checkpoint(), 9, 'batch 20..29 delivered, but 10..19 is not: nothing past 9');
    assert.equal(pump.lastSequenceNumber, 9);
    held.call(10)!.resolve();
    await until(() => checkpoint() === 29);
    await pump.stop(1_000);
  },
);

test('a batch refused and retried lands after the next one; the checkpoint waits for it', async () => {
  const order: number[] = [];
  let refusals = 0;
  let checkpointWhileHeld: number | undefined;
  const { hub, pump, checkpoint } = setup({
    consume: async (b) => {
      if (firstOf(b) === 10 && refusals < 3) {
        refusals++;
        // The batch after it was delivered by the last refusal (it is not held behind this one).
        if (refusals === 3) checkpointWhileHeld = checkpoint();
        await new Promise((resolve) => setTimeout(resolve, 10));
        throw new Error('503 unavailable');
      }
      order.push(firstOf(b));
    },
  });
  hub.append('0', 30);
  void pump.run();
  await until(() => checkpoint() === 29);
  await pump.stop(1_000);
  assert.deepEqual(order, [0, 20, 10], 'batch 10..19 was retried after 20..29 was delivered');
  assert.equal(checkpointWhileHeld, 9);
});

test(
  'a stop while a batch is held and a later one was delivered ends at the last batch before the held ' + 'one',
  async () => {
    const { hub, pump, checkpoint, store } = setup({
      consume: async (b) => {
        if (firstOf(b) === 10) throw new Error('503 unavailable');
      },
    });
    hub.append('0', 30);
    void pump.run();
    await until(() => pump.state.state === 'retrying' && checkpoint() === 9);
    await settle();
    const end = await pump.stop(1_000);
    assert.equal(end.reason, 'stopped');
    assert.equal(checkpoint(), 9, 'the final checkpoint stays before the held batch, not at the delivered 29');
    assert.ok(store.writes.every((w) => w.sequenceNumber <= 9));
  },
);

test('a batch dead-lettered while the next was delivered: the checkpoint passes both once it is written', async () => {
  const dead: number[] = [];
  let release!: () => void;
  const deadLetterGate = new Promise<void>((resolve) => (release = resolve));
  const { hub, pump, checkpoint } = setup(
    {
      consume: async (b) => {
        if (firstOf(b) === 10) throw new PermanentError('400 bad request');
      },
    },
    {
      deadLetter: {
        write: async (entries) => {
          await deadLetterGate;
          for (const e of entries) dead.push(e.event.sequenceNumber);
        },
      },
    },
  );
  hub.append('0', 30);
  void pump.run();
  await until(() => checkpoint() === 9);
  await settle();
  assert.equal(checkpoint(), 9, 'not past the batch whose dead-letter write is pending');
  release();
  await until(() => checkpoint() === 29);
  await pump.stop(1_000);
  assert.equal(dead.length, 10);
});

test(
  'a graceful stop with batches in flight lets them finish, out of order, and writes the highest ' + 'contiguous',
  async () => {
    const { held, pump, checkpoint, store } = await threeInFlight();
    const stopping = pump.stop(5_000);
    held.call(20)!.resolve();
    held.call(10)!.resolve();
    await settle();
    assert.equal(checkpoint(), undefined, 'nothing before 0..9 is delivered');
    held.call(0)!.resolve();
    const end = await stopping;
    assert.equal(end.reason, 'stopped');
    assert.equal(checkpoint(), 29);
    assert.deepEqual(
      store.writes.map((w) => w.sequenceNumber),
      [29],
      'one write, the final one',
    );
  },
);

test('a stop past its timeout with batches in flight writes only what was delivered in order', async () => {
  const { held, pump, checkpoint } = await threeInFlight();
  held.call(0)!.resolve();
  held.call(20)!.resolve();
  await until(() => checkpoint() === 9);
  // The stop's timer is unref'ed and the held call holds no handle: keep the test's event loop alive.
  const alive = setInterval(() => {}, 1_000);
  try {
    await pump.stop(50);
  } finally {
    clearInterval(alive);
  }
  assert.equal(checkpoint(), 9);
});

test('a killed pump (ownership lost) with batches in flight writes nothing more', async () => {
  const { held, pump, store } = await threeInFlight();
  held.call(10)!.resolve();
  held.call(20)!.resolve();
  await settle();
  await pump.kill();
  held.call(0)!.resolve();
  await settle();
  assert.deepEqual(store.writes, []);
});

test('the byte bound lets one batch at a time when a batch fills it', async () => {
  const held = heldConsumer();
  const { hub, pump } = setup(held.consumer, { maxBytesInFlight: 1 });
  hub.append('0', 30);
  void pump.run();
  await until(() => held.calls.length === 1);
  await settle();
  assert.equal(held.calls.length, 1);
  held.calls[0]!.resolve();
  await until(() => held.calls.length === 2);
  held.calls[1]!.resolve();
  await until(() => held.calls.length === 3);
  held.calls[2]!.resolve();
  await pump.stop(1_000);
  assert.equal(held.maxOutstanding(), 1);
});

test('health follows the oldest undelivered batch: a later batch delivered leaves the partition waiting', async () => {
  const held = heldConsumer();
  const { hub, pump, statuses } = setup(held.consumer, { deliveryWaitReportMs: 30 });
  hub.append('0', 20);
  const before = Date.now();
  void pump.run();
  await until(() => held.calls.length === 2);
  held.call(10)!.resolve();
  await until(() => pump.state.state === 'waiting');
  await settle();
  assert.equal(pump.state.state, 'waiting', 'batch 0..9 still undelivered');
  assert.ok(pump.state.since >= before && pump.state.since <= before + 25, 'since its hand-over');
  held.call(0)!.resolve();
  await until(() => pump.state.state === 'reading');
  await pump.stop(1_000);
  const states = statuses.flatMap((s) => (s.type === 'partitionState' ? [s.state] : []));
  assert.deepEqual(states, ['waiting', 'reading']);
});

test('a held batch keeps the partition retrying while later batches are delivered', async () => {
  let refusals = 0;
  let delivered = 0;
  const { hub, pump, statuses } = setup({
    consume: async (b) => {
      if (firstOf(b) === 0 && refusals < 20) {
        refusals++;
        throw new Error('503 unavailable');
      }
      delivered++;
    },
  });
  hub.append('0', 30);
  void pump.run();
  await until(() => delivered === 2 && refusals >= 3);
  assert.equal(pump.state.state, 'retrying', 'batches 10..29 delivered, 0..9 still held');
  await until(() => refusals === 20 && delivered === 3);
  await until(() => pump.state.state === 'reading');
  await pump.stop(1_000);
  const states = statuses.flatMap((s) => (s.type === 'partitionState' ? [s.state] : []));
  assert.deepEqual(states, ['retrying', 'reading']);
});

test(
  'a batch processor in front: the drain is not held on its timer with several batches per partition in ' + 'flight',
  async () => {
    const exported: number[] = [];
    const processor = new BatchProcessor(
      {
        consume: async (b) => {
          for (const r of b.records) exported.push(r.attributes.seq as number);
        },
      },
      { sendBatchSize: 1_000, timeoutMs: 60_000 },
    );
    const { hub, pump, checkpoint } = setup(processor);
    hub.append('0', 95);
    void pump.run();
    await until(() => exported.length === 95, 2_000);
    await until(() => checkpoint() === 94, 2_000);
    await pump.stop(1_000);
    assert.deepEqual(
      exported.toSorted((a, b) => a - b),
      Array.from({ length: 95 }, (_, i) => i),
    );
    await processor.shutdown();
  },
);
