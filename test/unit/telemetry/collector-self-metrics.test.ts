import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startMetricsEndpoint } from '../../../src/telemetry/metrics-endpoint.ts';
import { ExporterMetrics } from '../../../src/telemetry/exporter-metrics.ts';
import { registerProcessMetrics } from '../../../src/telemetry/process-metrics.ts';
import { PermanentError } from '../../../src/component/errors.ts';
import { makeBatch } from '../pipeline/records.ts';
import { PartialRefusalError } from '../../../src/pipeline/partial-refusal.ts';
import { mixedBatch } from '../exporters/signal-items.ts';

async function scrape(port: number): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/metrics`, { signal: AbortSignal.timeout(5_000) });
  assert.equal(res.status, 200);
  return res.text();
}

function value(text: string, series: string): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${series} `) || l.startsWith(`${series}{`));
  return line === undefined ? undefined : Number(line.slice(line.lastIndexOf(' ') + 1));
}

test("process metrics carry the collector's names; counters get _total; values are the process's own", async (t) => {
  const endpoint = await startMetricsEndpoint({
    address: '127.0.0.1:0',
    serviceVersion: '9.8.7',
    serviceInstanceId: 'instance-1',
  });
  const stop = registerProcessMetrics(endpoint.meter);
  t.after(async () => {
    stop();
    await endpoint.shutdown();
  });
  const first = await scrape(endpoint.port);
  for (const [name, type] of [
    ['otelcol_process_uptime_total', 'counter'],
    ['otelcol_process_cpu_seconds_total', 'counter'],
    ['otelcol_process_memory_rss', 'gauge'],
    ['otelcol_process_runtime_heap_alloc_bytes', 'gauge'],
    ['otelcol_process_runtime_total_alloc_bytes_total', 'counter'],
    ['otelcol_process_runtime_total_sys_memory_bytes', 'gauge'],
  ] as const) {
    assert.match(first, new RegExp(`^# TYPE ${name} ${type}$`, 'm'), name);
    assert.ok((value(first, name) ?? 0) > 0, `${name} has a positive value`);
  }
  const rss = value(first, 'otelcol_process_memory_rss')!;
  assert.ok(rss > 10 * 1024 * 1024 && rss < 8 * 1024 * 1024 * 1024, `RSS in bytes (${rss})`);
  assert.ok(Math.abs(value(first, 'otelcol_process_uptime_total')! - process.uptime()) < 5, 'uptime in seconds');
  assert.match(first, /^target_info\{[^}]*service_instance_id="instance-1"/m);
  assert.match(first, /^target_info\{[^}]*service_version="9.8.7"/m);
  // Allocation is cumulative: it includes what collections freed, so it stays above the heap in use and grows.
  Array.from({ length: 200_000 }, (_, i) => ({ i }));
  const second = await scrape(endpoint.port);
  const alloc1 = value(first, 'otelcol_process_runtime_total_alloc_bytes_total')!;
  const alloc2 = value(second, 'otelcol_process_runtime_total_alloc_bytes_total')!;
  assert.ok(alloc2 > alloc1, `total alloc grows (${alloc1} → ${alloc2})`);
  assert.ok(alloc2 >= value(second, 'otelcol_process_runtime_heap_alloc_bytes')!);
});

test('exporter counters: sent and send_failed log records per exporter id; zero series from the start', async (t) => {
  const endpoint = await startMetricsEndpoint({ address: '127.0.0.1:0' });
  t.after(() => endpoint.shutdown());
  const metrics = new ExporterMetrics(endpoint.meter);
  let fail = false;
  const otlp = metrics.wrap('otlphttp/primary', {
    consume: async () => {
      if (fail) throw new PermanentError('400');
    },
  });
  metrics.wrap('debug', { consume: async () => {} });
  const empty = await scrape(endpoint.port);
  assert.equal(value(empty, 'otelcol_exporter_sent_log_records_total{exporter="debug"}'), 0);
  assert.equal(value(empty, 'otelcol_exporter_send_failed_log_records_total{exporter="debug"}'), 0);
  await otlp.consume(makeBatch(5));
  await otlp.consume(makeBatch(2));
  fail = true;
  await assert.rejects(otlp.consume(makeBatch(3)));
  const aborted = new AbortController();
  aborted.abort();
  await assert.rejects(otlp.consume(makeBatch(4), aborted.signal));
  const text = await scrape(endpoint.port);
  assert.equal(value(text, 'otelcol_exporter_sent_log_records_total{exporter="otlphttp/primary"}'), 7);
  assert.equal(
    value(text, 'otelcol_exporter_send_failed_log_records_total{exporter="otlphttp/primary"}'),
    3,
    'a stop is not a failure',
  );
});

test(
  "exporter counters per signal: metric points and spans with the collector's names; partial refusals " + 'split',
  async (t) => {
    const endpoint = await startMetricsEndpoint({ address: '127.0.0.1:0' });
    t.after(() => endpoint.shutdown());
    const metrics = new ExporterMetrics(endpoint.meter);
    let refuse = false;
    const otlp = metrics.wrap(
      'otlp/all',
      {
        consume: async (batch) => {
          if (refuse)
            throw new PartialRefusalError(
              [{ records: [], spans: batch.spans!.slice(0, 1), error: new PermanentError('too large') }],
              4,
            );
        },
      },
      ['metrics', 'traces'],
    );
    const empty = await scrape(endpoint.port);
    assert.equal(
      value(empty, 'otelcol_exporter_sent_metric_points_total{exporter="otlp/all"}'),
      0,
      'series of the given signals from the start',
    );
    assert.equal(value(empty, 'otelcol_exporter_send_failed_spans_total{exporter="otlp/all"}'), 0);
    assert.equal(
      value(empty, 'otelcol_exporter_sent_log_records_total{exporter="otlp/all"}'),
      undefined,
      'not a logs exporter',
    );
    await otlp.consume(mixedBatch(0, 3, 2));
    refuse = true;
    await assert.rejects(otlp.consume(mixedBatch(1, 1, 3)));
    const text = await scrape(endpoint.port);
    assert.equal(value(text, 'otelcol_exporter_sent_metric_points_total{exporter="otlp/all"}'), 4);
    assert.equal(value(text, 'otelcol_exporter_sent_spans_total{exporter="otlp/all"}'), 4, 'two, then two of three');
    assert.equal(
      value(text, 'otelcol_exporter_send_failed_spans_total{exporter="otlp/all"}'),
      1,
      'only the refused span failed',
    );
    assert.equal(value(text, 'otelcol_exporter_sent_log_records_total{exporter="otlp/all"}'), 1);
  },
);
