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
import { Receiver } from 'rhea-promise';
import { PollingHubClient } from '../../../src/backends/polling/polling-hub-client.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { bodyJson, drainInOrder } from './collect-events.ts';

const require = createRequire(import.meta.url);
const rheaMessage = require('rhea/lib/message.js') as { decode: (buffer: Buffer) => unknown };
const EVENTS = 200;

test('the SDK gets its deliveries from our decoder, not rhea`s, and the events are the same', async (t) => {
  const { emulator, hubName, consumerGroup, connectionString } = await startTestEmulator(t, { partitions: 1 });
  emulator.append(
    hubName,
    '0',
    Array.from({ length: EVENTS }, (_, i) => ({
      body: JSON.stringify({ records: [{ i, é: 'ü' }] }),
      properties: { n: i, kind: i % 2 === 0 ? 'even' : 'odd' },
      partitionKey: i % 3 === 0 ? `key-${i}` : undefined,
    })),
  );
  const client = new PollingHubClient({ connectionString, consumerGroup });
  t.after(() => client.close());

  const decode = rheaMessage.decode;
  let rheaDecodes = 0;
  rheaMessage.decode = (buffer: Buffer) => {
    rheaDecodes++;
    return decode(buffer);
  };
  t.after(() => {
    rheaMessage.decode = decode;
  });
  // Deliveries that came straight from the session (past rhea's per-delivery handling) carry the one shared,
  // frozen pre-settled delivery; rhea's own are objects of their own.
  const emit = Receiver.prototype.emit;
  let straight = 0;
  let viaRhea = 0;
  Receiver.prototype.emit = function (this: Receiver, name: string | symbol, ...args: unknown[]): boolean {
    if (name === 'message' && String(this.address).includes('/Partitions/')) {
      if (Object.isFrozen((args[0] as { delivery?: object }).delivery)) straight++;
      else viaRhea++;
    }
    return emit.call(this, name, ...args);
  };
  t.after(() => {
    Receiver.prototype.emit = emit;
  });
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
  assert.ok(rheaDecodes < 20, `rhea decoded ${rheaDecodes} messages for ${EVENTS} events`);
  assert.deepEqual({ straight, viaRhea }, { straight: EVENTS, viaRhea: 0 });
});
