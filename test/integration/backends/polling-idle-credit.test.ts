/**
 * The SDK adds `prefetchCount` credit at every receive round, also while a partition is idle, without
 * taking back what the link still holds; after a long silence a burst then fills its queue far beyond
 * the prefetch. The polling reader replaces an idle subscription every few rounds, which resets the
 * credit. Short SDK rounds (0.1 s) stand in for the production minutes; a byte-counting relay shows how
 * much the service sent.
 */
import { test } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { PollingHubClient } from '../../../src/backends/polling/polling-hub-client.ts';
import type { PartitionReader } from '../../../src/backends/consumer.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { collectEvents } from './collect-events.ts';
import { startByteCounter } from './tcp-byte-counter.ts';

const EVENT_BYTES = 8 * 1024;
const PREFETCH = 20;
const BURST = 300;

/** Events' worth of bytes the service sends in a burst after `idleMs` of silence, while nobody reads. */
async function burstAfterIdle(
  t: TestContext,
  idleRecycleRounds: number,
): Promise<{ burstEvents: number; reader: PartitionReader }> {
  const clients: PollingHubClient[] = [];
  t.after(() => Promise.all(clients.map((c) => c.close())));
  const { emulator, hubName, consumerGroup, connectionString } = await startTestEmulator(t, { partitions: 1 });
  const relay = await startByteCounter(emulator.port);
  t.after(() => relay.close());
  emulator.append(hubName, '0', [{ body: 'first' }]);
  const client = new PollingHubClient(
    { connectionString: connectionString.replace(`:${emulator.port}`, `:${relay.port}`), consumerGroup },
    { sdkMaxWaitS: 0.1, idleRecycleRounds },
  );
  clients.push(client);
  const reader = await client.openPartition('0', { startPosition: { kind: 'earliest' }, prefetchCount: PREFETCH });
  assert.equal((await collectEvents(reader, 1, 5_000)).length, 1);
  await new Promise((r) => setTimeout(r, 1_500)); // about 15 empty SDK rounds
  const before = relay.downstreamBytes;
  const body = 'b'.repeat(EVENT_BYTES);
  emulator.append(
    hubName,
    '0',
    Array.from({ length: BURST }, () => ({ body })),
  );
  await new Promise((r) => setTimeout(r, 800));
  const burstEvents = (relay.downstreamBytes - before) / EVENT_BYTES;
  t.diagnostic(`${burstEvents.toFixed(1)} events of ${EVENT_BYTES} B arrived during the burst (prefetch ${PREFETCH})`);
  return { burstEvents, reader };
}

test('without replacing idle links, the SDK lets a burst overrun the prefetch (the trait being fixed)', async (t) => {
  const { burstEvents } = await burstAfterIdle(t, Number.MAX_SAFE_INTEGER);
  assert.ok(
    burstEvents > 4 * PREFETCH,
    `${burstEvents.toFixed(1)} events arrived; expected the accumulated credit to let far more than ${PREFETCH} in`,
  );
});

test('replacing idle links keeps a burst within a few prefetch windows, and loses nothing', async (t) => {
  const { burstEvents, reader } = await burstAfterIdle(t, 2);
  // Two rounds of credit plus the fresh link's, plus what the SDK over-grants while events are in flight.
  assert.ok(burstEvents <= 5 * PREFETCH, `${burstEvents.toFixed(1)} events arrived with prefetch ${PREFETCH}`);
  const events = await collectEvents(reader, BURST, 15_000);
  assert.deepEqual(
    events.map((e) => e.sequenceNumber),
    Array.from({ length: BURST }, (_, i) => i + 1),
  );
});
