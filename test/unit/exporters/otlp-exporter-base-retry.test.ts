import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OTLPLogExporter as JsonExporter } from '@opentelemetry/exporter-logs-otlp-http';
import { OTLPLogExporter as ProtoExporter } from '@opentelemetry/exporter-logs-otlp-proto';
import {
  disableLibraryRetry,
  OTLP_EXPORTER_BASE_VERSION,
} from '../../../src/exporters/internal/otlp-exporter-base-retry.ts';

// The workaround reaches into the library's internals: these tests fail when the library changes, so
// the workaround is looked at again (is the inner retry still there? still shaped like this?).

test('the installed @opentelemetry/otlp-exporter-base is the version the workaround was written for', () => {
  const entry = createRequire(import.meta.url).resolve('@opentelemetry/otlp-exporter-base');
  const root = entry.slice(0, entry.lastIndexOf(join('otlp-exporter-base', 'build')) + 'otlp-exporter-base'.length);
  const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  assert.equal(version, OTLP_EXPORTER_BASE_VERSION);
});

test(
  'the JSON and protobuf HTTP exporters have the retrying transport, and it is taken out ' + '(idempotently)',
  async () => {
    for (const Exporter of [JsonExporter, ProtoExporter]) {
      const exporter = new Exporter({ url: 'http://127.0.0.1:9/v1/logs' });
      assert.equal((exporter as any)._delegate._transport.constructor.name, 'RetryingTransport');
      assert.equal(disableLibraryRetry(exporter), 'unwrapped');
      assert.notEqual((exporter as any)._delegate._transport.constructor.name, 'RetryingTransport');
      assert.equal(disableLibraryRetry(exporter), 'unwrapped');
      await exporter.shutdown();
    }
  },
);

test('an object without the expected internals is reported, not changed', () => {
  const stranger = { _delegate: { _transport: { send() {} } } };
  assert.equal(disableLibraryRetry(stranger), 'unknown-shape');
  assert.equal(disableLibraryRetry({}), 'unknown-shape');
});

test(
  'wrapInner wraps the plain HTTP transport below the single-attempt layer (where the gzip level goes ' + 'in)',
  async () => {
    const exporter = new ProtoExporter({ url: 'http://127.0.0.1:9/v1/logs' });
    const plain = (exporter as any)._delegate._transport._transport;
    const seen: unknown[] = [];
    const wrapper = { send: async () => ({ status: 'success' as const }), shutdown() {} };
    assert.equal(
      disableLibraryRetry(exporter, (inner) => (seen.push(inner), wrapper)),
      'unwrapped',
    );
    assert.deepEqual(seen, [plain]);
    const response = await (exporter as any)._delegate._transport.send(new Uint8Array([1]), 1000);
    assert.equal(response.status, 'success', 'requests go through the wrapper');
    assert.equal(
      disableLibraryRetry({}, () => wrapper),
      'unknown-shape',
    );
    await exporter.shutdown();
  },
);
