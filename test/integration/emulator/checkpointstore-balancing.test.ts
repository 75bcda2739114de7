import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ContainerClient } from '@azure/storage-blob';
import { BlobCheckpointStore } from '@azure/eventhubs-checkpointstore-blob';
import { EventHubConsumerClient, EventHubProducerClient, earliestEventPosition } from '@azure/event-hubs';
import { startAzurite, randomName } from '../../helpers/azurite.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { FAST_RETRY, waitFor } from './sdk-helpers.ts';

const PARTITIONS = 4;

test(
  'two EventHubConsumerClients with the blob checkpoint store on Azurite share the partitions, as on ' + 'Azure',
  async (t) => {
    // Azurite is stopped after the emulator helper's cleanup (hooks run in registration order): the
    // subscriptions write their ownership blobs while they close.
    const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: PARTITIONS });
    const azurite = await startAzurite();
    t.after(() => azurite.stop());
    const container = new ContainerClient(azurite.connectionString.replace(/;$/, ''), randomName('ckpt'));
    await container.create();
    const producer = track(new EventHubProducerClient(connectionString));
    for (let p = 0; p < PARTITIONS; p++)
      await producer.sendBatch([{ body: { p, n: 0 } }, { body: { p, n: 1 } }], { partitionId: String(p) });

    const owned = [new Set<string>(), new Set<string>()];
    const seen = new Set<string>();
    const options = {
      retryOptions: FAST_RETRY,
      loadBalancingOptions: {
        strategy: 'greedy' as const,
        updateIntervalInMs: 300,
        partitionOwnershipExpirationIntervalInMs: 6_000,
      },
    };
    // Clients first, subscriptions second: cleanup closes in reverse, so both subscriptions stop before
    // either client closes (a live processor would otherwise start claiming the closing client's partitions).
    const clients = [0, 1].map(() =>
      track(new EventHubConsumerClient('$Default', connectionString, new BlobCheckpointStore(container), options)),
    );
    clients.forEach((client, i) => {
      track(
        client.subscribe(
          {
            processInitialize: async (ctx) => void owned[i]!.add(ctx.partitionId),
            processClose: async (_reason, ctx) => void owned[i]!.delete(ctx.partitionId),
            processEvents: async (events, ctx) => {
              for (const e of events) seen.add(`${ctx.partitionId}/${e.sequenceNumber}`);
              if (events.length > 0) await ctx.updateCheckpoint(events[events.length - 1]!);
            },
            processError: async () => undefined,
          },
          { startPosition: earliestEventPosition, maxWaitTimeInSeconds: 1 },
        ),
      );
    });

    // The emulator's view decides: the open receiver links, one per partition, split 2/2 over the clients.
    const openLinks = () => emulator.audit.records.filter((r) => r.detachedAt === undefined);
    const split = () => {
      const links = openLinks();
      const perConnection = new Map<string, number>();
      for (const l of links) perConnection.set(l.connectionId, (perConnection.get(l.connectionId) ?? 0) + 1);
      return (
        links.length === PARTITIONS &&
        new Set(links.map((l) => l.partitionId)).size === PARTITIONS &&
        perConnection.size === 2 &&
        [...perConnection.values()].every((n) => n === 2)
      );
    };
    await waitFor(split, 45_000, () => `a 2/2 split (SDK callbacks say ${owned[0]!.size}/${owned[1]!.size})`);
    await waitFor(() => seen.size === PARTITIONS * 2, 15_000, 'every event processed');

    // An event is seen before its batch's checkpoint is written (processEvents awaits updateCheckpoint
    // after recording it), and a partition moved by the balancing is read again from its last checkpoint
    // by its new owner: wait for the store itself to hold every partition's last event.
    const store = new BlobCheckpointStore(container);
    const ns = new URL(connectionString.split(';')[0]!.replace('Endpoint=', '')).hostname;
    let checkpoints: Awaited<ReturnType<typeof store.listCheckpoints>> = [];
    await waitFor(
      async () => {
        checkpoints = await store.listCheckpoints(ns, hubName, '$Default');
        return checkpoints.length === PARTITIONS && checkpoints.every((c) => c.sequenceNumber === 1);
      },
      15_000,
      () =>
        `a checkpoint at sequence number 1 for each partition (store: ${checkpoints
          .map((c) => `${c.partitionId}@${c.sequenceNumber}`)
          .join(', ')})`,
    );
    assert.equal(checkpoints.length, PARTITIONS, 'the store reads back one checkpoint per partition');
    for (const c of checkpoints) assert.equal(c.sequenceNumber, 1);
    // The ownership blobs trail the links (a claim is written by the processor's next balancing round, and
    // the processors keep re-balancing at 300 ms): wait for a moment where both show the two clients.
    let owners: string[] = [];
    await waitFor(
      async () => {
        const ownerships = await store.listOwnership(ns, hubName, '$Default');
        owners = [...new Set(ownerships.map((o) => o.ownerId).filter(Boolean))];
        return owners.length === 2 && split();
      },
      30_000,
      () => `two owners in the ownership blobs (found ${owners.length}) while the links are split 2/2`,
    );

    // The processors read with owner level 0: readers moved by the balancing were detached by the emulator
    // (amqp:link:stolen) before the new owner attached, so the audit never shows two readers at once.
    assert.deepEqual(emulator.audit.overlaps(), []);
    assert.ok(emulator.audit.records.every((r) => r.epoch === 0));
  },
);
