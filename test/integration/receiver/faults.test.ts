import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { ReceiverStatus } from '../../../src/receiver/receiver-status.ts';
import { BACKENDS, byPartition, preload, startReceiver, until } from './harness.ts';

/**
 * Events per partition before the fault (it comes after 500 are delivered, so most are still to read or in
 * flight) and after it.
 */
const PRELOADED = 1_000;
const ADDED = 500;

const FAULTS = [
  {
    name: 'server-busy detach',
    inject: (e: any, hub: string) =>
      [0, 1].forEach((p) =>
        e.faults.detachReceivers({ hub, partitionId: String(p), condition: 'com.microsoft:server-busy' }),
      ),
  },
  {
    name: 'detach-forced',
    inject: (e: any, hub: string) =>
      [0, 1].forEach((p) =>
        e.faults.detachReceivers({ hub, partitionId: String(p), condition: 'amqp:link:detach-forced' }),
      ),
  },
  { name: 'dropped connection', inject: (e: any) => e.faults.dropConnections() },
] as const;

for (const backend of BACKENDS) {
  describe(`receiver recovers from faults on the ${backend} backend`, () => {
    for (const fault of FAULTS) {
      test(`${fault.name}: the backend recovers, nothing lost, nothing repeated`, { timeout: 90_000 }, async (t) => {
        const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: 2 });
        preload(emulator, hubName, 2, PRELOADED);
        const consumer = new InMemorySignalConsumer({ delayMs: 2 });
        const receiver = startReceiver(
          t,
          { connection: connectionString, backend, format: 'raw', start_position: 'earliest', max_poll_events: 50 },
          consumer,
        );
        const statuses: ReceiverStatus[] = [];
        receiver.onStatus((s) => statuses.push(s));
        await receiver.start();
        await consumer.waitFor(500, 30_000);
        fault.inject(emulator, hubName);
        const atFault = consumer.records().length;
        preload(emulator, hubName, 2, ADDED);
        await consumer.waitFor(2 * (PRELOADED + ADDED), 60_000);
        await receiver.shutdown();
        for (const [pid, seqs] of byPartition(consumer.records())) {
          assert.deepEqual(
            seqs,
            Array.from({ length: PRELOADED + ADDED }, (_, i) => i),
            `partition ${pid}: every event once, in order`,
          );
        }
        await until(() => true, 0);
        t.diagnostic(
          `${atFault} of ${2 * PRELOADED} preloaded events delivered at the fault; statuses: ` +
            `${[...new Set(statuses.map((s) => s.type))].join(', ')}; reconnects ` +
            `${receiver.stats().counters.backendReconnects}`,
        );
      });
    }
  });
}
