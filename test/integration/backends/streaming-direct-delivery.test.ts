/**
 * The streaming backend takes Event Hubs' pre-settled deliveries straight from the session, past rhea's and
 * rhea-promise's delivery handling (backends/internal/rhea-undecoded.ts, `deliverSessionUndecoded` with a
 * direct handler). Counted here at rhea-promise's `message` event, which the direct path does not raise: a
 * drain of more events than rhea's session window (2,048 deliveries) arrives whole, in order and as sent,
 * with no such event, so the counts rhea keeps for the session and the link (its window and flow, credit)
 * stay right without rhea seeing the deliveries. Their transfer frames are read in one pass as well
 * (rhea-transfer-frames.ts): counted at rhea's `read_frame`, which then reads only the other frames.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { StreamingHubClient } from '../../../src/backends/streaming/streaming-hub-client.ts';
import { bodyJson, drainInOrder, onePartitionHub, partitionMessageEvents } from './collect-events.ts';

const require = createRequire(import.meta.url);
const rheaFrames = require('rhea/lib/frames.js') as { read_frame: (buffer: Buffer) => unknown };
const EVENTS = 5_000;

test('pre-settled deliveries reach the streaming reader without rhea`s message events, all of them', async (t) => {
  const { consumerGroup, connectionString } = await onePartitionHub(t, EVENTS, (i) => ({
    body: JSON.stringify({ i }),
    properties: { n: i },
    partitionKey: i % 7 === 0 ? `key-${i}` : undefined,
  }));
  const messageEvents = partitionMessageEvents(t);
  // Transfer frames are read in one pass (rhea-transfer-frames.ts): rhea's read_frame sees the others only.
  const readFrame = t.mock.method(rheaFrames, 'read_frame');
  const client = new StreamingHubClient({ connectionString, consumerGroup });
  t.after(() => client.close());

  const reader = await client.openPartition('0', { startPosition: { kind: 'earliest' }, prefetchCount: 300 });
  const events = await drainInOrder(reader, EVENTS, 60_000, 100);
  for (const [i, e] of events.entries()) {
    assert.deepEqual(bodyJson(e), { i });
    assert.deepEqual(e.properties, { n: i });
    assert.equal(e.partitionKey, i % 7 === 0 ? `key-${i}` : undefined);
  }
  const raised = messageEvents().length;
  assert.equal(raised, 0, `rhea-promise raised ${raised} message events for ${EVENTS} deliveries`);
  const rheaFrameReads = readFrame.mock.callCount();
  assert.ok(rheaFrameReads < 100, `rhea read ${rheaFrameReads} frames itself for ${EVENTS} deliveries`);
});
