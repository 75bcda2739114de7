/**
 * The benchmarks' OTLP sink (test/bench/internal/otlp-sink.ts) counts exactly the records the product's
 * `otlphttp` exporter sent, with gzip and without: the pipeline bench decides that a drain is complete
 * from these counts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createOtlpHttpExporter, otlpHttpExporterConfigSchema } from '../../../src/exporters/otlp-http-exporter.ts';
import { startOtlpSink, type SinkRequest } from '../../bench/internal/otlp-sink.ts';
import { makeBatch } from '../../unit/pipeline/records.ts';

for (const compression of ['gzip', 'none'] as const) {
  test(`the sink counts every log record of protobuf requests (compression ${compression})`, async (t) => {
    const sink = await startOtlpSink();
    t.after(() => sink.stop());
    const seen: SinkRequest[] = [];
    sink.onRequest((r) => seen.push(r));
    const exporter = await createOtlpHttpExporter(
      otlpHttpExporterConfigSchema.parse({ endpoint: sink.endpoint, compression }),
    );
    t.after(() => exporter.shutdown?.());
    await exporter.consume(makeBatch(37, 'a'));
    await exporter.consume(makeBatch(1, 'b'));
    // The exporter resolves once the sink answered, and the sink writes its line before answering; the
    // line still has to cross the pipe.
    while (seen.length < 2) await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual(
      seen.map((r) => r.records),
      [37, 1],
    );
    assert.ok(seen.every((r) => r.bytes > 0 && r.arrivedAt > 0));
  });
}
