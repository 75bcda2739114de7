/**
 * Which pipelines let a receiver decode and encode on decode threads (`decode_workers`): the service
 * composes each component's `acceptsEncodedLogs` into what the receiver is given, so the rule is declared
 * by the components, not matched on names. Real processors and exporters; a fake receiver keeps what it got.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noopLogger } from '../../../src/component/logger.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { builtinExporterFactories } from '../../../src/exporters/index.ts';
import { distributionExtensions, distributionProcessors } from '../../../src/distribution/components.ts';
import { resolveConfig } from '../../../src/distribution/resolve-config.ts';
import { Service } from '../../../src/distribution/service.ts';
import { fakeReceiverFactory, type FakeReceiver } from './fake-components.ts';

const CONN =
  'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=c2VydmljZS10ZXN0;EntityPath=hub';

/** Whether the receiver of a service built from these sections would be given encoded-log capability. */
async function eligible(sections: string, pipelines: string, metrics = '{ level: none }'): Promise<boolean> {
  const yaml = `
receivers:
  azure_event_hub: { connection: "${CONN}" }
${sections}
service:
  pipelines:
${pipelines}
  telemetry:
    metrics: ${metrics}
`;
  const receivers = new Map<string, FakeReceiver>();
  const components = {
    receivers: [fakeReceiverFactory([], receivers)],
    exporters: builtinExporterFactories,
    processors: distributionProcessors,
    extensions: distributionExtensions,
  };
  const loaded = await loadConfig({ configs: [`yaml:${yaml}`], env: {} });
  const service = await Service.start(resolveConfig(loaded.raw, components), { logger: noopLogger });
  try {
    return receivers.get('azure_event_hub')!.next.acceptsEncodedLogs === true;
  } finally {
    await service.shutdown();
  }
}

const OTLP = `
  otlphttp: { endpoint: "http://127.0.0.1:1" }
  otlphttp/json: { endpoint: "http://127.0.0.1:1", encoding: json }
  otlp: { endpoint: "127.0.0.1:1", tls: { insecure: true } }
  debug: {}`;

test('batch (no send_batch_max_size) and memory_limiter into otlphttp proto or otlp: eligible', async () => {
  const sections = `processors:
  batch: {}
  memory_limiter: { check_interval: 1s, limit_mib: 4000 }
exporters:${OTLP}`;
  assert.equal(
    await eligible(sections, '    logs: { receivers: [azure_event_hub], processors: [batch], exporters: [otlphttp] }'),
    true,
  );
  // With self-metrics, exporters are wrapped to be counted: the wrapper says what the exporter says.
  const counted = '{ address: "127.0.0.1:0" }';
  assert.equal(
    await eligible(
      sections,
      '    logs: { receivers: [azure_event_hub], processors: [batch], exporters: [otlphttp] }',
      counted,
    ),
    true,
  );
  assert.equal(
    await eligible(sections, '    logs: { receivers: [azure_event_hub], exporters: [otlphttp, otlp] }'),
    true,
  );
  assert.equal(
    await eligible(
      sections,
      '    logs: { receivers: [azure_event_hub], processors: [memory_limiter, batch], exporters: [otlp] }',
    ),
    true,
  );
  // Two logs pipelines, both eligible.
  assert.equal(
    await eligible(
      sections,
      `    logs/a: { receivers: [azure_event_hub], processors: [batch], exporters: [otlphttp] }
    logs/b: { receivers: [azure_event_hub], exporters: [otlp] }`,
    ),
    true,
  );
});

test(
  'an exporter or processor that needs records, or another signal, keeps decoding on the pipeline ' + 'thread',
  async () => {
    const sections = `processors:
  batch: {}
  batch/split: { send_batch_size: 100, send_batch_max_size: 200 }
exporters:${OTLP}`;
    const logs = (processors: string, exporters: string) =>
      `    logs: { receivers: [azure_event_hub], processors: [${processors}], exporters: [${exporters}] }`;
    assert.equal(await eligible(sections, logs('batch', 'otlphttp/json')), false, 'OTLP/JSON needs the records');
    assert.equal(await eligible(sections, logs('batch', 'otlphttp, debug')), false, 'debug prints the records');
    assert.equal(
      await eligible(sections, logs('batch/split', 'otlphttp')),
      false,
      'send_batch_max_size splits by records',
    );
    assert.equal(
      await eligible(
        sections,
        `${logs('batch', 'otlphttp')}
    metrics: { receivers: [azure_event_hub], exporters: [otlp] }`,
      ),
      false,
      'a metrics pipeline takes metric points',
    );
    assert.equal(
      await eligible(
        sections,
        `${logs('batch', 'otlphttp')}
    logs/debug: { receivers: [azure_event_hub], exporters: [debug] }`,
      ),
      false,
      'one pipeline of the receiver is not eligible',
    );
  },
);
