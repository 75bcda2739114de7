/**
 * CPU per event of each stage the shipped pipeline runs after the backend hands events over, on the pipeline
 * bench's events (the sample generator's 18 categories in turn, one event in six with two records; `azure`
 * format with `apply_semantic_conventions`, as config/azure.yaml), in one process, rounds interleaved, each
 * from a collected heap; each stage's fastest round and its median. Stages:
 * - `hand-off`: packing 100-event jobs for a decode thread and unpacking them (decode-job.ts), one thread;
 * - `text + JSON.parse`: the bodies as UTF-8 text (fatal TextDecoder) and JSON.parse, the floor of decoding;
 * - `decode`: the whole `azure` decoder (text, parse, mapping, records), 100 events per call;
 * - `decode + encode`: the same, each batch's records then encoded by the one-pass OTLP/protobuf encoder, as a
 *   decode thread does (its records fresh, as there: encoding records kept across rounds measured up to 2×
 *   slower, their objects scattered over the old generation); `encode` is the difference;
 * - `gzip level 1` and `gzip level 6`: the encoded requests, about 900 records each as in the pipeline bench.
 * Then `decode thread`: the same events through a real decode thread (decode-pool.ts, its heap capped as
 * shipped) in 250-event jobs, two out at a time as a partition sends them, the process's CPU (all threads:
 * the hand-off, the thread, V8's collector threads) per event; `sliced` is the shipped thread (a job decoded
 * and encoded DECODE_SLICE_EVENTS at a time), `whole job` one that decodes the whole job before encoding it.
 * Times are process CPU time (user + system) per event. The bare SDK's receive, the other half of the
 * pipeline's CPU, is what `npm run bench -- pipeline` and `-- backends` measure. BENCH_STAGES_EVENTS (9,000)
 * and BENCH_STAGES_ROUNDS (9) set the run.
 */
import { gzipSync } from 'node:zlib';
import type { ReceivedEvent } from '../../src/backends/consumer.ts';
import { createDecoder } from '../../src/decode/create-decoder.ts';
import { eventText } from '../../src/decode/internal/parse-json.ts';
import { encodeLogsRequest } from '../../src/exporters/internal/otlp-proto-encoder.ts';
import { packDecodeJob, unpackDecodeJob } from '../../src/receiver/internal/decode-job.ts';
import { DecodePool } from '../../src/receiver/internal/decode-pool.ts';
import { noopLogger } from '../../src/component/logger.ts';
import { siblingModule } from '../helpers/sibling-module.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody } from '../../scripts/local/samples.ts';

const EVENTS = Number(process.env.BENCH_STAGES_EVENTS ?? 9_000);
const ROUNDS = Number(process.env.BENCH_STAGES_ROUNDS ?? 9);
/** Events per decode call and per decode-thread job, as the partition pump hands them over. */
const BATCH_EVENTS = 100;
/** Encoded batches per gzip request: about 900 records, what the pipeline bench's exports carry. */
const BATCHES_PER_REQUEST = 8;
const context = {
  namespace: 'bench.servicebus.windows.net',
  eventHubName: 'insights-logs',
  consumerGroup: '$Default',
  partitionId: '0',
};

const time = new Date('2026-11-28T08:00:00Z');
const events: ReceivedEvent[] = Array.from({ length: EVENTS }, (_, index) => ({
  body: Buffer.from(
    sampleResourceLogBody(SAMPLE_CATEGORIES[index % SAMPLE_CATEGORIES.length]!, {
      records: index % 6 === 5 ? 2 : 1,
      index,
      time,
    }),
  ),
  sequenceNumber: index,
  offset: String(index * 2048),
  enqueuedTime: new Date(time.getTime() + index),
}));
const batches: ReceivedEvent[][] = [];
for (let b = 0; b < EVENTS; b += BATCH_EVENTS) batches.push(events.slice(b, b + BATCH_EVENTS));
const decode = createDecoder({ format: 'azure', applySemanticConventions: true });
let records = 0;
const encoded = batches.map((batch) => {
  const decoded = decode(batch, context).records;
  records += decoded.length;
  return encodeLogsRequest(decoded);
});
const requests: Buffer[] = [];
for (let i = 0; i < encoded.length; i += BATCHES_PER_REQUEST)
  requests.push(Buffer.concat(encoded.slice(i, i + BATCHES_PER_REQUEST)));

let sink = 0;
const stages: Record<string, () => void> = {
  'hand-off': () => {
    for (const batch of batches) {
      const { job, transfer } = packDecodeJob(1, batch, context);
      sink += unpackDecodeJob(structuredClone(job, { transfer })).length;
    }
  },
  'text + JSON.parse': () => {
    for (const e of events) {
      try {
        sink += (JSON.parse(eventText(e.body)!) as { records?: unknown[] }).records?.length ?? 0;
      } catch {
        sink++; // the Functions sample is single-quoted JSON: the decoder repairs it, JSON.parse cannot
      }
    }
  },
  decode: () => {
    for (const batch of batches) sink += decode(batch, context).records.length;
  },
  'decode + encode': () => {
    for (const batch of batches) sink += encodeLogsRequest(decode(batch, context).records).length;
  },
  'gzip level 1': () => {
    for (const request of requests) sink += gzipSync(request, { level: 1 }).length;
  },
  'gzip level 6': () => {
    for (const request of requests) sink += gzipSync(request, { level: 6 }).length;
  },
};

const collect = (): void => (globalThis as { gc?: () => void }).gc?.();
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const runs: Record<string, number[]> = Object.fromEntries(Object.keys(stages).map((s) => [s, []]));
const names = Object.keys(stages);
for (let round = -2; round < ROUNDS; round++) {
  for (const name of round % 2 ? names : [...names].reverse()) {
    collect();
    const t = cpuMs();
    stages[name]!();
    if (round >= 0) runs[name]!.push(((cpuMs() - t) * 1000) / EVENTS);
  }
}

const median = (values: number[]): number => [...values].sort((a, b) => a - b)[values.length >> 1]!;
const round2 = (n: number): number => Math.round(n * 100) / 100;
const rawBytes = requests.reduce((n, r) => n + r.length, 0);
const perEvent = (bytes: number): number => Math.round(bytes / EVENTS);
const gzBytes = (level: number) => requests.reduce((n, r) => n + gzipSync(r, { level }).length, 0);
console.log(
  `${EVENTS} events, ${records} records, ${perEvent(events.reduce((n, e) => n + e.body.length, 0))} B per event; ` +
    `OTLP protobuf ${perEvent(rawBytes)} B per event, gzipped ${perEvent(gzBytes(1))} B (level 1), ` +
    `${perEvent(gzBytes(6))} B (level 6)`,
);
const summary: Record<string, { usPerEvent: number; medianUsPerEvent: number }> = {};
for (const name of names) {
  const s = { usPerEvent: round2(Math.min(...runs[name]!)), medianUsPerEvent: round2(median(runs[name]!)) };
  summary[name] = s;
  const fastest = s.usPerEvent.toFixed(2).padStart(6);
  console.log(`  ${name.padEnd(18)} ${fastest} µs CPU per event (median ${s.medianUsPerEvent.toFixed(2)})`);
}
const dec = summary.decode!.usPerEvent;
const parse = summary['text + JSON.parse']!.usPerEvent;
const encode = round2(summary['decode + encode']!.usPerEvent - dec);
const mapping = round2(dec - parse);
console.log(
  `  mapping (decode − text + JSON.parse) ${mapping} µs, encode (decode + encode − decode) ${encode} µs per event`,
);

/** Events per decode-thread job: a partition's receive at the defaults while a backlog drains. */
const JOB_EVENTS = 250;
const decoderOptions = { format: 'azure', applySemanticConventions: true } as const;
const pools = {
  sliced: new DecodePool({ size: 1, decoder: decoderOptions, logger: noopLogger }),
  'whole job': new DecodePool({
    size: 1,
    decoder: decoderOptions,
    logger: noopLogger,
    entry: siblingModule(import.meta.url, 'internal/whole-batch-decode-worker').url,
  }),
};
async function drainThrough(pool: DecodePool): Promise<void> {
  const out: Promise<unknown>[] = [];
  for (let at = 0; at < EVENTS; at += JOB_EVENTS) {
    out.push(pool.run(events.slice(at, at + JOB_EVENTS), context));
    if (out.length >= 2) await out.shift();
  }
  await Promise.all(out);
}
const threadRuns: Record<string, number[]> = { sliced: [], 'whole job': [] };
for (let round = -2; round < ROUNDS; round++) {
  for (const name of round % 2 ? (['sliced', 'whole job'] as const) : (['whole job', 'sliced'] as const)) {
    collect();
    const t = cpuMs();
    await drainThrough(pools[name]);
    if (round >= 0) threadRuns[name]!.push(((cpuMs() - t) * 1000) / EVENTS);
  }
}
await Promise.all(Object.values(pools).map((pool) => pool.close()));
const thread = Object.fromEntries(
  Object.entries(threadRuns).map(([name, runs]) => [
    name,
    { usPerEvent: round2(Math.min(...runs)), medianUsPerEvent: round2(median(runs)) },
  ]),
);
for (const [name, s] of Object.entries(thread)) {
  const fastest = s.usPerEvent.toFixed(2).padStart(6);
  const label = `decode thread, ${name.padEnd(9)}`;
  console.log(`  ${label} ${fastest} µs CPU per event, all threads (median ${s.medianUsPerEvent.toFixed(2)})`);
}
const slicedOverWhole = round2(thread.sliced!.medianUsPerEvent / thread['whole job']!.medianUsPerEvent);
console.log(`  decode thread: sliced / whole job ${slicedOverWhole} (medians)`);
if (sink === 42) console.log('');
const result = {
  events: EVENTS,
  records,
  stages: summary,
  mappingUs: mapping,
  encodeUs: encode,
  decodeThread: thread,
  slicedOverWhole,
};
console.log(`BENCH_RESULT ${JSON.stringify(result)}`);
