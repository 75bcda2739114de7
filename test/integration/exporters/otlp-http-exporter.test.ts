import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { otlpHttpExporterFactory } from '../../../src/exporters/factories.ts';
import { otlpHttpExporterConfigSchema, gzipLevel } from '../../../src/exporters/otlp-http-exporter.ts';
import { isPermanentError } from '../../../src/component/errors.ts';
import { noopLogger, type Logger } from '../../../src/component/logger.ts';
import { RetriesExhaustedError } from '../../../src/pipeline/retry.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import { holdEventLoopOpen, makeBatch } from '../../unit/pipeline/records.ts';
import { startOtlpServer, type OtlpTestServer } from './otlp-server.ts';
import { ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody } from '../../../scripts/local/samples.ts';
import { decodeLogsRequest } from '../../helpers/otlp-logs-proto.ts';
import { withoutDoubleMarks } from '../../helpers/unmarked-records.ts';

holdEventLoopOpen(after);

const fastRetry = { initial_interval: '10ms', max_interval: '20ms', max_elapsed_time: '5s' };

describe('otlphttp exporter against a local OTLP/HTTP server', () => {
  let server: OtlpTestServer;
  const consumers: SignalConsumer[] = [];
  before(async () => {
    server = await startOtlpServer();
  });
  after(async () => {
    for (const c of consumers) await c.shutdown?.();
    await server?.close();
  });
  async function exporter(section: Record<string, unknown>, logger: Logger = noopLogger): Promise<SignalConsumer> {
    const config = otlpHttpExporterConfigSchema.parse({ endpoint: server.url, ...section });
    const c = await otlpHttpExporterFactory.create({ id: 'otlphttp/test', logger }, config);
    consumers.push(c);
    return c;
  }

  test('json encoding: posts an OTLP/JSON request to /v1/logs with the configured headers', async () => {
    server.requests.length = 0;
    const c = await exporter({ encoding: 'json', compression: 'none', headers: { 'x-api-key': 'k-123' } });
    await c.consume(makeBatch(2, 'json'));
    assert.equal(server.requests.length, 1);
    const req = server.requests[0]!;
    assert.equal(req.path, '/v1/logs');
    assert.equal(req.headers['x-api-key'], 'k-123');
    assert.match(String(req.headers['content-type']), /^application\/json/);
    const records = req.json.resourceLogs[0].scopeLogs[0].logRecords;
    assert.deepEqual(
      records.map((r: any) => r.body.stringValue),
      ['json-0', 'json-1'],
    );
  });

  test('proto encoding with gzip (the defaults): protobuf body carrying the records', async () => {
    server.requests.length = 0;
    const c = await exporter({});
    await c.consume(makeBatch(1, 'protobuf-body'));
    const req = server.requests[0]!;
    assert.equal(req.headers['content-type'], 'application/x-protobuf');
    assert.equal(req.headers['content-encoding'], 'gzip');
    // Protobuf strings are raw UTF-8: the body and a resource attribute appear verbatim.
    assert.ok(req.body.includes(Buffer.from('protobuf-body-0')));
    assert.ok(req.body.includes(Buffer.from('eventhub-test')));
  });

  test(
    "proto encoding: the server decodes the one-pass encoder's bodies with the OTLP schema, as upstream's would " +
      'be',
    async () => {
      const decode = createDecoder({ format: 'azure' });
      const events = SAMPLE_CATEGORIES.map((category, n) => ({
        body: Buffer.from(sampleResourceLogBody(category, { records: 3, index: n })),
        sequenceNumber: n,
        offset: String(n * 1024),
        enqueuedTime: new Date(),
        partitionKey: 'clé-😀',
      }));
      // Upstream knows no double marks (Go's float64 numbers): compared on unmarked copies.
      const records = withoutDoubleMarks(
        decode(events, {
          namespace: 'ns.servicebus.windows.net',
          eventHubName: 'logs',
          consumerGroup: '$Default',
          partitionId: '1',
        }).records,
      );
      const edge = {
        ...records[0]!,
        body: 'lone \ud800 surrogate',
        attributes: { big: 2 ** 60, bytes: new Uint8Array([0, 255]), nested: { a: [1, { b: null }] } },
      };
      const sent = [...records, edge] as ReadableLogRecord[];
      for (const compression of ['gzip', 'none']) {
        server.requests.length = 0;
        const c = await exporter({ compression, retry_on_failure: { enabled: false } });
        await c.consume({ records: sent, source: makeBatch(0).source });
        assert.equal(server.requests.length, 1);
        const req = server.requests[0]!;
        assert.equal(req.headers['content-encoding'], compression === 'gzip' ? 'gzip' : undefined);
        assert.ok(req.proto, 'the server decoded the body');
        assert.deepEqual(req.proto, decodeLogsRequest(ProtobufLogsSerializer.serializeRequest(sent)!));
        const bodies = req.proto.resourceLogs.flatMap((rl: any) => rl.scopeLogs.flatMap((sl: any) => sl.logRecords));
        assert.equal(bodies.length, sent.length);
        const last = bodies.find((l: any) => l.body?.stringValue?.startsWith('lone'));
        assert.equal(last.body.stringValue, 'lone \ufffd surrogate');
        assert.equal(last.attributes[0].value.intValue, '1152921504606846976');
      }
    },
  );

  test(
    'compression_level: a valid gzip body at each level, decoded to the same request; level 1 is larger than ' + '9',
    async () => {
      const decode = createDecoder({ format: 'azure' });
      const events = SAMPLE_CATEGORIES.map((category, n) => ({
        body: Buffer.from(sampleResourceLogBody(category, { records: 20, index: n })),
        sequenceNumber: n,
        offset: String(n * 1024),
        enqueuedTime: new Date(),
      }));
      const context = {
        namespace: 'ns.servicebus.windows.net',
        eventHubName: 'logs',
        consumerGroup: '$Default',
        partitionId: '1',
      };
      const sent = withoutDoubleMarks(decode(events, context).records);
      const expected = decodeLogsRequest(ProtobufLogsSerializer.serializeRequest(sent)!);
      const wire = new Map<string, number>();
      const sections: [string, Record<string, unknown>][] = [
        ['default', {}],
        ['1', { compression_level: 1 }],
        ['9', { compression_level: 9 }],
        ['params 1', { compression_params: { level: 1 } }],
        ['json 1', { encoding: 'json', compression_level: 1 }],
      ];
      for (const [name, section] of sections) {
        server.requests.length = 0;
        const logged: string[] = [];
        const c = await exporter(
          { ...section, retry_on_failure: { enabled: false } },
          { ...noopLogger, warn: (m) => void logged.push(m) },
        );
        await c.consume({ records: sent, source: makeBatch(0).source });
        assert.deepEqual(logged, [], `${name}: no fallback warning`);
        assert.equal(server.requests.length, 1, name);
        const req = server.requests[0]!;
        // otlp-server gunzips a Content-Encoding: gzip body (gunzipSync throws on a non-gzip one).
        assert.equal(req.headers['content-encoding'], 'gzip', name);
        assert.ok(req.wireBytes < req.body.length, `${name}: the wire body is compressed`);
        if (section.encoding === 'json') {
          const count = req.json.resourceLogs.flatMap((rl: any) =>
            rl.scopeLogs.flatMap((sl: any) => sl.logRecords),
          ).length;
          assert.equal(count, sent.length, name);
        } else assert.deepEqual(req.proto, expected, name);
        wire.set(name, req.wireBytes);
      }
      assert.ok(
        wire.get('1')! > wire.get('9')!,
        `level 1 (${wire.get('1')} B) is larger than level 9 (${wire.get('9')} B)`,
      );
      assert.equal(wire.get('params 1'), wire.get('1'), 'compression_params.level is the same setting');
      assert.equal(wire.get('default'), wire.get('1'), 'the default level is 1');
    },
  );

  /** A logger that keeps the fields of each 'retrying' warning: one per failed attempt of retry_on_failure. */
  function retryLog(): Logger & { retries: Record<string, unknown>[] } {
    const retries: Record<string, unknown>[] = [];
    const log: Logger & { retries: typeof retries } = {
      ...noopLogger,
      retries,
      warn: (message, fields) => void (message === 'export failed; retrying' && retries.push(fields ?? {})),
      child: () => log,
    };
    return log;
  }

  test('503 three times → exactly one request per attempt of retry_on_failure, then accepted', async () => {
    server.requests.length = 0;
    for (let i = 0; i < 3; i++) server.script.push({ status: 503 });
    const logger = retryLog();
    const c = await exporter({ retry_on_failure: fastRetry, timeout: '5s' }, logger);
    await c.consume(makeBatch(1, 'retry'));
    // Three failed attempts and the accepted one: four requests. The library's own retry would have
    // sent its retries inside the first attempt (1 s apart) and made this 4 requests for 1 attempt.
    assert.equal(logger.retries.length, 3);
    assert.equal(server.requests.length, 4);
  });

  test('503 with retry_on_failure disabled → a retryable rejection after exactly one request', async () => {
    server.requests.length = 0;
    server.script.push({ status: 503 });
    const c = await exporter({ retry_on_failure: { enabled: false }, timeout: '5s' });
    await assert.rejects(c.consume(makeBatch(1)), (e: unknown) => !isPermanentError(e));
    assert.equal(server.requests.length, 1);
  });

  test('429 with Retry-After: the next attempt waits at least that long', async () => {
    server.requests.length = 0;
    server.script.push({ status: 429, headers: { 'retry-after': '1' } });
    const logger = retryLog();
    const c = await exporter({ retry_on_failure: fastRetry, timeout: '5s' }, logger);
    await c.consume(makeBatch(1));
    assert.equal(server.requests.length, 2);
    assert.equal(logger.retries.length, 1);
    assert.equal(logger.retries[0]!.retry_after_ms, 1_000);
    assert.ok(Number(logger.retries[0]!.delay_ms) >= 1_000, `delay ${String(logger.retries[0]!.delay_ms)} ms`);
  });

  test('503 with a Retry-After beyond max_elapsed_time → gives up after one request', async () => {
    server.requests.length = 0;
    server.script.push({ status: 503, headers: { 'retry-after': '120' } });
    const c = await exporter({ retry_on_failure: fastRetry, timeout: '5s' });
    await assert.rejects(
      c.consume(makeBatch(1)),
      (e: unknown) => e instanceof RetriesExhaustedError && /Retry-After 120 s/.test(e.message),
    );
    assert.equal(server.requests.length, 1);
  });

  test('400 → permanent at once, never retried', async () => {
    server.requests.length = 0;
    server.script.push({ status: 400, body: 'bad payload' });
    const c = await exporter({ retry_on_failure: fastRetry });
    await assert.rejects(c.consume(makeBatch(1)), (e: unknown) => isPermanentError(e));
    assert.equal(server.requests.length, 1);
  });

  const bodiesOf = (req: OtlpTestServer['requests'][number]) => {
    const request = req.json ?? req.proto;
    return request.resourceLogs.flatMap((rl: any) =>
      rl.scopeLogs.flatMap((sl: any) => sl.logRecords.map((r: any) => r.body.stringValue)),
    );
  };

  for (const encoding of ['json', 'proto'] as const) {
    test(
      `${encoding}: max_request_bytes splits a batch so that no body (before gzip) exceeds it; every record once,` +
        ` in order`,
      async () => {
        server.requests.length = 0;
        const c = await exporter({ encoding, max_request_bytes: 4096, retry_on_failure: fastRetry });
        const batch = makeBatch(12, 'x'.repeat(600));
        await c.consume(batch);
        assert.ok(server.requests.length >= 2, `${server.requests.length} requests`);
        for (const req of server.requests) assert.ok(req.body.length <= 4096, `a body of ${req.body.length} bytes`);
        assert.deepEqual(
          server.requests.flatMap(bodiesOf),
          batch.records.map((r) => r.body),
        );
      },
    );
  }

  test(
    '413 → the request is split and the halves sent (not the same body again); everything arrives ' + 'once',
    async () => {
      server.requests.length = 0;
      server.script.push({ status: 413, body: 'Request Entity Too Large' });
      const c = await exporter({ encoding: 'proto', max_request_bytes: 0, retry_on_failure: fastRetry });
      // 8 × 20 kB: above the 64 KiB below which a size refusal is not split further.
      const batch = makeBatch(8, 'y'.repeat(20_000));
      await c.consume(batch);
      assert.deepEqual(
        server.requests.map((req) => bodiesOf(req).length),
        [8, 4, 4],
      );
      assert.deepEqual(
        server.requests.slice(1).flatMap(bodiesOf),
        batch.records.map((r) => r.body),
      );
    },
  );

  test('config: max_request_bytes defaults to 8 MiB; 0 or ≥ 1024 accepted, anything else refused with its path', () => {
    assert.equal(otlpHttpExporterConfigSchema.parse({ endpoint: 'http://x' }).max_request_bytes, 8 * 1024 * 1024);
    assert.equal(
      otlpHttpExporterConfigSchema.parse({ endpoint: 'http://x', max_request_bytes: 0 }).max_request_bytes,
      0,
    );
    for (const bad of [100, -1, 1.5, '4MiB']) {
      const result = otlpHttpExporterConfigSchema.safeParse({ endpoint: 'http://x', max_request_bytes: bad });
      assert.equal(result.success, false, String(bad));
      assert.deepEqual(result.error!.issues[0]!.path, ['max_request_bytes']);
    }
  });

  test('config: gzip levels 1–9 and -1 accepted, 0 and 10 rejected with the dotted path', async () => {
    const { builtinComponents } = await import('../../../src/distribution/builtin-components.ts');
    const { resolveConfig } = await import('../../../src/distribution/resolve-config.ts');
    const components = await builtinComponents();
    const problems = (section: Record<string, unknown>): string => {
      try {
        resolveConfig(
          {
            receivers: {
              azure_event_hub: {
                connection:
                  'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=a2V5;EntityPath=hub',
              },
            },
            exporters: { otlphttp: { endpoint: server.url, ...section } },
            service: { pipelines: { logs: { receivers: ['azure_event_hub'], exporters: ['otlphttp'] } } },
          },
          components,
        );
      } catch (error) {
        return (error as Error).message;
      }
      return '';
    };
    for (const level of [1, 6, 9, -1]) {
      assert.equal(problems({ compression_level: level }), '', `level ${level}`);
      assert.equal(problems({ compression_params: { level } }), '', `compression_params.level ${level}`);
    }
    // Unset is 1 (less CPU; docs/exporters.md), not the collector's 6; -1 is Go's zlib.DefaultCompression, 6.
    assert.equal(gzipLevel(otlpHttpExporterConfigSchema.parse({ endpoint: 'http://x' })), 1);
    assert.equal(
      gzipLevel(otlpHttpExporterConfigSchema.parse({ endpoint: 'http://x', compression_params: { level: -1 } })),
      6,
    );
    for (const level of [0, 10, 1.5]) {
      assert.match(
        problems({ compression_level: level }),
        /exporters\.otlphttp\.compression_level: /,
        `level ${level}`,
      );
      assert.match(problems({ compression_params: { level } }), /exporters\.otlphttp\.compression_params\.level: /);
    }
    assert.match(problems({ compression_level: 0 }), /1 \(fastest\) to 9/);
    assert.match(problems({ compression_level: 1, compression_params: { level: 9 } }), /compression_level: .*disagree/);
    assert.equal(problems({ compression_level: 6, compression_params: { level: -1 } }), '');
  });

  test('config: endpoint required, logs_endpoint used as is, unknown keys rejected', () => {
    assert.equal(otlpHttpExporterConfigSchema.safeParse({}).success, false);
    assert.equal(otlpHttpExporterConfigSchema.safeParse({ endpoint: 'http://x', endpiont: 'y' }).success, false);
    const d = otlpHttpExporterConfigSchema.parse({ endpoint: 'http://x:4318' });
    assert.equal(d.encoding, 'proto');
    assert.equal(d.compression, 'gzip');
    assert.equal(d.timeout, 30_000);
    assert.equal(d.retry_on_failure.initial_interval, 5_000);
    assert.equal(
      otlpHttpExporterConfigSchema.safeParse({ endpoint: 'http://x', sending_queue: { enabled: true } }).success,
      false,
    );
    const zstd = otlpHttpExporterConfigSchema.safeParse({ endpoint: 'http://x', compression: 'zstd' });
    assert.match(zstd.error?.issues[0]?.message ?? '', /zstd is not available/);
  });
});

describe('otlphttp exporter over TLS', () => {
  let dir: string | undefined;
  let server: OtlpTestServer | undefined;
  const consumers: SignalConsumer[] = [];
  let haveOpenssl = true;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'otlp-tls-'));
    try {
      execFileSync(
        'openssl',
        [
          'req',
          '-x509',
          '-newkey',
          'ec',
          '-pkeyopt',
          'ec_paramgen_curve:prime256v1',
          '-nodes',
          '-keyout',
          join(dir, 'key.pem'),
          '-out',
          join(dir, 'cert.pem'),
          '-days',
          '1',
          '-subj',
          '/CN=localhost',
          '-addext',
          'subjectAltName=IP:127.0.0.1,DNS:localhost',
        ],
        { stdio: 'ignore', timeout: 10_000 },
      );
    } catch {
      haveOpenssl = false;
      return;
    }
    server = await startOtlpServer({
      cert: await readFile(join(dir, 'cert.pem')),
      key: await readFile(join(dir, 'key.pem')),
    });
  });
  after(async () => {
    for (const c of consumers) await c.shutdown?.();
    await server?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  test('tls.ca_file makes a self-signed server trusted; without it the export fails', async (t) => {
    if (!haveOpenssl) return t.skip('openssl is not installed');
    const make = async (tls: Record<string, unknown>) => {
      const c = await otlpHttpExporterFactory.create(
        { id: 'otlphttp/tls', logger: noopLogger },
        otlpHttpExporterConfigSchema.parse({
          endpoint: server!.url,
          tls,
          retry_on_failure: { enabled: false },
          timeout: '2s',
        }),
      );
      consumers.push(c);
      return c;
    };
    await assert.rejects((await make({})).consume(makeBatch(1)));
    await (await make({ ca_file: join(dir!, 'cert.pem') })).consume(makeBatch(1, 'tls'));
    assert.ok(server!.requests.at(-1)!.body.includes(Buffer.from('tls-0')));
  });
});
