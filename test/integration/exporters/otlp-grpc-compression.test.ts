import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { otlpGrpcExporterFactory } from '../../../src/exporters/factories.ts';
import { otlpGrpcExporterConfigSchema } from '../../../src/exporters/otlp-grpc-exporter.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import { holdEventLoopOpen, makeBatch } from '../../unit/pipeline/records.ts';
import { decodeLogsRequest } from '../../helpers/otlp-logs-proto.ts';
import { startGrpcioLikeServer, type GrpcioLikeServer } from './grpcio-like-server.ts';

holdEventLoopOpen(after);

describe('otlp (gRPC) exporter: gzip against a server advertising grpc-accept-encoding as grpcio does', () => {
  let server: GrpcioLikeServer;
  const consumers: SignalConsumer[] = [];
  before(async () => {
    server = await startGrpcioLikeServer();
  });
  after(async () => {
    for (const c of consumers) await c.shutdown?.();
    await server.close();
  });

  async function exporter(section: Record<string, unknown> = {}): Promise<SignalConsumer> {
    const config = otlpGrpcExporterConfigSchema.parse({
      endpoint: server.address,
      tls: { insecure: true },
      timeout: '5s',
      ...section,
    });
    const c = await otlpGrpcExporterFactory.create({ id: 'otlp/grpcio', logger: noopLogger }, config);
    consumers.push(c);
    return c;
  }

  test(
    'every one of 10 sequential calls and 5 concurrent ones is gzip-compressed (frame flag set, grpc-encoding ' +
      'gzip)',
    async () => {
      server.calls.length = 0;
      const c = await exporter();
      for (let i = 0; i < 10; i++) await c.consume(makeBatch(3, `seq-${i}`));
      await Promise.all(Array.from({ length: 5 }, (_, i) => c.consume(makeBatch(2, `par-${i}`))));
      assert.equal(server.calls.length, 15);
      assert.deepEqual(
        server.calls.map((call) => call.compressed),
        Array(15).fill(true),
        'compressed flag per call',
      );
      assert.deepEqual(
        server.calls.map((call) => call.encoding),
        Array(15).fill('gzip'),
      );
      // The messages are still the records sent.
      const bodies = server.calls.map(
        (call) => decodeLogsRequest(call.message).resourceLogs[0].scopeLogs[0].logRecords.length,
      );
      assert.deepEqual(bodies, [...Array(10).fill(3), ...Array(5).fill(2)]);
    },
  );

  test('compression none: no call is compressed', async () => {
    server.calls.length = 0;
    const c = await exporter({ compression: 'none' });
    for (let i = 0; i < 3; i++) await c.consume(makeBatch(1));
    assert.deepEqual(
      server.calls.map((call) => call.compressed),
      [false, false, false],
    );
  });
});
