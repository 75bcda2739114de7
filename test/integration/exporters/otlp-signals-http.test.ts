import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { otlpHttpExporterFactory } from '../../../src/exporters/factories.ts';
import { otlpHttpExporterConfigSchema } from '../../../src/exporters/otlp-http-exporter.ts';
import { isPermanentError } from '../../../src/component/errors.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import { isPartialRefusal, RequestTooLargeError } from '../../../src/pipeline/partial-refusal.ts';
import { holdEventLoopOpen } from '../../unit/pipeline/records.ts';
import { makePoint, mixedBatch } from '../../unit/exporters/signal-items.ts';
import { strictDecodeJson } from '../../helpers/otlp-strict.ts';
import { startOtlpServer, type OtlpTestServer } from './otlp-server.ts';

holdEventLoopOpen(after);

const fastRetry = { initial_interval: '10ms', max_interval: '20ms', max_elapsed_time: '5s' };
const pointsOf = (req: any) =>
  req.resourceMetrics.flatMap((rm: any) =>
    rm.scopeMetrics.flatMap((sm: any) => sm.metrics.flatMap((m: any) => m.gauge.dataPoints)),
  );
const spansOf = (req: any) => req.resourceSpans.flatMap((rs: any) => rs.scopeSpans.flatMap((ss: any) => ss.spans));

describe('otlphttp exporter: metrics and traces against a local OTLP/HTTP server', () => {
  let server: OtlpTestServer;
  const consumers: SignalConsumer[] = [];
  before(async () => {
    server = await startOtlpServer();
  });
  after(async () => {
    for (const c of consumers) await c.shutdown?.();
    await server?.close();
  });
  async function exporter(section: Record<string, unknown>): Promise<SignalConsumer> {
    const config = otlpHttpExporterConfigSchema.parse({
      endpoint: server.url,
      retry_on_failure: fastRetry,
      ...section,
    });
    const c = await otlpHttpExporterFactory.create({ id: 'otlphttp/test', logger: noopLogger }, config);
    consumers.push(c);
    return c;
  }
  const byPath = (path: string) => server.requests.filter((r) => r.path === path);

  test(
    "proto + gzip: each part of a batch to its path; the bodies decode strictly as that signal's " + 'request',
    async () => {
      server.requests.length = 0;
      await (await exporter({})).consume(mixedBatch(2, 3, 4));
      assert.deepEqual(server.requests.map((r) => r.path).sort(), ['/v1/logs', '/v1/metrics', '/v1/traces']);
      for (const r of server.requests) {
        assert.equal(r.headers['content-type'], 'application/x-protobuf');
        assert.equal(r.headers['content-encoding'], 'gzip');
      }
      const metrics = byPath('/v1/metrics')[0]!.proto;
      assert.deepEqual(
        pointsOf(metrics).map((p: any) => p.asDouble ?? 0),
        [0, 1, 2],
      );
      assert.equal(metrics.resourceMetrics[0].scopeMetrics[0].metrics[0].name, 'azure_percentage_cpu_average');
      const traces = byPath('/v1/traces')[0]!.proto;
      assert.deepEqual(
        spansOf(traces).map((s: any) => Buffer.from(s.spanId, 'base64').toString('hex')),
        ['0000000000000001', '0000000000000002', '0000000000000003', '0000000000000004'],
      );
      assert.equal(byPath('/v1/logs')[0]!.proto.resourceLogs[0].scopeLogs[0].logRecords.length, 2);
    },
  );

  test('json: strict OTLP/JSON carrying the same content as the protobuf requests', async () => {
    server.requests.length = 0;
    const batch = mixedBatch(0, 3, 2);
    await (await exporter({ compression: 'none' })).consume(batch);
    await (await exporter({ compression: 'none', encoding: 'json' })).consume(batch);
    for (const [path, signal] of [
      ['/v1/metrics', 'metrics'],
      ['/v1/traces', 'traces'],
    ] as const) {
      const [proto, json] = byPath(path);
      assert.match(String(json!.headers['content-type']), /^application\/json/);
      assert.deepEqual(strictDecodeJson(json!.body, signal), proto!.proto, `${signal}: JSON and protobuf agree`);
    }
  });

  test(
    'metrics_endpoint and traces_endpoint are used as they are; a signal without a URL is refused, naming the ' +
      'keys',
    async () => {
      server.requests.length = 0;
      const c = await exporter({
        endpoint: undefined,
        metrics_endpoint: `${server.url}/custom/v1/metrics`,
        traces_endpoint: `${server.url}/other/v1/traces`,
      });
      await c.consume(mixedBatch(0, 1, 1));
      assert.deepEqual(server.requests.map((r) => r.path).sort(), ['/custom/v1/metrics', '/other/v1/traces']);
      const error = await c.consume(mixedBatch(1, 1, 0)).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(isPartialRefusal(error), 'the metric point went out, the record could not');
      assert.equal(error.refusals[0]!.records.length, 1);
      assert.match(
        error.message,
        /no URL for logs: set exporters\.otlphttp\/test\.endpoint or exporters\.otlphttp\/test\.logs_endpoint/,
      );
      assert.equal(otlpHttpExporterConfigSchema.safeParse({ traces_endpoint: 'http://h/t' }).success, true);
      assert.equal(otlpHttpExporterConfigSchema.safeParse({}).success, false);
    },
  );

  test('a 503 on /v1/traces retries the traces request only', async () => {
    server.requests.length = 0;
    server.pathScripts.set('/v1/traces', [{ status: 503 }]);
    await (await exporter({})).consume(mixedBatch(1, 2, 2));
    assert.equal(byPath('/v1/logs').length, 1);
    assert.equal(byPath('/v1/metrics').length, 1);
    assert.equal(byPath('/v1/traces').length, 2);
  });

  test('retry disabled: a 503 on metrics rejects retryably; the same batch again sends the metrics only', async () => {
    server.requests.length = 0;
    server.pathScripts.set('/v1/metrics', [{ status: 503 }]);
    const c = await exporter({ retry_on_failure: { enabled: false } });
    const batch = mixedBatch(1, 2, 2);
    await assert.rejects(c.consume(batch), (e: unknown) => !isPermanentError(e));
    await c.consume(batch);
    assert.equal(byPath('/v1/logs').length, 1, 'logs were accepted the first time: not sent again');
    assert.equal(byPath('/v1/traces').length, 1);
    assert.equal(byPath('/v1/metrics').length, 2);
  });

  test('a 400 on /v1/metrics refuses the metric points for good; the other parts count as delivered', async () => {
    server.requests.length = 0;
    server.pathScripts.set('/v1/metrics', [{ status: 400, body: 'bad metric' }]);
    const batch = mixedBatch(2, 3, 1);
    const error = await (await exporter({})).consume(batch).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isPartialRefusal(error));
    assert.equal(error.delivered, 3);
    assert.equal(error.refusals[0]!.metrics, batch.metrics);
    assert.equal(byPath('/v1/metrics').length, 1, 'a 400 is not retried');
  });

  test('max_request_bytes splits metric points and spans; a point larger than the bound is refused alone', async () => {
    server.requests.length = 0;
    const big = makePoint({ attributes: { blob: 'x'.repeat(4000) } });
    const batch = { ...mixedBatch(0, 40, 20), metrics: [...mixedBatch(0, 40, 0).metrics!, big] };
    const error = await (await exporter({ max_request_bytes: 2048, compression: 'none' })).consume(batch).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isPartialRefusal(error));
    assert.deepEqual(
      error.refusals.map((r) => r.metrics),
      [[big]],
    );
    assert.ok(error.refusals[0]!.error instanceof RequestTooLargeError);
    assert.match(error.message, /metric point of \d+ bytes is larger than max_request_bytes \(2048 bytes\)/);
    const metrics = byPath('/v1/metrics');
    const traces = byPath('/v1/traces');
    assert.ok(
      metrics.length > 1 && traces.length > 1,
      `split (${metrics.length} metrics, ${traces.length} traces requests)`,
    );
    for (const r of [...metrics, ...traces]) assert.ok(r.body.length <= 2048, `request of ${r.body.length} bytes`);
    assert.equal(
      metrics.reduce((n, r) => n + pointsOf(r.proto).length, 0),
      40,
      'every other point delivered once',
    );
    assert.equal(
      traces.reduce((n, r) => n + spansOf(r.proto).length, 0),
      20,
    );
  });

  test('a 413 on /v1/traces splits the spans into smaller requests', async () => {
    server.requests.length = 0;
    server.pathScripts.set('/v1/traces', [{ status: 413 }]);
    const batch = mixedBatch(0, 0, 2000);
    await (await exporter({ compression: 'none' })).consume(batch);
    const traces = byPath('/v1/traces');
    assert.ok(traces.length >= 3, `refused whole, then halves (${traces.length} requests)`);
    assert.equal(
      traces.slice(1).reduce((n, r) => n + spansOf(r.proto).length, 0),
      2000,
    );
  });

  test(
    'partial success (rejected_data_points, rejected_spans): accepted, not retried, and logged as a ' + 'warning',
    async () => {
      server.requests.length = 0;
      const warnings: { message: string; fields?: Record<string, unknown> }[] = [];
      const logger = {
        ...noopLogger,
        warn: (message: string, fields?: Record<string, unknown>) => warnings.push({ message, fields }),
      };
      server.pathScripts.set('/v1/metrics', [
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ partialSuccess: { rejectedDataPoints: '1', errorMessage: 'one point dropped' } }),
        },
      ]);
      server.pathScripts.set('/v1/traces', [
        {
          status: 200,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ partialSuccess: { rejectedSpans: '2' } }),
        },
      ]);
      const config = otlpHttpExporterConfigSchema.parse({ endpoint: server.url, encoding: 'json' });
      const c = await otlpHttpExporterFactory.create({ id: 'otlphttp/partial', logger }, config);
      consumers.push(c);
      await c.consume(mixedBatch(0, 2, 2));
      assert.equal(byPath('/v1/metrics').length, 1, 'not retried');
      assert.equal(byPath('/v1/traces').length, 1);
      const fields = warnings.filter((w) => /partial success/.test(w.message)).map((w) => w.fields);
      assert.deepEqual(
        fields.sort((a, b) => String(a?.error_message).localeCompare(String(b?.error_message))),
        [
          { exporter: 'otlphttp/partial', rejectedSpans: 2, error_message: '' },
          { exporter: 'otlphttp/partial', rejectedDataPoints: 1, error_message: 'one point dropped' },
        ],
      );
    },
  );
});
