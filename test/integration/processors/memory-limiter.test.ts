/**
 * The memory_limiter holds a memory bound under a slow exporter. The exporter here stands in for one
 * with an in-memory sending queue (what the collector's memory_limiter protects): it accepts a batch at
 * once, keeps a 16 KiB rendering of every record until it "sends" it, and sends slowly. Without the
 * limiter the whole backlog would pile up in it (10 000 records, about 156 MiB, well above twice the headroom);
 * with it, the receiver's partitions are refused above the soft limit, hold their batches (even with a
 * dead-letter store and retries that run out) and the hub keeps the rest. In the end every event is
 * delivered and nothing is dead-lettered or dropped.
 *
 * Memory is the limiter's own measurement (V8 heap in use + external memory) of this test process,
 * which also runs the emulator; the limits are set relative to what it measures before the receiver
 * starts. The margin allowed above the hard limit is the spike allowance: what can arrive between two
 * checks plus garbage not yet collected at the moment of a check (a check above the hard limit collects
 * at once and measures again; the first, higher reading is the one asserted on).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { MemoryLimiter } from '../../../src/processors/memory-limiter.ts';
import { readMemoryUsageBytes } from '../../../src/pipeline/memory-usage.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { PID, SEQ, preload, startReceiver, until } from '../receiver/harness.ts';

const MIB = 1024 * 1024;
const PARTITIONS = 4;
const PER_PARTITION = 2_500;
/** What the slow exporter keeps per record until it sends it. */
const RENDERED_BYTES = 16 * 1024;
/** Hard limit above the baseline, and the spike allowance (soft limit = hard − spike). */
const HEADROOM_MIB = 64;
const SPIKE_MIB = 24;
/** Records the exporter sends per tick (every 10 ms): about 2 000 per second, slower than the hub delivers. */
const SEND_PER_TICK = 20;

/** A `gc` for the limiter: the test runner does not start Node with --expose-gc. */
function exposeGc(): () => void {
  setFlagsFromString('--expose-gc');
  return runInNewContext('gc') as () => void;
}

class QueueingSlowExporter implements SignalConsumer {
  readonly delivered = new Set<string>();
  #queue: { key: string; rendered: Buffer }[] = [];
  #peakQueued = 0;
  readonly #timer = setInterval(() => this.#send(), 10);

  async consume(batch: SignalBatch): Promise<void> {
    for (const r of batch.records) {
      const key = `${String(r.attributes[PID])}/${String(r.attributes[SEQ])}`;
      this.#queue.push({ key, rendered: Buffer.alloc(RENDERED_BYTES, String(r.body)) });
    }
    this.#peakQueued = Math.max(this.#peakQueued, this.#queue.length);
  }

  get peakQueued(): number {
    return this.#peakQueued;
  }

  get queued(): number {
    return this.#queue.length;
  }

  async shutdown(): Promise<void> {
    clearInterval(this.#timer);
  }

  #send(): void {
    for (const item of this.#queue.splice(0, SEND_PER_TICK)) this.delivered.add(item.key);
  }
}

test('memory_limiter under a slow exporter: usage stays under the limit plus the spike allowance, nothing lost', {
  timeout: 180_000,
}, async (t) => {
  const gc = exposeGc();
  const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: PARTITIONS });
  const deadLetterDir = await mkdtemp(join(tmpdir(), 'memlimit-dl-'));
  t.after(() => rm(deadLetterDir, { recursive: true, force: true }));
  const exporter = new QueueingSlowExporter();
  // The limits are set once the receiver runs and idles, so the baseline includes its own memory.
  const held: { limiter?: MemoryLimiter } = {};
  const receiver = startReceiver(
    t,
    {
      connection: connectionString,
      format: 'raw',
      start_position: 'earliest',
      max_poll_events: 50,
      prefetch_count: 100,
      checkpoint: { interval: '200ms' },
      // Retries run out quickly: a refusal must still be held, never dead-lettered.
      retry_on_failure: { initial_interval: '20ms', max_interval: '100ms', max_elapsed_time: '200ms' },
      dead_letter: { directory: deadLetterDir },
    },
    { consume: (batch, signal) => held.limiter!.consume(batch, signal) },
  );
  await receiver.start();
  await until(() => receiver.ownedPartitions().length === PARTITIONS, 30_000, 'every partition owned');

  gc();
  const baseline = readMemoryUsageBytes();
  const hardLimitBytes = baseline + HEADROOM_MIB * MIB;
  const softLimitBytes = hardLimitBytes - SPIKE_MIB * MIB;
  const total = PARTITIONS * PER_PARTITION;
  assert.ok(
    total * RENDERED_BYTES > 2 * HEADROOM_MIB * MIB,
    'the backlog is far above the headroom: without the limiter the bound would not hold',
  );
  const limiter = new MemoryLimiter(exporter, {
    checkIntervalMs: 10,
    hardLimitBytes,
    softLimitBytes,
    // The exporter's queue keeps usage above the soft limit most of the run: a collection forced every 100 ms
    // then took most of this file's CPU and stalled the exporter's timer. Above the hard limit it collects at once.
    minGcIntervalSoftMs: 1_000,
    minGcIntervalHardMs: 0,
    gc,
  });
  held.limiter = limiter;
  t.after(() => limiter.shutdown());
  let maxRss = 0;
  const started = Date.now();
  const timeline: string[] = [];
  const probe = setInterval(() => {
    maxRss = Math.max(maxRss, process.memoryUsage.rss());
    if (timeline.length < 400 && (Date.now() - started) % 1000 < 20) {
      const st = limiter.stats();
      timeline.push(
        `${((Date.now() - started) / 1000).toFixed(0)}s:${exporter.delivered.size}/${exporter.queued}/` +
          `${(st.lastUsageBytes / MIB).toFixed(0)}${st.refusing ? 'R' : ''}`,
      );
    }
  }, 20);
  t.after(() => clearInterval(probe));
  preload(emulator, hubName, PARTITIONS, PER_PARTITION);

  await until(() => exporter.delivered.size === total, 150_000, 'every event delivered');
  t.diagnostic(`delivered/queued/MiB each second: ${timeline.join(' ')}; all in ${Date.now() - started} ms`);
  const stats = limiter.stats();
  const counters = receiver.stats().counters;
  t.diagnostic(
    `baseline ${(baseline / MIB).toFixed(0)} MiB, soft ${(softLimitBytes / MIB).toFixed(0)}, hard ` +
      `${(hardLimitBytes / MIB).toFixed(0)}, ` +
      `max measured ${(stats.maxUsageBytes / MIB).toFixed(0)} MiB, max RSS ${(maxRss / MIB).toFixed(0)} MiB, ` +
      `refused ${stats.refusedBatches} batches, forced GCs ${stats.forcedGcs}, holds ${counters.exportHolds}, peak ` +
      `queue ${exporter.peakQueued}`,
  );

  assert.ok(stats.refusedBatches > 0, 'the limiter refused data (it was needed)');
  assert.ok(
    exporter.peakQueued < total / 2,
    `the exporter never held most of the backlog (peak ${exporter.peakQueued} of ${total})`,
  );
  assert.ok(
    stats.maxUsageBytes <= hardLimitBytes + SPIKE_MIB * MIB,
    `measured ${(stats.maxUsageBytes / MIB).toFixed(1)} MiB ≤ hard limit ${(hardLimitBytes / MIB).toFixed(1)} + ` +
      `${SPIKE_MIB} MiB`,
  );
  assert.equal(counters.eventsDeadLettered, 0);
  assert.equal(counters.eventsDropped, 0);
  assert.equal(counters.recordsRefused, 0);
  assert.deepEqual(await readdir(deadLetterDir), [], 'nothing written to the dead-letter store');
  for (let p = 0; p < PARTITIONS; p++) {
    for (let s = 0; s < PER_PARTITION; s++) assert.ok(exporter.delivered.has(`${p}/${s}`), `event ${p}/${s} delivered`);
  }
});
