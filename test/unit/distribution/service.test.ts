import type { DeferredCredential } from '../../../src/component/credential.ts';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { noopLogger } from '../../../src/component/logger.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { resolveConfig } from '../../../src/distribution/resolve-config.ts';
import { Service } from '../../../src/distribution/service.ts';
import type { HealthCheckExtension } from '../../../src/extensions/health-check/health-check-extension.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { testComponents } from './fake-components.ts';

const CONN =
  'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=c2VydmljZS10ZXN0;EntityPath=';
const CONFIG = `
receivers:
  azure_event_hub/audit: { connection: "${CONN}audit" }
  azure_event_hub/metrics: { connection: "${CONN}metrics" }
processors:
  batch: { timeout: 0 }
exporters:
  debug:
  file/archive: { path: /dev/null }
extensions:
  health_check: { endpoint: "127.0.0.1:0" }
service:
  extensions: [health_check]
  pipelines:
    logs/audit:
      receivers: [azure_event_hub/audit]
      processors: [batch]
      exporters: [debug, file/archive]
    logs/both:
      receivers: [azure_event_hub/audit, azure_event_hub/metrics]
      exporters: [debug]
  telemetry:
    metrics: { address: "127.0.0.1:0" }
`;

function batch(partitionId: string, n: number): SignalBatch {
  return {
    records: Array.from({ length: n }, () => ({}) as never),
    source: {
      namespace: 'ns',
      eventHubName: 'audit',
      consumerGroup: '$Default',
      partitionId,
      firstSequenceNumber: 0,
      lastSequenceNumber: n - 1,
    },
  };
}

test('builds receivers → processors → fan-out per pipeline, shares exporters, and stops in order', async (t) => {
  const tc = testComponents();
  const loaded = await loadConfig({ configs: [`yaml:${CONFIG}`], env: {} });
  const service = await Service.start(resolveConfig(loaded.raw, tc.components), { logger: noopLogger });
  t.after(() => service.shutdown());

  assert.deepEqual(
    [...tc.exporters.keys()].sort(),
    ['debug', 'file/archive'],
    'one instance per exporter id, shared by pipelines',
  );
  const audit = tc.receivers.get('azure_event_hub/audit')!;
  const metrics = tc.receivers.get('azure_event_hub/metrics')!;

  // audit feeds both pipelines: via batch into debug + file/archive, and directly into debug.
  await audit.next.consume(batch('0', 3));
  assert.equal(tc.exporters.get('debug')!.batches.length, 2);
  assert.equal(tc.exporters.get('file/archive')!.batches.length, 1);
  await metrics.next.consume(batch('1', 2));
  assert.equal(tc.exporters.get('debug')!.batches.length, 3);
  assert.equal(tc.exporters.get('file/archive')!.batches.length, 1);

  // Health: 503 until both receivers are ready.
  const health = service.extension('health_check') as HealthCheckExtension;
  const probe = async () =>
    (await fetch(`http://127.0.0.1:${health.address()!.port}/`, { signal: AbortSignal.timeout(5_000) })).status;
  assert.equal(await probe(), 503);
  audit.emit({ type: 'partitionOpened', partitionId: '0' });
  metrics.emit({ type: 'hubReached', partitionIds: ['0'] });
  metrics.emit({ type: 'standby' });
  assert.equal(await probe(), 200);

  // Self-metrics: both receivers are reported.
  audit.counters = { ...audit.counters, recordsAccepted: 3 };
  const text = await (
    await fetch(`http://127.0.0.1:${service.metricsAddress()!.port}/metrics`, { signal: AbortSignal.timeout(5_000) })
  ).text();
  assert.match(
    text,
    /otelcol_receiver_accepted_log_records_total\{receiver="azure_event_hub\/audit",transport="amqp"\} 3/,
  );
  assert.match(
    text,
    /otelcol_receiver_accepted_log_records_total\{receiver="azure_event_hub\/metrics",transport="amqp"\} 0/,
  );

  tc.journal.length = 0;
  await service.shutdown();
  const firstExporterEvent = tc.journal.findIndex(
    (e) => e.startsWith('flush') || e.startsWith('shutdown debug') || e.startsWith('shutdown file'),
  );
  const lastReceiverStop = Math.max(
    tc.journal.indexOf('shutdown azure_event_hub/audit'),
    tc.journal.indexOf('shutdown azure_event_hub/metrics'),
  );
  assert.ok(
    lastReceiverStop >= 0 && lastReceiverStop < firstExporterEvent,
    `receivers stop before exporters flush: ${tc.journal.join(', ')}`,
  );
  assert.equal(tc.journal.filter((e) => e === 'shutdown debug').length, 1, 'a shared exporter is shut down once');
  assert.ok(tc.journal.includes('shutdown file/archive'));
  await assert.rejects(
    fetch(`http://127.0.0.1:${health.address()!.port}/`, { signal: AbortSignal.timeout(2_000) }),
    'health endpoint closed',
  );
});

test('a start that fails half-way stops what it had started', async () => {
  const tc = testComponents();
  const loaded = await loadConfig({ configs: [`yaml:${CONFIG}`], env: {} });
  const resolved = resolveConfig(loaded.raw, tc.components);
  const factory = tc.components.receivers[0]!;
  const original = factory.create.bind(factory);
  (factory as { create: typeof factory.create }).create = async (settings, config, next) => {
    const r = await original(settings, config, next);
    if (settings.id === 'azure_event_hub/metrics') r.start = async () => Promise.reject(new Error('hub not found'));
    return r;
  };
  await assert.rejects(Service.start(resolved, { logger: noopLogger }), /hub not found/);
  assert.ok(tc.journal.includes('shutdown azure_event_hub/audit'));
  assert.ok(tc.journal.includes('shutdown debug'));
});

test(
  'auth: <extension id> resolves to the azure_auth extension credential; feature gates reach the ' + 'receiver',
  async (t) => {
    const tc = testComponents();
    const loaded = await loadConfig({
      configs: [
        `yaml:
receivers:
  azure_event_hub: { auth: azure_auth/sp, event_hub: { name: h, namespace: ns.servicebus.windows.net } }
extensions:
  azure_auth/sp: { service_principal: { tenant_id: t, client_id: c, client_secret: s } }
exporters: { debug: }
service:
  pipelines: { logs: { receivers: [azure_event_hub], exporters: [debug] } }
  telemetry: { metrics: { level: none } }
`,
      ],
      env: {},
    });
    const { createFeatureGates, STREAMING_GATE_ID } = await import('../../../src/component/feature-gates.ts');
    const gates = createFeatureGates({}).apply(`+${STREAMING_GATE_ID}`);
    const service = await Service.start(resolveConfig(loaded.raw, tc.components), {
      logger: noopLogger,
      featureGates: gates,
    });
    t.after(() => service.shutdown());
    const settings = tc.receivers.get('azure_event_hub')!.settings!;
    const { ClientSecretCredential } = await import('@azure/identity');
    assert.ok(
      (await (settings.resolveAuth!('azure_auth/sp') as DeferredCredential).resolve()) instanceof
        ClientSecretCredential,
    );
    assert.equal(settings.resolveAuth!('other'), undefined);
    assert.equal(settings.featureGates!.isEnabled(STREAMING_GATE_ID), true);
    assert.equal(service.metricsAddress(), undefined, 'metrics level none: no endpoint');
  },
);

test(
  "pump producers reach each pipeline's batch processor, and each processor attaches its export slots to the " +
    'exporters',
  async (t) => {
    const tc = testComponents();
    const config = `
receivers:
  azure_event_hub: { connection: "${CONN}audit" }
processors:
  batch: { timeout: 1h, max_concurrent_exports: 2 }
  batch/b: { timeout: 1h }
exporters:
  debug:
service:
  pipelines:
    logs/a: { receivers: [azure_event_hub], processors: [batch], exporters: [debug] }
    logs/b: { receivers: [azure_event_hub], processors: [batch/b], exporters: [debug] }
  telemetry:
    metrics: { level: none }
`;
    const loaded = await loadConfig({ configs: [`yaml:${config}`], env: {} });
    const service = await Service.start(resolveConfig(loaded.raw, tc.components), { logger: noopLogger });
    t.after(() => service.shutdown());
    const debug = tc.exporters.get('debug')!;
    assert.equal(debug.producers, 3, "batch's two export slots and batch/b's one, through the shared exporter stage");

    const receiver = tc.receivers.get('azure_event_hub')!;
    const detach = [0, 1].map(() => receiver.next.attachProducer!());
    // With a one-hour timeout, this settles only because both pumps waiting is enough for each processor.
    const guard = new Promise<never>((_, reject) =>
      setTimeout(() => reject(new Error('stalled on the timer')), 5_000).unref(),
    );
    await Promise.race([
      Promise.all([receiver.next.consume(batch('0', 2)), receiver.next.consume(batch('1', 3))]),
      guard,
    ]);
    assert.equal(debug.batches.length, 2, 'one combined export per pipeline');
    for (const d of detach) d();
    await service.shutdown();
    assert.equal(debug.producers, 0, 'processors detach when they shut down');
  },
);
