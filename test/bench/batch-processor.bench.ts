/**
 * The `batch` processor in front of a no-op exporter, fed by 8 simulated partition pumps that each send
 * 100-record batches one at a time (as a pump does: the next batch only once the previous resolved).
 * Modes, each for the same wall time in this one run:
 * - `timer-paced`: pumps that do not announce themselves (the behaviour before `attachProducer`): every
 *   export waits out the 200 ms timeout, since 8 × 100 records never reach send_batch_size (8192);
 * - `attached`: each pump calls `attachProducer()`: an export starts as soon as all 8 are waiting;
 * - `timeout 0`: no batching at all (one export per pump batch), for reference;
 * - the attached mode again with an exporter taking 10 ms, with 1 and 2 concurrent exports.
 * Reports pump batches per second (and exports per second). Rates are context; the ratio is the result.
 */
import { BatchProcessor, type BatchProcessorOptions } from '../../src/processors/batch-processor.ts';
import type { SignalConsumer } from '../../src/pipeline/consumer.ts';
import type { SignalBatch } from '../../src/pipeline/signal-batch.ts';
import { makeRecord, makeSource } from '../unit/pipeline/records.ts';

const PUMPS = 8;
const RECORDS_PER_BATCH = 100;
const DURATION_MS = Number(process.env.BATCH_BENCH_MS ?? 3_000);

interface ModeResult {
  mode: string;
  batchesPerSecond: number;
  exportsPerSecond: number;
  recordsPerExport: number;
}

async function run(mode: string, options: BatchProcessorOptions, attach: boolean, exportMs = 0): Promise<ModeResult> {
  let exports = 0;
  let exportedRecords = 0;
  const exporter: SignalConsumer = {
    async consume(batch) {
      exports++;
      exportedRecords += batch.records.length;
      if (exportMs > 0) await new Promise((resolve) => setTimeout(resolve, exportMs));
    },
  };
  const processor = new BatchProcessor(exporter, options);
  let batches = 0;
  const started = performance.now();
  const deadline = started + DURATION_MS;
  const pump = async (partition: number) => {
    const batch: SignalBatch = {
      records: Array.from({ length: RECORDS_PER_BATCH }, (_, i) => makeRecord(`${partition}:${i}`)),
      source: makeSource(String(partition), 0, RECORDS_PER_BATCH - 1),
    };
    const detach = attach ? processor.attachProducer() : undefined;
    try {
      while (performance.now() < deadline) {
        await processor.consume(batch);
        batches++;
      }
    } finally {
      detach?.();
    }
  };
  await Promise.all(Array.from({ length: PUMPS }, (_, p) => pump(p)));
  const seconds = (performance.now() - started) / 1000;
  await processor.shutdown();
  const result = {
    mode,
    batchesPerSecond: Math.round(batches / seconds),
    exportsPerSecond: Math.round(exports / seconds),
    recordsPerExport: Math.round(exportedRecords / Math.max(1, exports)),
  };
  console.log(
    `${mode.padEnd(38)} ${String(result.batchesPerSecond).padStart(7)} batches/s ` +
      `(${result.batchesPerSecond * RECORDS_PER_BATCH} records/s), ` +
      `${result.exportsPerSecond} exports/s of ${result.recordsPerExport} records`,
  );
  return result;
}

// The timers must keep the process alive while the pumps wait on them (the processor unrefs its timer).
const hold = setInterval(() => {}, 60_000);
console.log(`${PUMPS} pumps × ${RECORDS_PER_BATCH}-record batches, no-op exporter, ${DURATION_MS} ms per mode`);
const timerPaced = await run('timer-paced (timeout 200ms, not attached)', { timeoutMs: 200 }, false);
const attached = await run('attached (timeout 200ms)', { timeoutMs: 200 }, true);
const unbatched = await run('timeout 0 (no batching)', { timeoutMs: 0 }, false);
const slow1 = await run('attached, 10 ms exporter, 1 export', { timeoutMs: 200 }, true, 10);
const slow2 = await run('attached, 10 ms exporter, 2 exports', { timeoutMs: 200, maxConcurrentExports: 2 }, true, 10);
clearInterval(hold);
const ratio = attached.batchesPerSecond / Math.max(1, timerPaced.batchesPerSecond);
console.log(`attached / timer-paced: ${ratio.toFixed(1)}×`);
const modes = [timerPaced, attached, unbatched, slow1, slow2];
console.log(`BENCH_RESULT ${JSON.stringify({ ratio: Number(ratio.toFixed(1)), modes })}`);
