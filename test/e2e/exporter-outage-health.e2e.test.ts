/**
 * Health follows delivery through an exporter's own retries: a CLI whose OTLP/HTTP backend answers 503 turns
 * `degraded` (reason `exportStalled`, naming the exporter and its last error) once a batch has waited
 * `degraded_after`, while `retry_on_failure` still retries inside one export; the failed-attempt counter rises
 * from the first failure while the collector's final-failure counter stays 0; the backend back, health is
 * ready again and every event arrives. Both backends, side by side.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomName, startAzurite } from '../helpers/azurite.ts';
import { startEmulator } from '../../src/emulator/index.ts';
import { endpointOf, httpGet, startCli, waitUntil } from './cli-process.ts';

interface OtlpJsonRequest {
  resourceLogs?: { scopeLogs?: { logRecords?: { body?: { stringValue?: string } }[] }[] }[];
}

/** An OTLP/HTTP JSON logs sink that answers 503 while `failing`, and keeps the bodies it accepted. */
async function startSink() {
  const bodies: string[] = [];
  let failing = true;
  let refused = 0;
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks).toString('utf8');
  };
  const server = createServer((req, res) => {
    void read(req).then((text) => {
      if (failing) {
        refused++;
        res.statusCode = 503;
        res.end('backend down');
        return;
      }
      const request = JSON.parse(text) as OtlpJsonRequest;
      for (const rl of request.resourceLogs ?? [])
        for (const sl of rl.scopeLogs ?? [])
          for (const r of sl.logRecords ?? []) bodies.push(r.body?.stringValue ?? '');
      res.setHeader('content-type', 'application/json');
      res.end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    bodies,
    refused: () => refused,
    recover: () => {
      failing = false;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The value of a Prometheus counter series whose labels include `exporter="<id>"`, 0 when absent. */
function counter(metrics: string, name: string, exporter: string): number {
  const line = metrics.split('\n').find((l) => l.startsWith(`${name}_total{`) && l.includes(`exporter="${exporter}"`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

test('health: an exporter retrying inside retry_on_failure turns the receiver degraded, naming it; ready again after', {
  timeout: 120_000,
}, async (t) => {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const emulator = await startEmulator({ port: 0 });
  t.after(() => emulator.stop());
  const dir = await mkdtemp(join(tmpdir(), 'otelcol-outage-'));
  t.after(() => rm(dir, { recursive: true, force: true }));

  async function run(backend: 'polling' | 'streaming'): Promise<void> {
    const hub = randomName('hub');
    emulator.addHub({ name: hub, partitions: 2 });
    const sink = await startSink();
    t.after(() => sink.close());
    const configPath = join(dir, `${backend}.yaml`);
    await writeFile(
      configPath,
      `receivers:
  azure_event_hub:
    connection: \${env:EH_CONNECTION}
    backend: ${backend}
    format: raw
    poll_rate: 0.5
    start_position: earliest
    blob_checkpoint_store:
      connection: \${env:STORAGE_CONNECTION}
      container_name: ${randomName('ckpt')}
      create_container: true
    ownership:
      update_interval: 500ms
exporters:
  otlphttp/backend:
    endpoint: ${sink.url}
    encoding: json
    compression: none
    retry_on_failure:
      initial_interval: 200ms
      max_interval: 1s
      max_elapsed_time: 0
extensions:
  health_check:
    endpoint: 127.0.0.1:0
    degraded_after: 2s
service:
  extensions: [health_check]
  pipelines:
    logs:
      receivers: [azure_event_hub]
      exporters: [otlphttp/backend]
  telemetry:
    metrics:
      address: 127.0.0.1:0
`,
    );
    const cli = startCli(t, ['--config', configPath], {
      EH_CONNECTION: emulator.connectionString(hub),
      STORAGE_CONNECTION: azurite.connectionString,
    });
    const healthLine = await cli.waitForLog(
      (l) => l.msg === 'health check endpoint listening',
      30_000,
      'health endpoint',
    );
    const health = `http://${endpointOf(healthLine)}/`;
    const metricsLine = await cli.waitForLog(
      (l) => l.msg === 'self-metrics endpoint listening',
      30_000,
      'metrics endpoint',
    );
    const metrics = `http://${endpointOf(metricsLine)}/metrics`;
    const sent = ['0', '1'].flatMap((pid) => [1, 2, 3].map((i) => `${backend}-${pid}-${i}`));
    for (const pid of ['0', '1'])
      emulator.append(
        hub,
        pid,
        sent.filter((b) => b.startsWith(`${backend}-${pid}-`)).map((body) => ({ body })),
      );

    // The exporter retries inside one export: the failed-attempt counter rises from the first refusal,
    // while the final-failure counter waits for a give-up that max_elapsed_time 0 never brings.
    await waitUntil(
      async () =>
        counter((await httpGet(metrics)).body, 'otelcol_exporter_failed_attempts', 'otlphttp/backend') >= 2
          ? true
          : undefined,
      30_000,
      `${backend}: failed attempts counted`,
    );
    assert.equal(
      counter((await httpGet(metrics)).body, 'otelcol_exporter_send_failed_log_records', 'otlphttp/backend'),
      0,
    );

    const degraded = await waitUntil(
      async () => {
        const r = await httpGet(health);
        const body = JSON.parse(r.body);
        return r.status === 503 && body.status === 'degraded' ? body : undefined;
      },
      30_000,
      `${backend}: degraded while the exporter retries`,
    );
    const receiver = degraded.receivers.azure_event_hub;
    assert.equal(receiver.reason, 'exportStalled');
    assert.equal(receiver.exporter, 'otlphttp/backend');
    assert.match(receiver.error, /otlphttp\/backend: \d+ failed attempts in a row: .*503/);
    const waiting = Object.values(receiver.partitions as Record<string, { state: string; exporter?: string }>);
    assert.ok(
      waiting.some((p) => p.state === 'waiting' && p.exporter === 'otlphttp/backend'),
      JSON.stringify(receiver),
    );
    assert.ok(sink.refused() >= 2);
    assert.equal(sink.bodies.length, 0);

    sink.recover();
    await waitUntil(
      async () => ((await httpGet(health)).status === 200 ? true : undefined),
      30_000,
      `${backend}: ready after recovery`,
    );
    await waitUntil(
      async () => (sent.every((b) => sink.bodies.includes(b)) ? true : undefined),
      30_000,
      `${backend}: every event delivered`,
    );
    cli.child.kill('SIGTERM');
    assert.equal(await cli.exited(60_000), 0, cli.stderr().slice(-2000));
  }

  await Promise.all([run('polling'), run('streaming')]);
});
