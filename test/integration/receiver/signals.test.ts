/**
 * One receiver feeding a logs, a metrics and a traces pipeline, on the emulator and Azurite: each pipeline
 * gets only its signal, and a partition's checkpoint passes an event only once every part was accepted.
 *
 * The first test runs the whole receiver on Azure records (resource logs, platform metrics, Application
 * Insights requests) and checks the routing of whatever the `azure` decoder makes of them. The second says
 * what the decoder makes of them (points and spans). The third drives the
 * partition pump with a decoder the test controls, so metric points and spans go through the real backend,
 * the router, the dead-letter store and blob checkpoints today.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlobServiceClient } from '@azure/storage-blob';
import { startAzurite, randomName, type Azurite } from '../../helpers/azurite.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { createAzureEventHubReceiver } from '../../../src/index.ts';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { createHubClient } from '../../../src/backends/create-hub-client.ts';
import type { ReceivedEvent } from '../../../src/backends/consumer.ts';
import type { Decoder } from '../../../src/decode/decoder.ts';
import { BlobCheckpointStore } from '../../../src/ownership/blob-checkpoint-store.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import { routeSignals } from '../../../src/pipeline/signal-router.ts';
import { DirectoryDeadLetterStore } from '../../../src/pipeline/directory-dead-letter-store.ts';
import { parseDeadLetterLine } from '../../../src/pipeline/dead-letter-format.ts';
import type { MetricPoint, Signal, SpanRecord } from '../../../src/pipeline/signals.ts';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { PartitionPump } from '../../../src/receiver/partition-pump.ts';
import { Checkpointer } from '../../../src/receiver/checkpointer.ts';
import { createPumpCounters } from '../../../src/receiver/internal/pump-counters.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import { ATTR_EVENTHUBS_SEQUENCE_NUMBER } from '../../../src/decode/index.ts';
import { makePoint, makeRecord, makeSpan } from '../../unit/pipeline/records.ts';
import { until } from './harness.ts';

const ALL: ReadonlySet<Signal> = new Set(['logs', 'metrics', 'traces']);
const RESOURCE =
  '/SUBSCRIPTIONS/00000000-0000-0000-0000-000000000000/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.WEB/SITES/APP';

let azurite: Azurite;
let blobs: BlobServiceClient;
before(async () => {
  azurite = await startAzurite();
  blobs = BlobServiceClient.fromConnectionString(azurite.connectionString);
});
after(() => azurite?.stop());

/** An Azure Monitor body with a resource log, a platform metric and an Application Insights request. */
function azureBody(p: number, i: number): string {
  const time = new Date(Date.UTC(2026, 10, 23, 10, 0, i)).toISOString();
  return JSON.stringify({
    records: [
      {
        time,
        resourceId: RESOURCE,
        category: 'AppServiceHTTPLogs',
        operationName: 'Microsoft.Web/sites/log',
        properties: { n: i },
      },
      {
        time,
        resourceId: RESOURCE,
        metricName: 'Requests',
        timeGrain: 'PT1M',
        total: i + 1,
        count: 1,
        minimum: i + 1,
        maximum: i + 1,
        average: i + 1,
      },
      {
        time,
        resourceId: RESOURCE,
        Type: 'AppRequests',
        Name: `GET /p${p}/${i}`,
        Id: (p * 1000 + i + 1).toString(16).padStart(16, '0'),
        OperationId: (p * 1000 + i + 1).toString(16).padStart(32, '0'),
        ParentId: '',
        Success: true,
        ResultCode: '200',
        DurationMs: 12.5,
        Url: `https://app.example.com/p${p}/${i}`,
        AppRoleName: 'app',
      },
    ],
  });
}

/** What the `azure` decoder makes of `bodies` when it feeds all three signals. */
function referenceDecode(bodies: readonly string[]) {
  const decode = createDecoder({ format: 'azure', signals: ALL });
  const events: ReceivedEvent[] = bodies.map((body, i) => ({
    body: new TextEncoder().encode(body),
    sequenceNumber: i,
    offset: String(i),
    enqueuedTime: new Date(),
  }));
  return decode(events, { namespace: 'ns', eventHubName: 'hub', consumerGroup: '$Default', partitionId: '0' });
}

const PARTITIONS = 2;
const PER_PARTITION = 40;
const bodiesOf = (p: number) => Array.from({ length: PER_PARTITION }, (_, i) => azureBody(p, i));
const reference = referenceDecode(Array.from({ length: PARTITIONS }, (_, p) => bodiesOf(p)).flat());

describe('one receiver, three signals (emulator and Azurite)', () => {
  test('each consumer gets exactly its signal of what was decoded; checkpoints pass every event', {
    timeout: 90_000,
  }, async (t) => {
    const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: PARTITIONS });
    for (let p = 0; p < PARTITIONS; p++)
      emulator.append(
        hubName,
        String(p),
        bodiesOf(p).map((body) => ({ body })),
      );
    const logs = new InMemorySignalConsumer();
    const metrics = new InMemorySignalConsumer();
    const traces = new InMemorySignalConsumer();
    const container = randomName('signals');
    const receiver = createAzureEventHubReceiver(
      {
        connection: connectionString,
        start_position: 'earliest',
        poll_rate: 0.2,
        max_poll_events: 25,
        checkpoint: { interval: '60s' },
        blob_checkpoint_store: {
          connection: azurite.connectionString,
          container_name: container,
          create_container: true,
        },
      },
      routeSignals([
        { signal: 'logs', consumer: logs },
        { signal: 'metrics', consumer: metrics },
        { signal: 'traces', consumer: traces },
      ]),
      { signals: ALL },
    );
    t.after(() => receiver.shutdown());
    await receiver.start();
    const want = {
      logs: reference.records.length,
      metrics: reference.metrics?.length ?? 0,
      traces: reference.spans?.length ?? 0,
    };
    t.diagnostic(`the decoder made ${want.logs} log records, ${want.metrics} metric points, ${want.traces} spans`);
    await until(
      () =>
        logs.records().length >= want.logs &&
        metrics.metricPoints().length >= want.metrics &&
        traces.spans().length >= want.traces,
      60_000,
      'every item of every signal',
    );
    await receiver.shutdown();

    assert.equal(logs.records().length, want.logs, 'each log record exactly once');
    assert.equal(metrics.metricPoints().length, want.metrics);
    assert.equal(traces.spans().length, want.traces);
    assert.ok(
      logs.batches.every((b) => !b.metrics?.length && !b.spans?.length),
      'the logs pipeline sees log records only',
    );
    assert.ok(
      metrics.batches.every((b) => b.records.length === 0 && !b.spans?.length),
      'the metrics pipeline sees metric points only',
    );
    assert.ok(
      traces.batches.every((b) => b.records.length === 0 && !b.metrics?.length),
      'the traces pipeline sees spans only',
    );
    if (want.metrics === 0) assert.equal(metrics.calls, 0, 'no metric points: the metrics pipeline is never called');

    const counters = receiver.stats().counters;
    assert.deepEqual(
      [counters.recordsAccepted, counters.metricPointsAccepted, counters.spansAccepted, counters.itemsWithoutPipeline],
      [want.logs, want.metrics, want.traces, 0],
    );
    // The final checkpoints, read back from blob storage: every partition passed its last event.
    const hubHost = new URL(connectionString.split(';')[0]!.replace('Endpoint=sb://', 'http://')).hostname;
    const scope = { fullyQualifiedNamespace: hubHost, eventHubName: hubName, consumerGroup: '$Default' };
    const checkpoints = await new BlobCheckpointStore(blobs.getContainerClient(container)).list(scope);
    assert.deepEqual(
      checkpoints.map((c) => [c.partitionId, c.sequenceNumber]).sort(),
      Array.from({ length: PARTITIONS }, (_, p) => [String(p), PER_PARTITION - 1]),
    );
  });

  test('the azure decoder makes metric points of metric records and spans of AppRequests', () => {
    const events = PARTITIONS * PER_PARTITION;
    assert.equal(reference.records.length, events, 'only the resource log of each event stays a log record');
    assert.ok((reference.metrics?.length ?? 0) >= events, 'at least one point per metric record');
    assert.ok(
      reference.metrics!.every((m) => m.name.toLowerCase().includes('requests')),
      'named after metricName',
    );
    assert.equal(reference.spans?.length, events, 'one span per AppRequests record');
    assert.ok(
      reference.spans!.every((s) => s.kind === 2),
      'server spans',
    );
  });

  test('metric points and spans through the real backend: routed, dead-lettered by event, checkpointed in blob ' +
    'storage', {
    timeout: 90_000,
  }, async (t) => {
    const { emulator, hubName, connectionString, consumerGroup, track } = await startTestEmulator(t, { partitions: 1 });
    // Event n holds a log record (n % 3 = 0), two metric points (1) or a span (2), as its body says.
    const kinds = Array.from({ length: 60 }, (_, n) => ['log', 'metric', 'span'][n % 3]!);
    emulator.append(
      hubName,
      '0',
      kinds.map((kind) => ({ body: kind })),
    );
    const decode: Decoder = (events) => {
      const records: ReadableLogRecord[] = [];
      const points: MetricPoint[] = [];
      const spans: SpanRecord[] = [];
      for (const e of events) {
        const n = e.sequenceNumber;
        const seq = { [ATTR_EVENTHUBS_SEQUENCE_NUMBER]: n };
        const kind = new TextDecoder().decode(e.body);
        if (kind === 'log') records.push(makeRecord(`r${n}`, seq));
        else if (kind === 'metric') points.push(makePoint(`p${n}.a`, n, seq), makePoint(`p${n}.b`, n, seq));
        else spans.push(makeSpan(`s${n}`, n, seq));
      }
      return { records, metrics: points, spans, stats: { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0 } };
    };
    const logs = new InMemorySignalConsumer();
    // The metrics pipeline refuses its first batch for good: those points' events go to the dead-letter store.
    const metrics = new InMemorySignalConsumer().failNext(1, 'permanent');
    const traces = new InMemorySignalConsumer();
    const dir = await mkdtemp(join(tmpdir(), 'signals-dlq-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const container = blobs.getContainerClient(randomName('signals'));
    await container.create();
    const hub = track(createHubClient('polling', { connectionString, consumerGroup }));
    const scope = { fullyQualifiedNamespace: hub.fullyQualifiedNamespace, eventHubName: hubName, consumerGroup };
    const store = new BlobCheckpointStore(container);
    const counters = createPumpCounters();
    const pump = new PartitionPump({
      hub,
      partitionId: '0',
      start: { kind: 'earliest' },
      prefetchCount: 30,
      maxBatchSize: 30,
      maxWaitMs: 200,
      decode,
      context: { namespace: scope.fullyQualifiedNamespace, eventHubName: hubName, consumerGroup, partitionId: '0' },
      consumer: routeSignals([
        { signal: 'logs', consumer: logs },
        { signal: 'metrics', consumer: metrics },
        { signal: 'traces', consumer: traces },
      ]),
      checkpointer: new Checkpointer({ store, scope, partitionId: '0', intervalMs: 60_000, everyNEvents: 1 }),
      deadLetter: new DirectoryDeadLetterStore(dir),
      signals: ALL,
      counters,
      logger: noopLogger,
      emit: () => {},
    });
    const running = pump.run();
    t.after(() => pump.kill());
    await until(() => pump.lastSequenceNumber === 59, 60_000, 'every event delivered or dead-lettered');
    await pump.stop(5_000);
    assert.equal((await running).reason, 'stopped');

    // The first batch (events 0..29): its 10 metric events were refused by the metrics pipeline.
    const files = (await readdir(dir, { recursive: true })).filter((f) => String(f).endsWith('.jsonl'));
    const lines = (await Promise.all(files.map((f) => readFile(join(dir, String(f)), 'utf8'))))
      .join('')
      .trim()
      .split('\n');
    const dead = lines.map((l) => parseDeadLetterLine(l));
    const refusedSeqs = dead.map((d) => d.record.event.sequence_number as number);
    assert.ok(
      refusedSeqs.length > 0 && refusedSeqs.every((n) => n % 3 === 1),
      `only metric events: ${refusedSeqs.join(',')}`,
    );
    assert.ok(
      dead.every(
        (d) => JSON.stringify(d.record.signals) === '["metrics"]' && new TextDecoder().decode(d.body) === 'metric',
      ),
    );
    const deliveredPoints = metrics.metricPoints().map((p) => Number(p.attributes[ATTR_EVENTHUBS_SEQUENCE_NUMBER]));
    assert.deepEqual(
      [...new Set([...deliveredPoints, ...refusedSeqs])].sort((a, b) => a - b),
      kinds.flatMap((k, n) => (k === 'metric' ? [n] : [])),
      'every metric event is either delivered or dead-lettered',
    );
    assert.deepEqual(
      logs.records().map((r) => r.body),
      kinds.flatMap((k, n) => (k === 'log' ? [`r${n}`] : [])),
      'every log record once, in order',
    );
    assert.deepEqual(
      traces.spans().map((s) => s.name),
      kinds.flatMap((k, n) => (k === 'span' ? [`s${n}`] : [])),
      'every span once, in order',
    );
    assert.equal(counters.metricPointsRefused, refusedSeqs.length * 2);
    assert.equal(counters.metricPointsAccepted, deliveredPoints.length);
    assert.equal(counters.spansAccepted, 20);
    assert.equal(counters.recordsAccepted, 20);
    assert.equal((await store.read(scope, '0'))?.sequenceNumber, 59, 'checkpointed in blob storage past every event');
  });
});
