/**
 * Encoded log records a consumer cannot send as they are (an `EncodedLogsRefusedError`: too large for one
 * request) are handed over again as records, decoded on the pump's thread, without a hold, a dead letter
 * or a second count; what happens to them then is what would have happened without decode threads.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { PartitionPump } from '../../../src/receiver/partition-pump.ts';
import type { PartitionPumpOptions } from '../../../src/receiver/partition-pump-options.ts';
import { Checkpointer } from '../../../src/receiver/checkpointer.ts';
import { createPumpCounters } from '../../../src/receiver/internal/pump-counters.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import { PermanentError } from '../../../src/component/errors.ts';
import { EncodedLogsRefusedError } from '../../../src/pipeline/encoded-logs-refusal.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { FakeHub, RecordingStore, sequenceNumberDecoder } from './fakes.ts';

const decode = sequenceNumberDecoder;
const scope = { fullyQualifiedNamespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default' };

/** What each test varies of a pump over partition 0 of a fake hub; the rest is the same for all. */
type Varied = Pick<PartitionPumpOptions, 'consumer' | 'offload' | 'deadLetter'>;

/** A pump over partition 0 of a fake hub holding `events` events, running until the test stops it. */
function runPump(events: number, varied: Varied) {
  const hub = new FakeHub();
  const store = new RecordingStore();
  const counters = createPumpCounters();
  const checkpointer = new Checkpointer({ store, scope, partitionId: '0', intervalMs: 60_000, everyNEvents: 0 });
  const pump = new PartitionPump({
    hub,
    partitionId: '0',
    start: { kind: 'earliest' },
    prefetchCount: 10,
    maxBatchSize: 10,
    maxWaitMs: 20,
    decode,
    context: { namespace: 'fake', eventHubName: 'hub', consumerGroup: '$Default', partitionId: '0' },
    ...varied,
    checkpointer,
    counters,
    logger: noopLogger,
    emit: () => {},
    holdInitialMs: 1,
    holdMaxMs: 5,
  });
  hub.append('0', events);
  void pump.run();
  return { store, counters, pump };
}

/** Waits (at most 5 s) until `done`, then stops the pump. */
async function stopWhen(pump: PartitionPump, done: () => boolean): Promise<void> {
  const deadline = Date.now() + 5_000;
  while (!done() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  await pump.stop(1_000);
}

test('refused encoded records come back as records, once, and are then delivered', async () => {
  const seen: string[] = [];
  const delivered: number[] = [];
  const { store, counters, pump } = runPump(25, {
    offload: async (events) => ({
      encodedLogs: { bytes: new Uint8Array(1), records: events.length },
      metricPoints: 0,
      spans: 0,
      stats: { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 },
    }),
    consumer: {
      consume: async (b: SignalBatch) => {
        seen.push(b.encodedLogs ? 'encoded' : 'records');
        // As a fan-out wraps it: the refusal is found through the cause.
        if (b.encodedLogs)
          throw new PermanentError('1 of 1 consumers failed', { cause: new EncodedLogsRefusedError('too large') });
        for (const r of b.records) delivered.push(r.attributes.seq as number);
      },
    },
  });
  await stopWhen(pump, () => delivered.length >= 25);
  assert.deepEqual(
    delivered,
    Array.from({ length: 25 }, (_, i) => i),
  );
  assert.deepEqual(seen, ['encoded', 'records', 'encoded', 'records', 'encoded', 'records']);
  assert.equal(counters.recordsDecoded, 25, 'decoded again, counted once');
  assert.equal(counters.recordsAccepted, 25);
  assert.equal(counters.exportHolds, 0);
  assert.equal(counters.eventsDeadLettered + counters.recordsRefused, 0);
  assert.equal(store.data.get('0')?.sequenceNumber, 24);
});

test('an encoded batch refused for good dead-letters its events and counts its records refused', async () => {
  const lettered: number[] = [];
  const { store, counters, pump } = runPump(15, {
    offload: async (events) => ({
      // Two records per event, as an Azure event with two records decodes.
      encodedLogs: { bytes: new Uint8Array(1), records: 2 * events.length },
      metricPoints: 0,
      spans: 0,
      stats: { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 },
    }),
    consumer: {
      consume: async () => {
        throw new PermanentError('400 Bad Request');
      },
    },
    deadLetter: { write: async (entries) => void lettered.push(...entries.map((e) => e.event.sequenceNumber)) },
  });
  await stopWhen(pump, () => lettered.length >= 15);
  assert.deepEqual(
    lettered,
    Array.from({ length: 15 }, (_, i) => i),
  );
  assert.equal(counters.recordsRefused, 30);
  assert.equal(counters.recordsAccepted, 0);
  assert.equal(counters.eventsDeadLettered, 15);
  assert.equal(store.data.get('0')?.sequenceNumber, 14, 'checkpointed past, once dead-lettered');
});

test(
  "a batch of records caught in another partition's refused encoded export goes again; a consumer that keeps " +
    'refusing is refused',
  async () => {
    for (const refusals of [1, Number.POSITIVE_INFINITY]) {
      const lettered: number[] = [];
      let calls = 0;
      const { counters, pump } = runPump(10, {
        consumer: {
          consume: async () => {
            if (calls++ < refusals)
              throw new EncodedLogsRefusedError("another partition's encoded records were too large");
          },
        },
        deadLetter: { write: async (entries) => void lettered.push(...entries.map((e) => e.event.sequenceNumber)) },
      });
      await stopWhen(pump, () => counters.recordsAccepted + counters.recordsRefused >= 10);
      if (refusals === 1) {
        assert.equal(counters.recordsAccepted, 10);
        assert.deepEqual(lettered, []);
      } else {
        assert.equal(calls, 4, 'sent again three times, then handled as a permanent refusal');
        assert.deepEqual(
          lettered,
          Array.from({ length: 10 }, (_, i) => i),
        );
      }
    }
  },
);
