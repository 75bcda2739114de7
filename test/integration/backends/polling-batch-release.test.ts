/**
 * The SDK keeps the batch it hands to `processEvents` (its array and every ReceivedEventData, each with its
 * raw AMQP message) until the handler's promise settles, and the polling reader settles it only once
 * `receive()` has taken the whole batch (its backpressure). The reader empties the SDK's array once it has
 * converted the events, so a partition waiting on the pipeline holds its events once, not twice.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EventHubConsumerClient } from '@azure/event-hubs';
import type { ReceivedEventData, SubscriptionEventHandlers } from '@azure/event-hubs';
import { PollingHubClient } from '../../../src/backends/polling/polling-hub-client.ts';
import { exposedGc } from '../../../src/component/exposed-gc.ts';
import { bodyJson, drainInOrder, onePartitionHub } from './collect-events.ts';

const EVENTS = 120;
const BATCH = 40;

test('a batch waiting for receive() is held as our events only, not also as the SDK`s', async (t) => {
  const gc = exposedGc();
  assert.ok(gc, 'a full collection is needed to see what is still held');
  const { consumerGroup, connectionString } = await onePartitionHub(t, EVENTS, (i) => ({
    body: JSON.stringify({ i }),
    properties: { i },
  }));

  // Every event the SDK hands to the reader, weakly; and when the first batch was handed over.
  const handed: WeakRef<ReceivedEventData>[] = [];
  let firstBatch!: () => void;
  const firstBatchHanded = new Promise<void>((resolve) => (firstBatch = resolve));
  const prototype = EventHubConsumerClient.prototype as unknown as {
    subscribe: (partitionId: string, handlers: SubscriptionEventHandlers, options?: object) => unknown;
  };
  const subscribe = prototype.subscribe;
  prototype.subscribe = function (this: unknown, partitionId, handlers, options) {
    const watched: SubscriptionEventHandlers = {
      ...handlers,
      processEvents: (events, context) => {
        for (const event of events) handed.push(new WeakRef(event));
        if (events.length > 0) firstBatch();
        return handlers.processEvents(events, context);
      },
    };
    return subscribe.call(this, partitionId, watched, options);
  };
  t.after(() => {
    prototype.subscribe = subscribe;
  });

  const client = new PollingHubClient({ connectionString, consumerGroup });
  t.after(() => client.close());
  const reader = await client.openPartition('0', {
    startPosition: { kind: 'earliest' },
    prefetchCount: BATCH,
    maxBatchSize: BATCH,
  });
  await firstBatchHanded;
  // The batch now waits in the reader's buffer; the SDK awaits the handler, so it hands over nothing more.
  await new Promise((resolve) => setImmediate(resolve));
  gc();
  assert.equal(handed.length, BATCH, 'the SDK handed over one batch and waits');
  const held = handed.filter((ref) => ref.deref() !== undefined).length;
  assert.equal(held, 0, `${held} of the SDK's ${handed.length} handed-over events are still held`);

  // Nothing lost by it: every event arrives, in order, with its body and properties.
  const events = await drainInOrder(reader, EVENTS, 20_000, BATCH);
  for (const [i, e] of events.entries()) {
    assert.deepEqual(bodyJson(e), { i });
    assert.deepEqual(e.properties, { i });
  }
});
