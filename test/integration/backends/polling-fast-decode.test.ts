/**
 * The polling backend has the SDK's deliveries decoded by our one-pass AMQP decoder instead of rhea's generic
 * one (event-hubs-internals.ts, decodeSdkDeliveries). Counted here at rhea's `message.decode`, which the fast
 * decoder calls only for what it does not handle: with the hook, the events of a drain reach the SDK without
 * it, and arrive as they would have (bodies, positions, properties, partition keys). They also come straight
 * from the session, past rhea's per-delivery handling (rhea-undecoded.ts): counted at rhea-promise's
 * `message` event by the delivery it carries.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { PollingHubClient } from '../../../src/backends/polling/polling-hub-client.ts';
import { bodyJson, drainInOrder, onePartitionHub, partitionMessageEvents } from './collect-events.ts';

const require = createRequire(import.meta.url);
const rheaMessage = require('rhea/lib/message.js') as { decode: (buffer: Buffer) => unknown };
const EVENTS = 200;

test('the SDK gets its deliveries from our decoder, not rhea`s, and the events are the same', async (t) => {
  const { consumerGroup, connectionString } = await onePartitionHub(t, EVENTS, (i) => ({
    body: JSON.stringify({ records: [{ i, é: 'ü' }] }),
    properties: { n: i, kind: i % 2 === 0 ? 'even' : 'odd' },
    partitionKey: i % 3 === 0 ? `key-${i}` : undefined,
  }));
  const client = new PollingHubClient({ connectionString, consumerGroup });
  t.after(() => client.close());

  const decode = t.mock.method(rheaMessage, 'decode');
  // Deliveries that came straight from the session (past rhea's per-delivery handling) carry the one shared,
  // frozen pre-settled delivery; rhea's own are objects of their own.
  const messageEvents = partitionMessageEvents(t);
  const reader = await client.openPartition('0', { startPosition: { kind: 'earliest' }, prefetchCount: 300 });
  const events = await drainInOrder(reader, EVENTS, 20_000, 100);
  for (const [i, e] of events.entries()) {
    assert.deepEqual(bodyJson(e), { records: [{ i, é: 'ü' }] });
    assert.deepEqual(e.properties, { n: i, kind: i % 2 === 0 ? 'even' : 'odd' });
    assert.equal(e.partitionKey, i % 3 === 0 ? `key-${i}` : undefined);
    assert.ok(e.enqueuedTime instanceof Date && e.enqueuedTime.getTime() > 0);
    assert.equal(typeof e.offset, 'string');
  }
  // Management and $cbs answers (a handful) may still go to rhea; no delivery of the drain does.
  const rheaDecodes = decode.mock.callCount();
  assert.ok(rheaDecodes < 20, `rhea decoded ${rheaDecodes} messages for ${EVENTS} events`);
  const straight = messageEvents().filter((m) => Object.isFrozen(m.delivery)).length;
  assert.deepEqual({ straight, viaRhea: messageEvents().length - straight }, { straight: EVENTS, viaRhea: 0 });
});
