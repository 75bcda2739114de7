/**
 * The hub is the buffer: an OTLP endpoint answering 503 for longer than every max_elapsed_time, with no
 * dead-letter store, loses nothing and checkpoints nothing past an unexported event; the partitions hold
 * their batches (memory bounded by `max_batches_in_flight` + 1 batches each: those held and the next one,
 * decoded) and resume when the endpoint returns.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { startOtlpServer } from '../exporters/otlp-server.ts';
import { createOtlpHttpExporter, otlpHttpExporterConfigSchema } from '../../../src/exporters/otlp-http-exporter.ts';
import { BlobCheckpointStore } from '../../../src/ownership/blob-checkpoint-store.ts';
import type { ReceiverStatus } from '../../../src/receiver/receiver-status.ts';
import { BACKENDS, preload, startReceiver, until } from './harness.ts';
import { DEFAULT_MAX_BATCHES_IN_FLIGHT } from '../../../src/config/receiver-defaults.ts';

const PARTITIONS = 2;
const PER_PARTITION = 400;
const MAX_POLL = 50;

/** Sequence numbers per partition of every record the server accepted (200), from the JSON bodies. */
function accepted(server: Awaited<ReturnType<typeof startOtlpServer>>, statuses: number[]): Map<string, number[]> {
  const out = new Map<string, number[]>();
  server.requests.forEach((req, i) => {
    if (statuses[i] !== 200) return;
    for (const rl of req.json.resourceLogs)
      for (const sl of rl.scopeLogs)
        for (const r of sl.logRecords) {
          const attr = (k: string) => r.attributes.find((a: any) => a.key === k)?.value;
          const pid = String(attr('messaging.destination.partition.id')?.stringValue);
          const seq = Number(attr('azure.eventhubs.message.sequence_number')?.intValue);
          out.set(pid, [...(out.get(pid) ?? []), seq]);
        }
  });
  return out;
}

for (const backend of BACKENDS) {
  describe(`exporter outage on the ${backend} backend`, () => {
    test('503 for longer than max_elapsed_time, no dead_letter: nothing lost, nothing checkpointed past, bounded', {
      timeout: 120_000,
    }, async (t) => {
      const azurite = await startAzurite();
      t.after(() => azurite.stop());
      const { emulator, hubName, connectionString } = await startTestEmulator(t, { partitions: PARTITIONS });
      const containerName = randomName('outage');
      const container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(
        containerName,
      );
      await container.create();
      const server = await startOtlpServer();
      t.after(() => server.close());
      // Every request answered 503 until the outage ends; the statuses of the requests, in order.
      let down = true;
      const statuses: number[] = [];
      const script = server.script as { status: number }[];
      const feed = setInterval(() => {
        while (down && script.length < 50) script.push({ status: 503 });
      }, 5);
      t.after(() => clearInterval(feed));
      const origPush = server.requests.push.bind(server.requests);
      server.requests.push = (...items) => {
        for (let i = 0; i < items.length; i++) statuses.push(down ? 503 : 200);
        return origPush(...items);
      };
      const exporter = await createOtlpHttpExporter(
        otlpHttpExporterConfigSchema.parse({
          endpoint: server.url,
          encoding: 'json',
          compression: 'none',
          retry_on_failure: { initial_interval: '50ms', max_interval: '200ms', max_elapsed_time: '500ms' },
        }),
      );
      preload(emulator, hubName, PARTITIONS, PER_PARTITION);
      const receiver = startReceiver(
        t,
        {
          connection: connectionString,
          backend,
          format: 'raw',
          start_position: 'earliest',
          max_poll_events: MAX_POLL,
          prefetch_count: 100,
          checkpoint: { interval: '100ms' },
          retry_on_failure: { initial_interval: '50ms', max_interval: '200ms', max_elapsed_time: '500ms' },
          blob_checkpoint_store: { connection: azurite.connectionString, container_name: containerName },
          ownership: { update_interval: '1s' },
        },
        exporter,
      );
      const events: ReceiverStatus[] = [];
      receiver.onStatus((s) => events.push(s));
      await receiver.start();

      // Far longer than every max_elapsed_time (receiver and exporter: 0.5 s each).
      await until(
        () => receiver.stats().counters.exportHolds >= 4 * PARTITIONS,
        30_000,
        'the partitions holding their batches',
      );
      const store = new BlobCheckpointStore(container);
      const scope = {
        fullyQualifiedNamespace: new URL(
          connectionString.split(';')[0]!.replace('Endpoint=', '').replace('sb://', 'http://'),
        ).host,
        eventHubName: hubName,
        consumerGroup: '$Default',
      };
      const outageChecks = [];
      for (let i = 0; i < 5; i++) {
        const s = receiver.stats();
        outageChecks.push(s.counters.eventsReceived - s.counters.recordsAccepted);
        assert.ok(
          s.partitions.every((p) => p.state === 'retrying'),
          'every partition reports retrying',
        );
        await new Promise((r) => setTimeout(r, 400));
      }
      // Nothing was accepted, so no checkpoint may be past the start (the first owner's resolved position).
      for (const cp of await store.list(scope))
        assert.ok(
          cp.sequenceNumber < 0,
          `partition ${cp.partitionId}: checkpoint ${cp.sequenceNumber} during the outage`,
        );
      // Memory: per partition, the batches held and the next one decoded behind them; nothing more is pulled in.
      const held = Math.max(...outageChecks);
      t.diagnostic(
        `held during the outage: ${held} records; holds ${receiver.stats().counters.exportHolds}; requests ` +
          `${server.requests.length}`,
      );
      assert.ok(held <= PARTITIONS * (DEFAULT_MAX_BATCHES_IN_FLIGHT + 1) * MAX_POLL, `held ${held} records`);
      assert.equal(receiver.stats().counters.recordsRefused, 0);
      assert.equal(receiver.stats().counters.eventsDropped, 0);

      // Same tick: requests from now on get the server's default 200, and are recorded as such.
      down = false;
      script.length = 0;
      await until(
        () =>
          [...accepted(server, statuses).values()].reduce((n, l) => n + new Set(l).size, 0) >=
          PARTITIONS * PER_PARTITION,
        60_000,
        'everything exported',
      );
      await receiver.shutdown();
      const got = accepted(server, statuses);
      for (let p = 0; p < PARTITIONS; p++) {
        const seqs = got.get(String(p)) ?? [];
        assert.deepEqual(
          [...new Set(seqs)].sort((a, b) => a - b),
          Array.from({ length: PER_PARTITION }, (_, i) => i),
          `partition ${p}: nothing lost`,
        );
      }
      for (const cp of await store.list(scope))
        assert.equal(cp.sequenceNumber, PER_PARTITION - 1, `partition ${cp.partitionId}: final checkpoint`);
    });
  });
}
