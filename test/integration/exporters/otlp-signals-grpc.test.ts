import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { Server, ServerCredentials, status, type ServerUnaryCall, type sendUnaryData } from '@grpc/grpc-js';
import { loadSync } from '@grpc/proto-loader';
import { otlpGrpcExporterFactory } from '../../../src/exporters/factories.ts';
import { otlpGrpcExporterConfigSchema } from '../../../src/exporters/otlp-grpc-exporter.ts';
import { isPermanentError } from '../../../src/component/errors.ts';
import { noopLogger, type Logger } from '../../../src/component/logger.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import { isPartialRefusal } from '../../../src/pipeline/partial-refusal.ts';
import { holdEventLoopOpen } from '../../unit/pipeline/records.ts';
import { mixedBatch } from '../../unit/exporters/signal-items.ts';
import {
  LOGS_SERVICE_PROTO,
  METRICS_SERVICE_PROTO,
  TRACE_SERVICE_PROTO,
  strictDecodeProto,
  type OtlpSignal,
} from '../../helpers/otlp-strict.ts';

holdEventLoopOpen(after);

const identity = (b: Buffer) => b;

/** The Export method path of each signal's collector service, as the opentelemetry-proto fixtures define it. */
function exportPath(file: string, service: string): string {
  const definition = loadSync(file) as Record<string, any>;
  return definition[service].Export.path as string;
}
const PATHS: Record<OtlpSignal, string> = {
  logs: exportPath(LOGS_SERVICE_PROTO, 'opentelemetry.proto.collector.logs.v1.LogsService'),
  metrics: exportPath(METRICS_SERVICE_PROTO, 'opentelemetry.proto.collector.metrics.v1.MetricsService'),
  traces: exportPath(TRACE_SERVICE_PROTO, 'opentelemetry.proto.collector.trace.v1.TraceService'),
};

describe(
  'otlp (gRPC) exporter: metrics and traces against a local gRPC server with the three collector ' + 'services',
  () => {
    let server: Server;
    let port = 0;
    const requests: { signal: OtlpSignal; body: Buffer }[] = [];
    /** Status codes for the next calls of one signal, in order; afterwards OK. */
    const scripts: Record<OtlpSignal, number[]> = { logs: [], metrics: [], traces: [] };
    /** Response bodies for the next OK answers of one signal, in order; afterwards empty (no partial success). */
    const replies: Record<OtlpSignal, Buffer[]> = { logs: [], metrics: [], traces: [] };
    const consumers: SignalConsumer[] = [];

    before(async () => {
      server = new Server();
      for (const signal of ['logs', 'metrics', 'traces'] as const) {
        // A raw-bytes service at the fixture's method path: the test decodes the request itself, strictly.
        server.addService(
          {
            Export: {
              path: PATHS[signal],
              requestStream: false,
              responseStream: false,
              requestSerialize: identity,
              requestDeserialize: identity,
              responseSerialize: identity,
              responseDeserialize: identity,
            },
          },
          {
            Export: (call: ServerUnaryCall<Buffer, Buffer>, callback: sendUnaryData<Buffer>) => {
              requests.push({ signal, body: call.request });
              const code = scripts[signal].shift() ?? status.OK;
              if (code === status.OK) callback(null, replies[signal].shift() ?? Buffer.alloc(0));
              else callback({ code, details: `scripted status ${code}` });
            },
          },
        );
      }
      port = await new Promise<number>((resolve, reject) =>
        server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
      );
    });
    after(async () => {
      for (const c of consumers) await c.shutdown?.();
      await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
    });

    async function exporter(
      section: Record<string, unknown> = {},
      logger: Logger = noopLogger,
    ): Promise<SignalConsumer> {
      const config = otlpGrpcExporterConfigSchema.parse({
        endpoint: `127.0.0.1:${port}`,
        tls: { insecure: true },
        timeout: '5s',
        retry_on_failure: { initial_interval: '10ms', max_interval: '20ms', max_elapsed_time: '5s' },
        ...section,
      });
      const c = await otlpGrpcExporterFactory.create({ id: 'otlp/test', logger }, config);
      consumers.push(c);
      return c;
    }
    const of = (signal: OtlpSignal) => requests.filter((r) => r.signal === signal);

    test("each part goes to its service's Export; requests decode strictly", async () => {
      assert.equal(PATHS.metrics, '/opentelemetry.proto.collector.metrics.v1.MetricsService/Export');
      assert.equal(PATHS.traces, '/opentelemetry.proto.collector.trace.v1.TraceService/Export');
      for (const compression of ['gzip', 'none']) {
        requests.length = 0;
        await (await exporter({ compression })).consume(mixedBatch(1, 3, 2));
        assert.deepEqual([of('logs').length, of('metrics').length, of('traces').length], [1, 1, 1], compression);
        const metrics = strictDecodeProto(of('metrics')[0]!.body, 'metrics');
        assert.equal(metrics.resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints.length, 3);
        const traces = strictDecodeProto(of('traces')[0]!.body, 'traces');
        assert.deepEqual(
          traces.resourceSpans[0].scopeSpans[0].spans.map((s: any) => s.name),
          ['span-0', 'span-1'],
        );
      }
    });

    test('UNAVAILABLE on TraceService: the traces call is retried, the others are not repeated', async () => {
      requests.length = 0;
      scripts.traces.push(status.UNAVAILABLE, status.UNAVAILABLE);
      await (await exporter()).consume(mixedBatch(1, 1, 1));
      assert.deepEqual([of('logs').length, of('metrics').length, of('traces').length], [1, 1, 3]);
    });

    test('INVALID_ARGUMENT on MetricsService: the points are refused for good, the spans delivered', async () => {
      requests.length = 0;
      scripts.metrics.push(status.INVALID_ARGUMENT);
      const batch = mixedBatch(0, 2, 3);
      const error = await (await exporter()).consume(batch).then(
        () => undefined,
        (e: unknown) => e,
      );
      assert.ok(isPartialRefusal(error) && isPermanentError(error));
      assert.equal(error.delivered, 3);
      assert.equal(error.refusals[0]!.metrics, batch.metrics);
      assert.equal(of('metrics').length, 1, 'not retried');
    });

    test('RESOURCE_EXHAUSTED without RetryInfo on MetricsService splits the points', async () => {
      requests.length = 0;
      scripts.metrics.push(status.RESOURCE_EXHAUSTED);
      await (await exporter()).consume(mixedBatch(0, 3000, 0));
      const calls = of('metrics');
      assert.ok(calls.length >= 3, `refused whole, then halves (${calls.length} calls)`);
      const pointsIn = (body: Buffer) =>
        strictDecodeProto(body, 'metrics').resourceMetrics[0].scopeMetrics[0].metrics[0].gauge.dataPoints.length;
      const points = calls.slice(1).reduce((n, c) => n + pointsIn(c.body), 0);
      assert.equal(points, 3000);
    });

    test('partial success on TraceService (rejected_spans): accepted, not retried, logged as a warning', async () => {
      requests.length = 0;
      // ExportTraceServiceResponse { partial_success (1) { rejected_spans (1): 2, error_message (2): "dup" } }
      replies.traces.push(Buffer.from([0x0a, 0x07, 0x08, 0x02, 0x12, 0x03, ...Buffer.from('dup')]));
      const warnings: Record<string, unknown>[] = [];
      const logger = {
        ...noopLogger,
        warn: (_message: string, fields?: Record<string, unknown>) => void warnings.push(fields ?? {}),
      };
      await (await exporter({}, logger)).consume(mixedBatch(0, 0, 3));
      assert.equal(of('traces').length, 1);
      assert.deepEqual(warnings, [{ exporter: 'otlp/test', rejectedSpans: 2, error_message: 'dup' }]);
    });
  },
);
