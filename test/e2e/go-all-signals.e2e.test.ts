/**
 * Issue 15, "Done when" 1: a Go collector config with logs, metrics and traces pipelines on one
 * azure_event_hub receiver (test/fixtures/config/go_all_signals.yaml) runs unchanged against the emulator
 * and Azurite; each signal reaches its own file exporter, each file holds only its signal with every item
 * the events produce (exactly once: nothing restarts here), and every line passes the strict OTLP decoder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { randomName, startAzurite } from '../helpers/azurite.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { startCli, waitUntil } from './cli-process.ts';
import {
  allPartitionsOwned,
  logRecordsByEvent,
  metricPoints,
  MixedStream,
  readSignalFile,
  spans,
  tally,
} from './signal-files.ts';

const CONFIG = join(import.meta.dirname, '../fixtures/config/go_all_signals.yaml');
const PARTITIONS = 2;
/** Events sent: a third of each signal, every partition gets every signal. */
const EVENTS = 24;

const NAME =
  'a Go config with logs, metrics and traces pipelines on one receiver runs unchanged: each signal to its file, ' +
  'strictly valid OTLP';

test(NAME, { timeout: 180_000 }, async (t) => {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const eh = await startTestEmulator(t, { partitions: PARTITIONS });
  const dir = await mkdtemp(join(tmpdir(), 'otelcol-signals-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  // The Go receiver needs the container to exist (it has no create_container); a user creates it once.
  const container = randomName('ckpt');
  await BlobServiceClient.fromConnectionString(azurite.connectionString).createContainer(container);

  // The event metadata names each log record's event (partition/sequence); the rest is the Go config unchanged.
  const metadata = ['--set', 'receivers.azure_event_hub.event_metadata=messaging'];
  const cli = startCli(t, ['--config', CONFIG, '--set', 'service.telemetry.metrics.address=127.0.0.1:0', ...metadata], {
    EVENTHUB_CONNECTION: eh.connectionString,
    CONSUMER_GROUP: eh.consumerGroup,
    STORAGE_CONNECTION: azurite.connectionString,
    CHECKPOINT_CONTAINER: container,
    OUT_DIR: dir,
  });
  // Without a checkpoint the Go receiver (and this one) starts at the latest event: send once every
  // partition is open.
  await allPartitionsOwned(cli, PARTITIONS, 60_000);

  const stream = new MixedStream(PARTITIONS);
  for (let i = 0; i < EVENTS; i++) {
    const e = stream.next();
    eh.emulator.append(eh.hubName, e.partition, [{ body: e.body }]);
  }
  const read = async () => ({
    logs: await readSignalFile(join(dir, 'logs.jsonl'), 'logs'),
    metrics: await readSignalFile(join(dir, 'metrics.jsonl'), 'metrics'),
    traces: await readSignalFile(join(dir, 'traces.jsonl'), 'traces'),
  });
  const expectedLogRecords = stream.logRecordCount();
  // Waits for the counts only; the assertions below judge, and name what is missing when the wait ran out.
  await waitUntil(
    async () => {
      const f = await read();
      const done =
        [...logRecordsByEvent(f.logs.requests).values()].reduce((a, b) => a + b, 0) >= expectedLogRecords &&
        metricPoints(f.metrics.requests).length >= stream.metrics.size &&
        spans(f.traces.requests).length >= stream.spans.size;
      return done ? true : undefined;
    },
    60_000,
    `${expectedLogRecords} log records, ${stream.metrics.size} points and ${stream.spans.size} spans in the files`,
  ).catch((error: unknown) => t.diagnostic(String(error)));
  // Stop gracefully first, so nothing is still being written when the files are read for the assertions.
  cli.child.kill('SIGTERM');
  assert.equal(await cli.exited(60_000), 0, cli.stderr().slice(-3000));
  const files = await read();

  // Logs: exactly the log events' records, none from a metric or trace event.
  const sorted = (m: Map<string, number>) => Object.fromEntries([...m].sort());
  assert.deepEqual(
    sorted(logRecordsByEvent(files.logs.requests)),
    sorted(stream.logs),
    'log records per event (partition/sequence)',
  );

  // Metrics: one gauge point per record and aggregation, with the record's value, nothing else.
  const points = metricPoints(files.metrics.requests);
  const pointCounts = tally(points.map((p) => p.key));
  assert.deepEqual(
    [...stream.metrics.keys()].filter((k) => !pointCounts.has(k)),
    [],
    'every metric point present',
  );
  assert.deepEqual(
    [...pointCounts.keys()].filter((k) => !stream.metrics.has(k)),
    [],
    'no unexpected metric point',
  );
  assert.deepEqual(
    [...pointCounts].filter(([, n]) => n > 1),
    [],
    'no duplicate metric point',
  );
  for (const p of points) assert.equal(p.value, stream.metrics.get(p.key), `value of ${p.key}`);

  // Traces: one span per Application Insights record, with its ids, name and start.
  const exported = spans(files.traces.requests);
  const spanCounts = tally(exported.map((s) => s.spanId));
  assert.deepEqual(
    [...stream.spans.keys()].filter((id) => !spanCounts.has(id)),
    [],
    'every span present',
  );
  assert.deepEqual(
    [...spanCounts.keys()].filter((id) => !stream.spans.has(id)),
    [],
    'no unexpected span',
  );
  assert.deepEqual(
    [...spanCounts].filter(([, n]) => n > 1),
    [],
    'no duplicate span',
  );
  for (const s of exported) {
    const want = stream.spans.get(s.spanId)!;
    assert.equal(s.traceId, want.traceId, `trace id of span ${s.spanId}`);
    assert.equal(s.name, want.name, `name of span ${s.spanId}`);
    assert.equal(s.startTimeUnixNano, want.startTimeUnixNano, `start of span ${s.spanId}`);
    if (want.parentSpanId !== undefined) assert.equal(s.parentSpanId, want.parentSpanId, `parent of span ${s.spanId}`);
  }
  const requests = files.logs.requests.length + files.metrics.requests.length + files.traces.requests.length;
  t.diagnostic(
    `${requests} requests accepted by the strict decoder: ${expectedLogRecords} log records, ` +
      `${points.length} metric points, ${exported.length} spans`,
  );
  const accountKey = azurite.connectionString.match(/AccountKey=([^;]+)/)![1]!;
  assert.ok(!cli.stderr().includes(accountKey), 'no account key in the logs');
});
