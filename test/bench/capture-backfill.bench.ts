/**
 * Backfill from Capture against the live drain (issue 27), in the pipeline bench's terms: events per second
 * through the receiver (library, `format: azure`, realistic Azure resource logs from scripts/local/samples.ts,
 * an in-memory consumer, blob checkpoints in Azurite), draining the same N events per partition
 *   - live: retained in the hub, read from a checkpoint at sequence number -1 (`earliest`);
 *   - backfill: expired from the hub, read from the emulator's Capture files in Azurite.
 * Same process, same run, sides interleaved; each side reports its best round, and the ratio of the two.
 * The window opens at `start()` and closes when the consumer has every record (start-up included on both
 * sides). The machine may be shared: read the ratio, not the absolute numbers.
 *
 * Env: BENCH_CAPTURE_EVENTS (per partition, 5000), BENCH_CAPTURE_PARTITIONS (2), BENCH_CAPTURE_ROUNDS (2),
 * BENCH_CAPTURE_BACKEND (polling).
 */
import { availableParallelism, loadavg } from 'node:os';
import { BlobServiceClient } from '@azure/storage-blob';
import { startEmulator } from '../../src/emulator/index.ts';
import { createAzureEventHubReceiver } from '../../src/index.ts';
import { InMemorySignalConsumer } from '../../src/pipeline/in-memory-consumer.ts';
import { BlobCheckpointStore } from '../../src/ownership/blob-checkpoint-store.ts';
import { sampleResourceLogBody } from '../../scripts/local/samples.ts';
import { startAzurite, randomName } from '../helpers/azurite.ts';

const EVENTS = Number(process.env.BENCH_CAPTURE_EVENTS ?? 5_000);
const PARTITIONS = Number(process.env.BENCH_CAPTURE_PARTITIONS ?? 2);
const ROUNDS = Number(process.env.BENCH_CAPTURE_ROUNDS ?? 2);
const BACKEND = (process.env.BENCH_CAPTURE_BACKEND ?? 'polling') as 'polling' | 'streaming';
const RETENTION_MS = 3_000;

const azurite = await startAzurite();
const service = BlobServiceClient.fromConnectionString(azurite.connectionString);
const body = sampleResourceLogBody('appservice-http');

async function round(side: 'live' | 'backfill'): Promise<{ eventsPerSec: number; records: number }> {
  const hubName = randomName('hub');
  const captureContainer = randomName('cap');
  // Live: a retention no round outlasts; backfill: short, so the events expire before the receiver starts.
  const emulator = await startEmulator({
    port: 0,
    retentionMs: side === 'live' ? 3_600_000 : RETENTION_MS,
    hubs: [
      {
        name: hubName,
        partitions: PARTITIONS,
        capture: {
          storageConnectionString: azurite.connectionString,
          blobContainer: captureContainer,
          intervalMs: 60_000,
          sizeLimitBytes: 8 * 1024 * 1024,
        },
      },
    ],
  });
  try {
    const checkpoints = randomName('ckpt');
    await service.getContainerClient(checkpoints).create();
    const scope = { fullyQualifiedNamespace: '127.0.0.1', eventHubName: hubName, consumerGroup: '$Default' };
    const store = new BlobCheckpointStore(service.getContainerClient(checkpoints));
    for (let p = 0; p < PARTITIONS; p++) {
      for (let i = 0; i < EVENTS; i += 500)
        emulator.append(
          hubName,
          String(p),
          Array.from({ length: Math.min(500, EVENTS - i) }, () => ({ body })),
        );
      // Sequence number -1 is "before the first event": both sides start from a checkpoint.
      await store.write(scope, { partitionId: String(p), sequenceNumber: -1, offset: '-1' });
    }
    await emulator.flushCapture(hubName);
    if (side === 'backfill') await new Promise((r) => setTimeout(r, RETENTION_MS + 1_200));
    const consumer = new InMemorySignalConsumer();
    const receiver = createAzureEventHubReceiver(
      {
        connection: emulator.connectionString(hubName),
        backend: BACKEND,
        format: 'azure',
        start_position: 'earliest',
        max_poll_events: 500,
        blob_checkpoint_store: { connection: azurite.connectionString, container_name: checkpoints },
        ownership: { strategy: 'greedy', update_interval: '500ms' },
        capture: { container_name: captureContainer, namespace: 'emulatorNs1' },
      },
      consumer,
    );
    const expected = (await recordsPerEvent()) * EVENTS * PARTITIONS;
    const started = performance.now();
    await receiver.start();
    await consumer.waitFor(expected, 600_000);
    const seconds = (performance.now() - started) / 1000;
    const backfilled = receiver.stats().counters.eventsBackfilled;
    await receiver.shutdown();
    if (side === 'backfill' && backfilled !== EVENTS * PARTITIONS)
      throw new Error(`expected ${EVENTS * PARTITIONS} events from Capture, got ${backfilled}`);
    if (side === 'live' && backfilled !== 0) throw new Error('the live side read from Capture');
    return { eventsPerSec: Math.round((EVENTS * PARTITIONS) / seconds), records: expected };
  } finally {
    await emulator.stop();
  }
}

let perEvent: number | undefined;
async function recordsPerEvent(): Promise<number> {
  perEvent ??= (JSON.parse(body) as { records: unknown[] }).records.length;
  return perEvent;
}

const best: Record<string, number> = {};
const load = loadavg()[0]!.toFixed(2);
for (let r = 0; r < ROUNDS; r++) {
  for (const side of ['live', 'backfill'] as const) {
    const result = await round(side);
    best[side] = Math.max(best[side] ?? 0, result.eventsPerSec);
    console.log(
      `round ${r + 1} ${side.padEnd(8)} ${result.eventsPerSec.toLocaleString('en-US').padStart(7)} events/s ` +
        `(${result.records} records)`,
    );
  }
}
console.log(
  `backend ${BACKEND}, ${PARTITIONS} partitions x ${EVENTS} events, ${availableParallelism()} cores, load ${load} ` +
    `-> ${loadavg()[0]!.toFixed(2)} (shared machine)`,
);
console.log(
  `best: live ${best.live!.toLocaleString('en-US')} events/s, backfill ${best.backfill!.toLocaleString('en-US')} ` +
    `events/s, backfill/live ${(best.backfill! / best.live!).toFixed(2)}`,
);
await azurite.stop();
