/**
 * Bytes per exported log record at the defaults (issue 25): every sample category but `functions` (whose bodies
 * earlier versions could not read in the azure_encoding format), 20 events of 5 records each, decoded by the
 * `azure` and `azure_encoding` formats and encoded by this package's OTLP protobuf and OTLP/JSON encoders in one
 * request per format; then the same with `event_metadata: messaging` (the 0.1 default) and with `record_uid`.
 * Deterministic (no timing): the numbers in docs/benchmarks.md are this file's output.
 */
import { createDecoder } from '../../src/decode/create-decoder.ts';
import type { DecoderOptions, Format } from '../../src/decode/decoder.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody } from '../../scripts/local/samples.ts';
import { encodeLogsRequest } from '../../src/exporters/internal/otlp-proto-encoder.ts';
import { encodeLogsRequestJson } from '../../src/exporters/internal/otlp-json-encoder.ts';

const context = {
  namespace: 'evhns-logs.servicebus.windows.net',
  eventHubName: 'insights-logs',
  consumerGroup: '$Default',
  partitionId: '3',
};
const events = SAMPLE_CATEGORIES.filter((c) => c !== 'functions').flatMap((category) =>
  Array.from({ length: 20 }, (_, i) => ({
    body: Buffer.from(sampleResourceLogBody(category, { records: 5, index: i })),
    sequenceNumber: 100_000 + i,
    offset: String(4_294_967_296 + i * 1024),
    enqueuedTime: new Date(Date.UTC(2024, 4, 14, 9, 30, i)),
    partitionKey: 'shop',
  })),
);
const inputBytes = events.reduce((n, e) => n + e.body.length, 0);

const results: Record<string, { protobuf: number; json: number }> = {};
for (const extra of [{}, { eventMetadata: 'messaging' }, { recordUid: true }] as Partial<DecoderOptions>[]) {
  for (const format of ['azure', 'azure_encoding'] as Format[]) {
    const { records } = createDecoder({ format, ...extra })(events, context);
    const per = (bytes: number) => Math.round(bytes / records.length);
    const protobuf = per(encodeLogsRequest(records).length);
    const json = per(encodeLogsRequestJson(records).length);
    results[`${format} ${JSON.stringify(extra)}`] = { protobuf, json };
    console.log(
      `${format} ${JSON.stringify(extra)}: ${records.length} records, input ${per(inputBytes)} B/record, ` +
        `protobuf ${protobuf} B/record, JSON ${json} B/record`,
    );
  }
}
console.log(`BENCH_RESULT ${JSON.stringify(results)}`);
