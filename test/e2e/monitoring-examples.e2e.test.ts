/**
 * examples/monitoring ships a Grafana dashboard and Prometheus alert rules. This parses both, extracts
 * every metric name their expressions use, and checks that each one is on the /metrics of a running
 * collector (the CLI against the emulator and Azurite, with a config that turns on everything a metric
 * depends on: blob leases and hub-wide lag, retention, a dead-letter store, the memory_limiter).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { startEmulator } from '../../src/emulator/index.ts';
import { randomName, startAzurite } from '../helpers/azurite.ts';
import { endpointOf, httpGet, startCli, waitUntil } from './cli-process.ts';

const EXAMPLES = join(import.meta.dirname, '../../examples/monitoring');

/** Every string under a `expr` key (alert rules, dashboard targets) or a templating `query`/`definition`. */
function expressions(node: unknown, key = ''): string[] {
  if (typeof node === 'string') return ['expr', 'query', 'definition'].includes(key) ? [node] : [];
  if (Array.isArray(node)) return node.flatMap((n) => expressions(n, key));
  if (node && typeof node === 'object') return Object.entries(node).flatMap(([k, v]) => expressions(v, k));
  return [];
}

/**
 * Metric names in PromQL: identifiers not followed by `(` or inside `{...}`/`by (...)`, starting otelcol_ or
 * target_info.
 */
function metricNames(exprs: readonly string[]): Set<string> {
  const names = new Set<string>();
  for (const e of exprs) {
    // Label matchers and grouping clauses hold label names, not metrics.
    const stripped = e
      .replace(/\{[^}]*\}/g, '{}')
      .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, '');
    for (const m of stripped.matchAll(/\b([a-zA-Z_:][a-zA-Z0-9_:]*)\b(?!\s*\()/g)) {
      const name = m[1]!;
      if (name.startsWith('otelcol_') || name === 'target_info') names.add(name);
    }
  }
  return names;
}

test("every metric the example dashboard and alert rules use is on a running collector's /metrics", {
  timeout: 120_000,
}, async (t) => {
  const rules = parseYaml(await readFile(join(EXAMPLES, 'alert-rules.yaml'), 'utf8')) as {
    groups: { rules: { alert: string; expr: string }[] }[];
  };
  const dashboard = JSON.parse(await readFile(join(EXAMPLES, 'grafana-dashboard.json'), 'utf8')) as {
    panels: unknown[];
  };
  const ruleNames = metricNames(expressions(rules));
  const dashboardNames = metricNames(expressions(dashboard));
  const alerts = rules.groups.flatMap((g) => g.rules.map((r) => r.alert));
  for (const required of [
    'EventHubLagHalfOfRetention',
    'EventHubPartitionStuck',
    'EventHubCheckpointStale',
    'EventHubDeadLetters',
    'CollectorExporterFailures',
  ]) {
    assert.ok(alerts.includes(required), `alert ${required} is shipped`);
  }
  assert.ok(
    ruleNames.size >= 10 && dashboardNames.size >= 15,
    `names found: rules ${ruleNames.size}, dashboard ${dashboardNames.size}`,
  );
  assert.ok(
    dashboardNames.has('otelcol_receiver_azureeventhub_export_duration_seconds_bucket'),
    'the extraction sees histogram buckets',
  );
  assert.ok(!dashboardNames.has('otelcol_receiver_azureeventhub_partition_lag_secondsx'));

  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const hub = randomName('hub');
  const emulator = await startEmulator({ port: 0, hubs: [{ name: hub, partitions: 2 }] });
  t.after(() => emulator.stop());
  const dir = await mkdtemp(join(tmpdir(), 'otelcol-monitoring-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const configPath = join(dir, 'config.yaml');
  await writeFile(
    configPath,
    `receivers:
  azure_event_hub:
    connection: \${env:EH_CONNECTION}
    format: json
    start_position: earliest
    poll_rate: 1
    retention: 24h
    hub_lag_interval: 1s
    checkpoint:
      interval: 200ms
    blob_checkpoint_store:
      connection: \${env:STORAGE_CONNECTION}
      container_name: ${randomName('ckpt')}
      create_container: true
    ownership:
      update_interval: 500ms
    dead_letter:
      directory: ${join(dir, 'dead-letters')}
processors:
  memory_limiter:
    check_interval: 1s
    limit_percentage: 90
    spike_limit_percentage: 20
  batch:
    timeout: 50ms
exporters:
  file:
    path: ${join(dir, 'out.jsonl')}
service:
  pipelines:
    logs:
      receivers: [azure_event_hub]
      processors: [memory_limiter, batch]
      exporters: [file]
  telemetry:
    metrics:
      address: 127.0.0.1:0
`,
  );
  emulator.append(hub, '0', [{ body: '{"a":1}' }, { body: '{"a":2}' }]);
  emulator.append(hub, '1', [{ body: '{"a":3}' }]);
  const cli = startCli(t, ['--config', configPath], {
    EH_CONNECTION: emulator.connectionString(hub),
    STORAGE_CONNECTION: azurite.connectionString,
  });
  const metricsLine = await cli.waitForLog(
    (l) => l.msg === 'self-metrics endpoint listening',
    30_000,
    'metrics endpoint',
  );
  const url = `http://${endpointOf(metricsLine)}/metrics`;

  const wanted = [...new Set([...ruleNames, ...dashboardNames])].sort();
  const sampleNames = (text: string) =>
    new Set(
      text
        .split('\n')
        .filter((l) => l && !l.startsWith('#'))
        .map((l) => /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(l)![0]),
    );
  // Exports, checkpoints and a hub-wide refresh have to happen first: wait until nothing is missing (or time out and
  // say what).
  let missing: string[] = wanted;
  let text = '';
  await waitUntil(
    async () => {
      text = (await httpGet(url)).body;
      const present = sampleNames(text);
      missing = wanted.filter((n) => !present.has(n));
      return missing.length === 0 ? true : undefined;
    },
    60_000,
    'every metric of the examples on /metrics',
  ).catch(() => undefined);
  assert.deepEqual(missing, [], `missing on /metrics:\n${missing.join('\n')}`);
  assert.match(
    text,
    /^otelcol_exporter_sent_log_records_total\{exporter="file"\} 3$/m,
    'the three records were sent by the file exporter',
  );
  assert.match(text, /^target_info\{[^}]*service_instance_id="[0-9a-f-]{36}"/m);
  assert.match(text, /^target_info\{[^}]*service_version="\d+\.\d+\.\d+[^"]*"/m);
  t.diagnostic(`${wanted.length} metric names checked: ${wanted.join(', ')}`);

  cli.child.kill('SIGTERM');
  assert.equal(await cli.exited(60_000), 0, cli.stderr().slice(-2000));
});
