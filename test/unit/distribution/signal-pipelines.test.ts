/**
 * Pipelines of the three signals: config resolution (signal of each pipeline, what a receiver must decode,
 * what `validate` refuses and warns about) and the service wiring (one receiver instance per id, each
 * pipeline given only its own signal).
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { noopLogger } from '../../../src/component/logger.ts';
import { ConfigError } from '../../../src/component/errors.ts';
import { loadConfig } from '../../../src/config/load-config.ts';
import { receiverSignals, resolveConfig } from '../../../src/distribution/resolve-config.ts';
import { Service } from '../../../src/distribution/service.ts';
import { testComponents } from './fake-components.ts';
import { makeMixedBatch } from '../pipeline/records.ts';

const CONN =
  'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=c2lnbmFscy10ZXN0;EntityPath=hub';

async function resolve(yaml: string) {
  const loaded = await loadConfig({ configs: [`yaml:${yaml}`], env: {} });
  return resolveConfig(loaded.raw, testComponents().components);
}

async function problems(yaml: string): Promise<string> {
  try {
    await resolve(yaml);
  } catch (error) {
    assert.ok(error instanceof ConfigError, String(error));
    assert.ok(!error.message.includes('c2lnbmFscy10ZXN0'), 'no key in the message');
    return error.message;
  }
  return assert.fail('validated');
}

const ALL_THREE = `
receivers:
  azure_event_hub: { connection: "${CONN}" }
  azure_event_hub/logsonly: { connection: "${CONN}", format: json, group: json-readers }
processors:
  batch: { timeout: 0 }
exporters:
  debug:
  file/metrics: { path: /dev/null }
  file/traces: { path: /dev/null }
service:
  pipelines:
    logs: { receivers: [azure_event_hub, azure_event_hub/logsonly], exporters: [debug] }
    metrics/azure: { receivers: [azure_event_hub], processors: [batch], exporters: [file/metrics] }
    traces: { receivers: [azure_event_hub], exporters: [file/traces] }
  telemetry: { metrics: { level: none } }
`;

describe('resolving pipelines of three signals', () => {
  test(
    'two receivers on the same hub, consumer group and partitions are refused, naming both and what to ' + 'do',
    async () => {
      const message = await problems(`
receivers:
  azure_event_hub/a: { connection: "${CONN}" }
  azure_event_hub/b:
    event_hub: { name: HUB, namespace: NS.servicebus.windows.net }
    connection: "${CONN.replace('ns.', 'NS.')}"
exporters: { debug: }
service:
  pipelines:
    logs: { receivers: [azure_event_hub/a], exporters: [debug] }
    metrics: { receivers: [azure_event_hub/b], exporters: [debug] }
`);
      assert.match(
        message,
        /receivers\.azure_event_hub\/b: reads the same event hub and consumer group as receivers\.azure_event_hub\/a/,
      );
      assert.match(message, /use one receiver and list it in every pipeline/);
    },
  );

  test('receivers on other consumer groups, other hubs or other explicit partitions do not overlap', async () => {
    const other = CONN.replace('EntityPath=hub', 'EntityPath=other');
    const r = await resolve(`
receivers:
  azure_event_hub: { connection: "${CONN}" }
  azure_event_hub/group: { connection: "${CONN}", group: audit }
  azure_event_hub/hub: { connection: "${other}" }
  azure_event_hub/p0: { connection: "${other}", group: pinned, partition: "0" }
  azure_event_hub/p1: { connection: "${other}", group: pinned, partition: "1" }
exporters: { debug: }
service:
  pipelines:
    logs:
      receivers: [azure_event_hub, azure_event_hub/group, azure_event_hub/hub, azure_event_hub/p0, azure_event_hub/p1]
      exporters: [debug]
`);
    assert.equal(r.receivers.size, 5);
    const message = await problems(`
receivers:
  azure_event_hub/all: { connection: "${other}", group: pinned }
  azure_event_hub/p0: { connection: "${other}", group: pinned, partition: "0" }
exporters: { debug: }
service:
  pipelines:
    logs: { receivers: [azure_event_hub/all, azure_event_hub/p0], exporters: [debug] }
`);
    assert.match(
      message,
      /receivers\.azure_event_hub\/p0: reads the same event hub/,
      'every partition includes partition 0',
    );
  });

  test(
    'each pipeline has the signal of its type; a receiver decodes the signals of the pipelines listing ' + 'it',
    async () => {
      const r = await resolve(ALL_THREE);
      assert.deepEqual(
        r.service.pipelines.map((p) => [p.id, p.signal]),
        [
          ['logs', 'logs'],
          ['metrics/azure', 'metrics'],
          ['traces', 'traces'],
        ],
      );
      assert.deepEqual([...receiverSignals(r.service.pipelines, 'azure_event_hub')].sort(), [
        'logs',
        'metrics',
        'traces',
      ]);
      assert.deepEqual([...receiverSignals(r.service.pipelines, 'azure_event_hub/logsonly')], ['logs']);
      assert.deepEqual(r.warnings, []);
    },
  );

  test(
    'a metrics or traces pipeline on a format that produces only logs is refused with the key and what to ' + 'do',
    async () => {
      const message = await problems(`
receivers:
  azure_event_hub/raw: { connection: "${CONN}", format: raw }
exporters: { debug: }
service:
  pipelines:
    metrics: { receivers: [azure_event_hub/raw], exporters: [debug] }
    traces/x: { receivers: [azure_event_hub/raw], exporters: [debug] }
`);
      assert.match(
        message,
        new RegExp(
          String.raw`service\.pipelines\.metrics\.receivers: receivers\.azure_event_hub\/raw\.format: raw` +
            String.raw` produces log records only, so it cannot feed a metrics pipeline; use format: azure for ` +
            String.raw`metric points \(Azure metrics\), or remove the receiver from the metrics pipeline`,
        ),
      );
      assert.match(
        message,
        new RegExp(
          String.raw`service\.pipelines\.traces\/x\.receivers: receivers\.azure_event_hub\/raw\.format: r` +
            String.raw`aw produces log records only, so it cannot feed a traces pipeline`,
        ),
      );
    },
  );

  test(
    'metric_aggregation takes "" or average, as Go; anything else is refused saying which values ' + 'exist',
    async () => {
      const config = (value: string) => `
receivers:
  azure_event_hub: { connection: "${CONN}", metric_aggregation: "${value}" }
exporters: { debug: }
service: { pipelines: { metrics: { receivers: [azure_event_hub], exporters: [debug] } } }
`;
      for (const ok of ['', 'average']) await resolve(config(ok));
      const message = await problems(config('Average'));
      assert.match(
        message,
        new RegExp(
          String.raw`receivers\.azure_event_hub\.metric_aggregation: 'Average' is not an aggregation mode` +
            String.raw`: use "" \(a gauge per aggregation\) or "average"`,
        ),
      );
    },
  );

  test(
    "an exporter (or processor) whose factory does not handle the pipeline's signal is refused, naming " + 'it',
    async () => {
      const tc = testComponents();
      const logsOnly = { ...tc.components.exporters[0]!, type: 'logsonly', signals: undefined };
      const components = { ...tc.components, exporters: [...tc.components.exporters, logsOnly] };
      const loaded = await loadConfig({
        configs: [
          `yaml:
receivers: { azure_event_hub: { connection: "${CONN}" } }
exporters: { logsonly: , debug: }
service:
  pipelines:
    logs: { receivers: [azure_event_hub], exporters: [logsonly] }
    traces: { receivers: [azure_event_hub], exporters: [logsonly, debug] }
`,
        ],
        env: {},
      });
      assert.throws(
        () => resolveConfig(loaded.raw, components),
        (e: ConfigError) => {
          assert.match(
            e.message,
            new RegExp(
              String.raw`service\.pipelines\.traces\.exporters: exporters\.logsonly \(type logsonly\) cannot ` +
                String.raw`export traces, only logs; remove it from this pipeline or use another exporter that ` +
                String.raw`handles traces`,
            ),
          );
          assert.doesNotMatch(e.message, /pipelines\.logs\.exporters/, 'a logs exporter in a logs pipeline is fine');
          assert.doesNotMatch(e.message, /exporters\.debug/);
          return true;
        },
      );
    },
  );

  test('an unknown pipeline type is refused with the three signals, and a near miss is suggested', async () => {
    const message = await problems(`
receivers: { azure_event_hub: { connection: "${CONN}" } }
exporters: { debug: }
service: { pipelines: { metric: { receivers: [azure_event_hub], exporters: [debug] } } }
`);
    assert.match(
      message,
      new RegExp(
        String.raw`service\.pipelines\.metric: unknown signal 'metric'; pipelines are logs, metrics or traces .*` +
          'did you mean `metrics`' +
          String.raw`\?`,
      ),
    );
  });

  test(
    'metrics and traces keys on a receiver no such pipeline lists are warned about, and not once one ' + 'does',
    async () => {
      const keys = `metric_aggregation: average, time_formats: { metrics: ["2006"], traces: ["2006"] }`;
      const logsOnly = await resolve(`
receivers: { azure_event_hub: { connection: "${CONN}", ${keys} } }
exporters: { debug: }
service: { pipelines: { logs: { receivers: [azure_event_hub], exporters: [debug] } } }
`);
      assert.deepEqual(logsOnly.warnings, [
        'receivers.azure_event_hub.metric_aggregation: unused: no metrics pipeline lists this receiver (it applies ' +
          'to metrics only)',
        'receivers.azure_event_hub.time_formats.metrics: unused: no metrics pipeline lists this receiver (it applies ' +
          'to metrics only)',
        'receivers.azure_event_hub.time_formats.traces: unused: no traces pipeline lists this receiver (it applies ' +
          'to traces only)',
      ]);
      const fed = await resolve(`
receivers: { azure_event_hub: { connection: "${CONN}", ${keys} } }
exporters: { debug: }
service:
  pipelines:
    metrics: { receivers: [azure_event_hub], exporters: [debug] }
    traces: { receivers: [azure_event_hub], exporters: [debug] }
`);
      assert.deepEqual(fed.warnings, []);
    },
  );
});

test(
  'the service makes one receiver per id for all its pipelines, tells it the signals, and routes each ' + 'part',
  async (t) => {
    const tc = testComponents();
    const loaded = await loadConfig({ configs: [`yaml:${ALL_THREE}`], env: {} });
    const service = await Service.start(resolveConfig(loaded.raw, tc.components), { logger: noopLogger });
    t.after(() => service.shutdown());

    assert.deepEqual(
      [...tc.receivers.keys()].sort(),
      ['azure_event_hub', 'azure_event_hub/logsonly'],
      'one instance per receiver id',
    );
    const shared = tc.receivers.get('azure_event_hub')!;
    assert.deepEqual([...shared.settings!.signals!].sort(), ['logs', 'metrics', 'traces']);
    assert.deepEqual([...tc.receivers.get('azure_event_hub/logsonly')!.settings!.signals!], ['logs']);
    assert.equal(
      tc.journal.filter((l) => l === 'start azure_event_hub').length,
      1,
      'started once: partitions are read once',
    );

    await shared.next.consume(makeMixedBatch(2, 3, 1));
    const debug = tc.exporters.get('debug')!;
    const metrics = tc.exporters.get('file/metrics')!;
    const traces = tc.exporters.get('file/traces')!;
    assert.equal(debug.batches.length, 1);
    assert.equal(debug.batches[0]!.records.length, 2);
    assert.equal(debug.batches[0]!.metrics, undefined, 'the logs exporter sees no metric points');
    assert.equal(metrics.batches.length, 1, 'through the batch processor of the metrics pipeline');
    assert.deepEqual(metrics.batches[0]!.records, []);
    assert.equal(metrics.batches[0]!.metrics!.length, 3);
    assert.equal(metrics.batches[0]!.spans, undefined);
    assert.equal(traces.batches[0]!.spans!.length, 1);
    assert.equal(traces.batches[0]!.metrics, undefined);

    await shared.next.consume(makeMixedBatch(0, 2, 0));
    assert.equal(debug.batches.length, 1, 'a batch of metric points only does not reach the logs pipeline');
    assert.equal(traces.batches.length, 1);
    assert.equal(metrics.batches.length, 2);
  },
);
