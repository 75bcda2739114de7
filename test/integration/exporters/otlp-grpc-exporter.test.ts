import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  Server,
  ServerCredentials,
  status,
  type ServerUnaryCall,
  type sendUnaryData,
  type Metadata,
} from '@grpc/grpc-js';
import { otlpGrpcExporterFactory } from '../../../src/exporters/factories.ts';
import { otlpGrpcExporterConfigSchema } from '../../../src/exporters/otlp-grpc-exporter.ts';
import { isPermanentError } from '../../../src/component/errors.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import { holdEventLoopOpen, makeBatch } from '../../unit/pipeline/records.ts';
import { ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody } from '../../../scripts/local/samples.ts';
import { withoutDoubleMarks } from '../../helpers/unmarked-records.ts';

holdEventLoopOpen(after);

const EXPORT_PATH = '/opentelemetry.proto.collector.logs.v1.LogsService/Export';
const identity = (b: Buffer) => b;

describe('otlp (gRPC) exporter against a local gRPC server', () => {
  let server: Server;
  let port = 0;
  const requests: { body: Buffer; metadata: Metadata }[] = [];
  /** Status codes for the next calls, in order; afterwards OK. */
  const script: number[] = [];
  const consumers: SignalConsumer[] = [];

  before(async () => {
    server = new Server();
    // A raw-bytes service definition: the test reads the protobuf request as bytes.
    server.addService(
      {
        Export: {
          path: EXPORT_PATH,
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
          requests.push({ body: call.request, metadata: call.metadata });
          const code = script.shift() ?? status.OK;
          if (code === status.OK) callback(null, Buffer.alloc(0));
          else callback({ code, details: `scripted status ${code}` });
        },
      },
    );
    port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (e, p) => (e ? reject(e) : resolve(p))),
    );
  });
  after(async () => {
    for (const c of consumers) await c.shutdown?.();
    await new Promise<void>((resolve) => server.tryShutdown(() => resolve()));
  });

  async function exporter(section: Record<string, unknown> = {}): Promise<SignalConsumer> {
    const config = otlpGrpcExporterConfigSchema.parse({
      endpoint: `127.0.0.1:${port}`,
      tls: { insecure: true },
      timeout: '5s',
      retry_on_failure: { initial_interval: '10ms', max_interval: '20ms', max_elapsed_time: '5s' },
      ...section,
    });
    const c = await otlpGrpcExporterFactory.create({ id: 'otlp/test', logger: noopLogger }, config);
    consumers.push(c);
    return c;
  }

  test('exports the records as protobuf with the configured metadata', async () => {
    requests.length = 0;
    await (await exporter({ headers: { 'x-api-key': 'grpc-key' } })).consume(makeBatch(2, 'grpc-body'));
    assert.equal(requests.length, 1);
    assert.ok(requests[0]!.body.includes(Buffer.from('grpc-body-1')));
    assert.deepEqual(requests[0]!.metadata.get('x-api-key'), ['grpc-key']);
  });

  test("the request bytes are upstream ProtobufLogsSerializer's for a sample batch (gzip and none)", async () => {
    const decode = createDecoder({ format: 'azure' });
    const events = SAMPLE_CATEGORIES.map((category, n) => ({
      body: Buffer.from(sampleResourceLogBody(category, { records: 3, index: n })),
      sequenceNumber: n,
      offset: String(n * 1024),
      enqueuedTime: new Date(),
      partitionKey: 'clé-😀',
    }));
    const context = {
      namespace: 'ns.servicebus.windows.net',
      eventHubName: 'logs',
      consumerGroup: '$Default',
      partitionId: '2',
    };
    // Upstream knows no double marks (Go's float64 numbers): compared on unmarked copies.
    const sent = withoutDoubleMarks(decode(events, context).records);
    const upstream = Buffer.from(ProtobufLogsSerializer.serializeRequest(sent)!);
    for (const compression of ['gzip', 'none']) {
      requests.length = 0;
      await (await exporter({ compression })).consume({ records: sent, source: makeBatch(0).source });
      assert.equal(requests.length, 1);
      assert.ok(requests[0]!.body.equals(upstream), `${compression}: same bytes as upstream`);
    }
  });

  test('UNAVAILABLE → retried, then accepted', async () => {
    requests.length = 0;
    script.push(status.UNAVAILABLE, status.UNAVAILABLE);
    await (await exporter()).consume(makeBatch(1));
    assert.equal(requests.length, 3);
  });

  test('UNAVAILABLE with retry_on_failure disabled → a retryable rejection after exactly one call', async () => {
    requests.length = 0;
    script.push(status.UNAVAILABLE);
    await assert.rejects(
      (await exporter({ retry_on_failure: { enabled: false } })).consume(makeBatch(1)),
      (e: unknown) => !isPermanentError(e),
    );
    assert.equal(requests.length, 1);
  });

  test('INVALID_ARGUMENT → permanent, not retried', async () => {
    requests.length = 0;
    script.push(status.INVALID_ARGUMENT);
    await assert.rejects((await exporter()).consume(makeBatch(1)), (e: unknown) => isPermanentError(e));
    assert.equal(requests.length, 1);
  });

  test("config: max_request_bytes defaults to 4 MiB − 64 KiB (gRPC servers' 4 MiB limit with headroom)", () => {
    assert.equal(
      otlpGrpcExporterConfigSchema.parse({ endpoint: 'h:1' }).max_request_bytes,
      4 * 1024 * 1024 - 64 * 1024,
    );
    assert.equal(otlpGrpcExporterConfigSchema.safeParse({ endpoint: 'h:1', max_request_bytes: 10 }).success, false);
  });

  test('config: endpoint required, unknown keys rejected, TLS by default', () => {
    assert.equal(otlpGrpcExporterConfigSchema.safeParse({}).success, false);
    assert.equal(otlpGrpcExporterConfigSchema.safeParse({ endpoint: 'x:1', balancer_name: 'rr' }).success, false);
    assert.equal(otlpGrpcExporterConfigSchema.parse({ endpoint: 'x:1' }).tls.insecure, false);
  });
});
