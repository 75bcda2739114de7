/**
 * OTLP/protobuf encoding of realistic log records: upstream's `ProtobufLogsSerializer` (otlp-transformer
 * 0.223.1, a size pass then a write pass) against this project's one-pass encoder
 * (src/exporters/internal/otlp-proto-encoder.ts) on the same batches, in one run, rounds interleaved,
 * each from a collected heap; each side's fastest round (and the ratio of medians). Times are process CPU
 * time (user + system), steadier than wall time on a machine shared with other jobs. Then gzip at level 1
 * (the otlphttp exporter's default) and level 6 (zlib's default, the OTLP JS exporters' and the Go
 * collector's confighttp's; `compression_level: 6`) on the encoded bodies: bytes and time.
 *
 * Records: Azure resource logs of every sample category except `functions` decoded by the `azure` format
 * (1–40 records per event, 100 events per decode call as the partition pump does), then exported in
 * batches of BATCH_RECORDS, as the `batch` processor sends them by default (send_batch_size 8192).
 */
import { gzipSync, constants } from 'node:zlib';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import type { ReceivedEvent } from '../../src/backends/consumer.ts';
import { createDecoder } from '../../src/decode/create-decoder.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody } from '../../scripts/local/samples.ts';
import { encodeLogsRequest } from '../../src/exporters/internal/otlp-proto-encoder.ts';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createOtlpHttpExporter } from '../../src/exporters/otlp-http-exporter.ts';
import { otlpHttpExporterConfigSchema } from '../../src/exporters/otlp-http-exporter.ts';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { MetricPoint, SpanRecord } from '../../src/pipeline/signals.ts';
import { encodeMetricsRequest } from '../../src/exporters/internal/otlp-proto-metrics-encoder.ts';
import { encodeMetricsRequestJson } from '../../src/exporters/internal/otlp-json-metrics-encoder.ts';
import { encodeTraceRequest } from '../../src/exporters/internal/otlp-proto-trace-encoder.ts';
import { encodeTraceRequestJson } from '../../src/exporters/internal/otlp-json-trace-encoder.ts';
import { withoutDoubleMarks } from '../helpers/unmarked-records.ts';

const EVENTS = 1_500;
const ROUNDS = 15;
const BATCH_EVENTS = 100;
const BATCH_RECORDS = Number(process.env.BENCH_OTLP_BATCH_RECORDS ?? 8192);
const context = {
  namespace: 'bench.servicebus.windows.net',
  eventHubName: 'insights-logs',
  consumerGroup: '$Default',
  partitionId: '0',
};
const start = Date.parse('2024-05-14T09:30:00Z');

function makeRecords(): ReadableLogRecord[] {
  const categories = SAMPLE_CATEGORIES.filter((c) => c !== 'functions');
  const events: ReceivedEvent[] = [];
  for (let n = 0; n < EVENTS; n++) {
    const category = categories[n % categories.length]!;
    const body = sampleResourceLogBody(category, {
      time: new Date(start + n * 1000),
      records: 1 + ((n * 7) % 40),
      index: n,
    });
    events.push({
      body: Buffer.from(body),
      sequenceNumber: n,
      offset: String(n * 4096),
      enqueuedTime: new Date(start + n * 1000 + 500),
    });
  }
  // The event metadata as before issue 25 (record sizes comparable with earlier runs); the attributes copied
  // without the marks of Go's float64 numbers (pipeline/double-values.ts), which upstream does not know: the
  // two encoders must write the same bytes for the comparison to mean anything.
  const decode = createDecoder({ format: 'azure', eventMetadata: 'messaging' });
  const records: ReadableLogRecord[] = [];
  for (let b = 0; b < events.length; b += BATCH_EVENTS)
    records.push(...decode(events.slice(b, b + BATCH_EVENTS), context).records);
  return withoutDoubleMarks(records);
}

const collect = (): void => (globalThis as { gc?: () => void }).gc?.();
/** Process CPU time in ms. */
const cpuMs = (): number => {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
};
const best = (values: number[]): number => Math.min(...values);
const median = (values: number[]): number => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const round2 = (n: number): number => Math.round(n * 100) / 100;

const records = makeRecords();
const batches: ReadableLogRecord[][] = [];
for (let i = 0; i < records.length; i += BATCH_RECORDS) batches.push(records.slice(i, i + BATCH_RECORDS));

// Same bytes, or the comparison means nothing.
for (const batch of batches) {
  if (!Buffer.from(encodeLogsRequest(batch)).equals(Buffer.from(ProtobufLogsSerializer.serializeRequest(batch)!))) {
    throw new Error('the encoder and upstream disagree on a batch');
  }
}

function time(encode: (batch: ReadableLogRecord[]) => Uint8Array | undefined): [number, number] {
  collect();
  let bytes = 0;
  const t = cpuMs();
  for (const batch of batches) bytes += encode(batch)!.length;
  return [cpuMs() - t, bytes];
}

const upstreamRuns: number[] = [];
const oursRuns: number[] = [];
let totalBytes = 0;
for (let round = -3; round < ROUNDS; round++) {
  // three warm-up rounds
  const [upstreamMs] = time((b) => ProtobufLogsSerializer.serializeRequest(b));
  const [oursMs, bytes] = time(encodeLogsRequest);
  totalBytes = bytes;
  if (round >= 0) {
    upstreamRuns.push(upstreamMs);
    oursRuns.push(oursMs);
  }
}
const upstreamMs = best(upstreamRuns);
const oursMs = best(oursRuns);
const speedup = upstreamMs / oursMs;
const medianSpeedup = median(upstreamRuns) / median(oursRuns);
const perRecord = (ms: number): number => (ms * 1000) / records.length;
console.log(
  `${records.length} azure-decoded records in ${batches.length} batches of up to ${BATCH_RECORDS}; ` +
    `${(totalBytes / 1e6).toFixed(1)} MB of OTLP protobuf`,
);
console.log(
  `  upstream ProtobufLogsSerializer: ${upstreamMs.toFixed(1)} ms CPU, ${perRecord(upstreamMs).toFixed(2)} µs/` +
    `record, ${(totalBytes / 1e3 / upstreamMs).toFixed(0)} MB/s`,
);
console.log(
  `  one-pass encoder:                ${oursMs.toFixed(1)} ms CPU, ${perRecord(oursMs).toFixed(2)} µs/record, ` +
    `${(totalBytes / 1e3 / oursMs).toFixed(0)} MB/s`,
);
console.log(`  speedup ${speedup.toFixed(2)}× (fastest rounds), ${medianSpeedup.toFixed(2)}× (medians)`);

// gzip of the encoded bodies, one batch at a time as the exporter sends them.
const bodies = batches.map((b) => encodeLogsRequest(b));
const gzip: Record<string, { bytes: number; ms: number; usPerRecord: number; ratio: number }> = {};
for (const level of [1, 6]) {
  const runs: number[] = [];
  let bytes = 0;
  for (let round = -1; round < 5; round++) {
    collect();
    const t = cpuMs();
    bytes = 0;
    for (const body of bodies) bytes += gzipSync(body, { level, strategy: constants.Z_DEFAULT_STRATEGY }).length;
    if (round >= 0) runs.push(cpuMs() - t);
  }
  const ms = best(runs);
  gzip[`level${level}`] = {
    bytes,
    ms: round2(ms),
    usPerRecord: round2(perRecord(ms)),
    ratio: round2(totalBytes / bytes),
  };
  console.log(
    `  gzip level ${level}: ${(bytes / 1e6).toFixed(2)} MB (${(totalBytes / bytes).toFixed(1)}:1), ${ms.toFixed(1)} ` +
      `ms, ${perRecord(ms).toFixed(2)} µs/record`,
  );
}
console.log(
  `  gzip level 1 vs 6: ${(gzip.level6!.ms / gzip.level1!.ms).toFixed(2)}× faster, ` +
    `${(gzip.level1!.bytes / gzip.level6!.bytes).toFixed(2)}× the bytes`,
);

// End to end through the otlphttp exporter (encode, gzip at the level, HTTP to an in-process sink that
// reads and drops the body): process CPU per record, all threads (gzip runs on libuv's pool).
const sink = createServer((req, res) => req.on('data', () => {}).on('end', () => res.end('{}')));
await new Promise<void>((resolve) => sink.listen(0, '127.0.0.1', resolve));
const sinkUrl = `http://127.0.0.1:${(sink.address() as AddressInfo).port}`;
const endToEnd: Record<string, { usPerRecord: number; wireBytes: number }> = {};
const source = {
  partitionId: '0',
  firstSequenceNumber: 0,
  lastSequenceNumber: 0,
  lastOffset: '0',
  lastEnqueuedTime: new Date(),
};
const exporters = new Map<number, Awaited<ReturnType<typeof createOtlpHttpExporter>>>();
for (const level of [1, 6]) {
  const config = otlpHttpExporterConfigSchema.parse({
    endpoint: sinkUrl,
    compression_level: level,
    retry_on_failure: { enabled: false },
  });
  exporters.set(level, await createOtlpHttpExporter(config));
}
const e2eRuns = new Map<number, number[]>([
  [1, []],
  [6, []],
]);
for (let round = -1; round < 5; round++) {
  for (const level of [1, 6]) {
    collect();
    const t = cpuMs();
    for (const batch of batches) await exporters.get(level)!.consume({ records: batch, source } as never);
    if (round >= 0) e2eRuns.get(level)!.push(cpuMs() - t);
  }
}
for (const level of [1, 6]) {
  const ms = best(e2eRuns.get(level)!);
  endToEnd[`level${level}`] = { usPerRecord: round2(perRecord(ms)), wireBytes: gzip[`level${level}`]!.bytes };
  console.log(
    `  otlphttp end to end, compression_level ${level}: ${perRecord(ms).toFixed(2)} µs CPU/record (all threads)`,
  );
  await exporters.get(level)!.shutdown?.();
}
console.log(
  `  end to end level 1 vs 6: ${(endToEnd.level6!.usPerRecord / endToEnd.level1!.usPerRecord).toFixed(2)}× less CPU`,
);
sink.closeAllConnections();
sink.close();

// Metrics and traces: BATCH_RECORDS metric points (50 resources, 5 aggregations of 20 metric names each, as
// Azure platform metrics decode) and as many spans (server spans with 8 attributes), protobuf and JSON.
const scope = Object.freeze({ name: 'otelcol/azureeventhubreceiver', version: '0.1.0' });
const resources = Array.from({ length: 50 }, (_, i) =>
  resourceFromAttributes({
    'azure.resource.id': `/SUBSCRIPTIONS/0000/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.WEB/SITES/APP${i}`,
    'cloud.provider': 'azure',
  }),
);
const aggregations = ['total', 'count', 'minimum', 'maximum', 'average'];
const points: MetricPoint[] = Array.from({ length: BATCH_RECORDS }, (_, i) => ({
  resource: resources[i % 50]!,
  scope,
  name: `azure_metric_${(i >> 3) % 20}_${aggregations[i % 5]}`,
  unit: 'Count',
  description: '',
  kind: 'gauge',
  startTime: [1_715_679_000, 0],
  time: [1_715_679_060, 0],
  value: i * 1.5,
  attributes: { 'azure.timegrain': 'PT1M' },
}));
const spans: SpanRecord[] = Array.from({ length: BATCH_RECORDS }, (_, i) => ({
  resource: resources[i % 50]!,
  scope,
  traceId: (i + 1).toString(16).padStart(32, '0'),
  spanId: (i + 1).toString(16).padStart(16, '0'),
  parentSpanId: '',
  name: `GET /api/orders/${i % 40}`,
  kind: 2,
  startTime: [1_715_679_000, i * 1000],
  endTime: [1_715_679_000, i * 1000 + 5_000_000],
  status: { code: i % 17 === 0 ? 2 : 0 },
  attributes: {
    'http.request.method': 'GET',
    'http.response.status_code': 200,
    'url.path': `/api/orders/${i % 40}`,
    'server.address': 'shop.example.net',
    'client.address': '10.0.0.1',
    'user_agent.original': 'Mozilla/5.0',
    'app.role': 'api',
    'app.sample_rate': 100,
  },
}));
const signals: Record<string, { protoUsPerItem: number; jsonUsPerItem: number; protoBytesPerItem: number }> = {};
for (const [label, items, proto, json] of [
  ['metrics', points, encodeMetricsRequest, encodeMetricsRequestJson],
  ['traces', spans, encodeTraceRequest, encodeTraceRequestJson],
] as const) {
  const runs = { proto: [] as number[], json: [] as number[] };
  let bytes = 0;
  // No forced collection right before a measured call here: process CPU time counts V8's helper threads,
  // which sweep for some milliseconds after gc(), and that landed on whichever call came next (up to 4× on
  // these small batches). Three calls per round, the fastest round kept.
  const CALLS = 3;
  for (let round = -3; round < ROUNDS; round++) {
    for (const kind of ['proto', 'json'] as const) {
      const encode = kind === 'proto' ? proto : json;
      const t = cpuMs();
      let n = 0;
      for (let c = 0; c < CALLS; c++) n = encode(items as never).length;
      if (kind === 'proto') bytes = n;
      if (round >= 0) runs[kind].push((cpuMs() - t) / CALLS);
    }
  }
  const us = (ms: number) => round2((ms * 1000) / items.length);
  signals[label] = {
    protoUsPerItem: us(best(runs.proto)),
    jsonUsPerItem: us(best(runs.json)),
    protoBytesPerItem: round2(bytes / items.length),
  };
  console.log(
    `  ${label}: ${items.length} items, protobuf ${signals[label]!.protoUsPerItem} µs/item ` +
      `(${signals[label]!.protoBytesPerItem} B/item), JSON ${signals[label]!.jsonUsPerItem} µs/item`,
  );
}

console.log(
  `BENCH_RESULT ${JSON.stringify({
    records: records.length,
    batchRecords: BATCH_RECORDS,
    protobufMegabytes: round2(totalBytes / 1e6),
    upstreamMs: round2(upstreamMs),
    oursMs: round2(oursMs),
    upstreamUsPerRecord: round2(perRecord(upstreamMs)),
    oursUsPerRecord: round2(perRecord(oursMs)),
    speedup: round2(speedup),
    medianSpeedup: round2(medianSpeedup),
    gzip,
    endToEnd,
    signals,
  })}`,
);
