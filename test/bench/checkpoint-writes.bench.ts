/**
 * Checkpoint blob writes per partition per minute at 100 and at 10,000 events/s (issue: they must be bound
 * by the checkpoint interval, not by the event rate; with the default 10 s interval, expect about 6; 12 at the 5 s
 * default before 2026-11-23).
 * Azurite (behind a counting proxy) + the emulator + one in-process receiver with blob_checkpoint_store and
 * default checkpoint settings; a producer appends at the target rate over 4 partitions for a fixed window.
 * Writes are counted from the receiver's `checkpointWritten` status events and, as a cross-check, from the
 * checkpoint-blob PUT requests Azurite received. BENCH_CHECKPOINT_SECONDS sets the window (default 30 s).
 */
import { createAzureEventHubReceiver } from '../../src/index.ts';
import type { SignalConsumer } from '../../src/pipeline/consumer.ts';
import { startEmulator } from '../../src/emulator/index.ts';
import { startAzurite, randomName, AZURITE_ACCOUNT, AZURITE_KEY } from '../helpers/azurite.ts';
import { startCountingProxy } from './internal/counting-proxy.ts';

const PARTITIONS = 4;
const RATES_PER_SECOND = [100, 10_000];
const WINDOW_SECONDS = Number(process.env.BENCH_CHECKPOINT_SECONDS ?? 30);
const PRODUCE_TICK_MS = 50;
const EVENT_BODY = 'x'.repeat(200);
const OPEN_TIMEOUT_MS = 30_000;
const DRAIN_TIMEOUT_MS = 30_000;

interface RateResult {
  targetEventsPerSecond: number;
  producedEventsPerSecond: number;
  /** Events the consumer received during the window. */
  consumedEvents: number;
  windowSeconds: number;
  writesFromStatus: number;
  writesFromStorage: number;
  writesPerPartitionPerMinute: number;
  writesPerPartitionPerMinuteStorage: number;
  perPartition: Record<string, number>;
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

async function until(cond: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await sleep(20);
  }
}

const azurite = await startAzurite();
const proxy = await startCountingProxy(azurite.port);
const emulator = await startEmulator({ port: 0 });
const results: RateResult[] = [];
try {
  const storage =
    `DefaultEndpointsProtocol=http;AccountName=${AZURITE_ACCOUNT};AccountKey=${AZURITE_KEY};` +
    `BlobEndpoint=http://127.0.0.1:${proxy.port}/${AZURITE_ACCOUNT};`;
  for (const rate of RATES_PER_SECOND) {
    const hub = randomName('hub');
    emulator.addHub({ name: hub, partitions: PARTITIONS });
    let consumed = 0;
    const consumer: SignalConsumer = {
      async consume(batch) {
        consumed += batch.records.length;
      },
    };
    const receiver = createAzureEventHubReceiver(
      {
        connection: emulator.connectionString(hub),
        format: 'raw',
        start_position: 'earliest',
        blob_checkpoint_store: { connection: storage, container_name: randomName('ckpt'), create_container: true },
      },
      consumer,
    );
    const opened = new Set<string>();
    let counting = false;
    const writes = new Map<string, number>();
    receiver.onStatus((s) => {
      if (s.type === 'partitionOpened') opened.add(s.partitionId);
      if (s.type === 'checkpointWritten' && counting) writes.set(s.partitionId, (writes.get(s.partitionId) ?? 0) + 1);
    });
    try {
      await receiver.start();
      await until(() => opened.size === PARTITIONS, OPEN_TIMEOUT_MS, 'every partition opened');
      const putsBefore = proxy.count('PUT', '/checkpoint/');
      counting = true;
      const consumedBefore = consumed;
      let produced = 0;
      const started = performance.now();
      const end = started + WINDOW_SECONDS * 1000;
      // Append what the target rate owes by now on every tick, so timer lateness does not lower the rate.
      while (performance.now() < end) {
        const owed = Math.floor(((performance.now() - started) / 1000) * rate) - produced;
        for (let p = 0; p < PARTITIONS && owed > 0; p++) {
          const n = Math.floor(owed / PARTITIONS) + (p < owed % PARTITIONS ? 1 : 0);
          if (n > 0)
            emulator.append(
              hub,
              String(p),
              Array.from({ length: n }, () => ({ body: EVENT_BODY })),
            );
        }
        if (owed > 0) produced += owed;
        await sleep(PRODUCE_TICK_MS);
      }
      const elapsedSeconds = (performance.now() - started) / 1000;
      counting = false;
      const consumedInWindow = consumed - consumedBefore;
      const puts = proxy.count('PUT', '/checkpoint/') - putsBefore;
      const fromStatus = [...writes.values()].reduce((a, b) => a + b, 0);
      const perMinute = (n: number): number => Math.round((n / PARTITIONS / elapsedSeconds) * 60 * 10) / 10;
      const r: RateResult = {
        targetEventsPerSecond: rate,
        producedEventsPerSecond: Math.round(produced / elapsedSeconds),
        consumedEvents: consumedInWindow,
        windowSeconds: Math.round(elapsedSeconds * 10) / 10,
        writesFromStatus: fromStatus,
        writesFromStorage: puts,
        writesPerPartitionPerMinute: perMinute(fromStatus),
        writesPerPartitionPerMinuteStorage: perMinute(puts),
        perPartition: Object.fromEntries([...writes].sort()),
      };
      results.push(r);
      console.log(
        `${String(rate).padStart(6)} ev/s target (${r.producedEventsPerSecond} produced, ${consumedInWindow} ` +
          `consumed in the window): ` +
          `${fromStatus} checkpointWritten over ${r.windowSeconds} s = ${r.writesPerPartitionPerMinute} writes/` +
          `partition/min ` +
          `(storage saw ${puts} checkpoint PUTs = ${r.writesPerPartitionPerMinuteStorage}/partition/min); per ` +
          `partition ${JSON.stringify(r.perPartition)}`,
      );
      await until(() => consumed >= produced, DRAIN_TIMEOUT_MS, 'the receiver to catch up').catch((e: Error) =>
        console.log(`note: ${e.message}`),
      );
    } finally {
      await receiver.shutdown();
      emulator.removeHub(hub);
    }
  }
  const ratio =
    results.length === 2
      ? Math.round((results[1]!.writesPerPartitionPerMinute / results[0]!.writesPerPartitionPerMinute) * 100) / 100
      : NaN;
  console.log(
    `writes per partition per minute, ${RATES_PER_SECOND[1]} ev/s ÷ ${RATES_PER_SECOND[0]} ev/s: ${ratio} (bound by ` +
      `the interval: ≈ 1; expected ≈ 6/min at the default 10 s)`,
  );
  const benchResult = { partitions: PARTITIONS, checkpointIntervalMs: 5000, ratioHighToLow: ratio, rates: results };
  console.log(`BENCH_RESULT ${JSON.stringify(benchResult)}`);
} finally {
  await emulator.stop();
  await proxy.stop();
  await azurite.stop();
}
