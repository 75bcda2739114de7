/**
 * Issue 15, "Done when" 3: kill -9 of the CLI in the middle of a mixed-signal stream (resource logs,
 * platform metrics, Application Insights operations on the same partitions), then a restart on the same
 * config (test/fixtures/config/go_all_signals.yaml, checkpoints in Azurite): nothing is lost in any signal.
 * At-least-once: items exported before the kill but not yet checkpointed come again; duplicates are
 * allowed and reported, never an item missing. Issue 25: with `record_uid`, a log record exported twice carries
 * the same `log.record.uid` both times, and records of different events (or of one event) never share one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { randomName, startAzurite } from '../helpers/azurite.ts';
import { startTestEmulator } from '../helpers/emulator.ts';
import { startCli, waitUntil, type CliProcess } from './cli-process.ts';
import {
  allPartitionsOwned,
  logRecordsByEvent,
  logRecordUids,
  metricPoints,
  MixedStream,
  readSignalFile,
  spans,
  tally,
} from './signal-files.ts';

const CONFIG = join(import.meta.dirname, '../fixtures/config/go_all_signals.yaml');
const PARTITIONS = 2;
/** Pace of the producer: one event per tick. */
const PRODUCE_EVERY_MS = 20;
/** Events sent at least before the kill (with some of every signal exported by then). */
const EVENTS_BEFORE_KILL = 60;
/** Events still sent after the kill, while no collector runs. */
const EVENTS_AFTER_KILL = 60;

const NAME = 'kill -9 in the middle of a mixed-signal stream, restart: nothing lost in logs, metrics or traces';

test(NAME, { timeout: 240_000 }, async (t) => {
  const azurite = await startAzurite();
  t.after(() => azurite.stop());
  const eh = await startTestEmulator(t, { partitions: PARTITIONS });
  const dir = await mkdtemp(join(tmpdir(), 'otelcol-crash-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const container = randomName('ckpt');
  await BlobServiceClient.fromConnectionString(azurite.connectionString).createContainer(container);
  const env = (run: string) => ({
    EVENTHUB_CONNECTION: eh.connectionString,
    CONSUMER_GROUP: eh.consumerGroup,
    STORAGE_CONNECTION: azurite.connectionString,
    CHECKPOINT_CONTAINER: container,
    OUT_DIR: join(dir, run),
  });
  // The shortest lease: the successor waits for the dead instance's leases to lapse (the default 30 s).
  const args = [
    '--config',
    CONFIG,
    '--set',
    'service.telemetry.metrics.address=127.0.0.1:0',
    '--set',
    'receivers.azure_event_hub.ownership.lease_duration=15s',
    // The event metadata names each log record's event; the uid is what a backend would de-duplicate on.
    '--set',
    'receivers.azure_event_hub.event_metadata=messaging',
    '--set',
    'receivers.azure_event_hub.record_uid=true',
  ];
  const start = (run: string): CliProcess => startCli(t, args, env(run));

  const first = start('run1');
  await allPartitionsOwned(first, PARTITIONS, 60_000);

  const stream = new MixedStream(PARTITIONS);
  const producer = setInterval(() => {
    const e = stream.next();
    eh.emulator.append(eh.hubName, e.partition, [{ body: e.body }]);
  }, PRODUCE_EVERY_MS);
  t.after(() => clearInterval(producer));

  // Kill once the first instance has exported some of every signal, with the stream still flowing.
  const readRun = async (run: string, allowTornTail: boolean) => ({
    logs: await readSignalFile(join(dir, run, 'logs.jsonl'), 'logs', { allowTornTail }),
    metrics: await readSignalFile(join(dir, run, 'metrics.jsonl'), 'metrics', { allowTornTail }),
    traces: await readSignalFile(join(dir, run, 'traces.jsonl'), 'traces', { allowTornTail }),
  });
  await waitUntil(
    async () => {
      const f = await readRun('run1', true);
      const some = f.logs.requests.length > 0 && f.metrics.requests.length > 0 && f.traces.requests.length > 0;
      return some && stream.events.length >= EVENTS_BEFORE_KILL ? true : undefined;
    },
    60_000,
    `the first instance to export some of every signal, ${EVENTS_BEFORE_KILL} events sent`,
  );
  first.child.kill('SIGKILL');
  assert.equal(await first.exited(10_000), 137);
  const killedAt = stream.events.length;
  const sentAfterKill = async () => (stream.events.length >= killedAt + EVENTS_AFTER_KILL ? true : undefined);
  await waitUntil(sentAfterKill, 30_000, 'events sent after the kill');
  clearInterval(producer);
  const sent = stream.events.length;

  // The successor takes the partitions over once the dead instance's leases expire, and continues from
  // the checkpoints in Azurite.
  const second = start('run2');
  const union = async () => {
    const a = await readRun('run1', true);
    const b = await readRun('run2', false);
    return {
      a,
      b,
      logs: [...a.logs.requests, ...b.logs.requests],
      metrics: [...a.metrics.requests, ...b.metrics.requests],
      traces: [...a.traces.requests, ...b.traces.requests],
    };
  };
  const complete = (u: Awaited<ReturnType<typeof union>>): boolean => {
    const logs = logRecordsByEvent(u.logs);
    const points = new Set(metricPoints(u.metrics).map((p) => p.key));
    const ids = new Set(spans(u.traces).map((s) => s.spanId));
    return (
      [...stream.logs].every(([k, n]) => (logs.get(k) ?? 0) >= n) &&
      [...stream.metrics.keys()].every((k) => points.has(k)) &&
      [...stream.spans.keys()].every((id) => ids.has(id))
    );
  };
  const allExported = async () => (complete(await union()) ? true : undefined);
  // The assertions below judge, and name what is missing when this wait ran out.
  await waitUntil(allExported, 120_000, `every item of the ${sent} events exported by the two instances`).catch(
    (error: unknown) => t.diagnostic(String(error)),
  );
  second.child.kill('SIGTERM');
  assert.equal(await second.exited(60_000), 0, second.stderr().slice(-3000));

  const u = await union();
  // Logs: every event's records, at least once each; a duplicate event comes whole (its batch again).
  const logs = logRecordsByEvent(u.logs);
  assert.deepEqual(
    [...stream.logs].filter(([k, n]) => (logs.get(k) ?? 0) < n),
    [],
    'log events with records missing',
  );
  assert.deepEqual(
    [...logs.keys()].filter((k) => !stream.logs.has(k)),
    [],
    "no log record from another signal's event",
  );
  const logDuplicates = [...stream.logs].filter(([k, n]) => logs.get(k)! > n).length;

  // log.record.uid: one per expected record, whichever instance exported it and however often.
  const uids = logRecordUids(u.logs);
  assert.deepEqual(
    uids.filter((r) => typeof r.uid !== 'string'),
    [],
    'every log record has a uid',
  );
  const eventOfUid = new Map<unknown, string>();
  for (const r of uids) {
    const seen = eventOfUid.get(r.uid);
    assert.ok(
      seen === undefined || seen === r.event,
      `uid ${String(r.uid)} on records of events ${seen} and ${r.event}`,
    );
    eventOfUid.set(r.uid, r.event);
  }
  assert.equal(
    eventOfUid.size,
    stream.logRecordCount(),
    'distinct uids = records sent: a re-exported record kept its uid',
  );
  const reExported = uids.length - eventOfUid.size;

  const points = metricPoints(u.metrics);
  const pointCounts = tally(points.map((p) => p.key));
  assert.deepEqual(
    [...stream.metrics.keys()].filter((k) => !pointCounts.has(k)),
    [],
    'metric points missing',
  );
  assert.deepEqual(
    [...pointCounts.keys()].filter((k) => !stream.metrics.has(k)),
    [],
    'no unexpected metric point',
  );
  for (const p of points) assert.equal(p.value, stream.metrics.get(p.key), `value of ${p.key}`);

  const exported = spans(u.traces);
  const spanCounts = tally(exported.map((s) => s.spanId));
  assert.deepEqual(
    [...stream.spans.keys()].filter((id) => !spanCounts.has(id)),
    [],
    'spans missing',
  );
  assert.deepEqual(
    [...spanCounts.keys()].filter((id) => !stream.spans.has(id)),
    [],
    'no unexpected span',
  );
  for (const s of exported)
    assert.equal(s.traceId, stream.spans.get(s.spanId)!.traceId, `trace id of span ${s.spanId}`);

  // The successor did real work: events sent after the kill were exported by it, not before.
  const successor = [u.b.logs, u.b.metrics, u.b.traces];
  assert.ok(
    successor.every((f) => f.requests.length > 0),
    'the successor exported every signal',
  );
  const torn = [u.a.logs, u.a.metrics, u.a.traces].filter((f) => f.tornTail).length;
  t.diagnostic(
    `${sent} events (${killedAt} before the kill); duplicates: ${logDuplicates} log events ` +
      `(${reExported} records, each with the uid of its first export), ` +
      `${[...pointCounts.values()].filter((n) => n > 1).length} metric points, ` +
      `${[...spanCounts.values()].filter((n) => n > 1).length} spans; ` +
      `${torn} file(s) with a line cut by the kill`,
  );
});
