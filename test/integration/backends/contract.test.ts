/**
 * The shared consumer interface, one suite run unchanged against both backends and the emulator over
 * loopback TCP: properties, start positions, receive semantics, order, bounded buffering, owner level,
 * recovery from injected faults, SAS failures.
 */
import { test, describe } from 'node:test';
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { createHubClient } from '../../../src/backends/create-hub-client.ts';
import type {
  BackendKind,
  HubClient,
  PartitionReader,
  ReceivedEvent,
  StartPosition,
} from '../../../src/backends/consumer.ts';
import { BackendError, OwnershipLostError } from '../../../src/backends/consumer.ts';
import type { HubClientOptions } from '../../../src/backends/hub-client-options.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import type { TestEmulator } from '../../helpers/emulator.ts';
import { startByteCounter } from './tcp-byte-counter.ts';
import { waitUntil } from '../../helpers/wait-until.ts';

const SHORT_RETRY = { maxRetries: 3, retryDelayMs: 50, maxRetryDelayMs: 250, timeoutMs: 5_000 } as const;
const KINDS: readonly BackendKind[] = ['polling', 'streaming'];

/** Clients are closed before the emulator stops (after hooks run in registration order). */
function clientsFor(t: TestContext): (kind: BackendKind, options: HubClientOptions) => HubClient {
  const clients: HubClient[] = [];
  t.after(() => Promise.all(clients.map((c) => c.close())));
  return (kind, options) => {
    const c = createHubClient(kind, { retry: SHORT_RETRY, ...options });
    clients.push(c);
    return c;
  };
}

async function setup(
  t: TestContext,
  kind: BackendKind,
  partitions = 2,
): Promise<TestEmulator & { client: HubClient; make: ReturnType<typeof clientsFor> }> {
  const make = clientsFor(t);
  const env = await startTestEmulator(t, { partitions });
  const client = make(kind, { connectionString: env.connectionString, consumerGroup: env.consumerGroup });
  return { ...env, client, make };
}

function bodies(prefix: string, n: number, from = 0): { body: string; properties: Record<string, unknown> }[] {
  return Array.from({ length: n }, (_, i) => ({ body: `${prefix}-${from + i}`, properties: { i: from + i } }));
}

const text = (e: ReceivedEvent): string => Buffer.from(e.body).toString('utf8');

/** Receives until `count` events arrived or the deadline passed. */
async function collect(
  reader: PartitionReader,
  count: number,
  timeoutMs = 10_000,
  max = 100,
): Promise<ReceivedEvent[]> {
  const out: ReceivedEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  const signal = AbortSignal.timeout(timeoutMs + 1_000);
  while (out.length < count && Date.now() < deadline) {
    out.push(
      ...(await reader.receive(
        Math.min(max, count - out.length),
        Math.min(500, Math.max(1, deadline - Date.now())),
        signal,
      )),
    );
  }
  return out;
}

async function firstEvent(
  client: HubClient,
  partitionId: string,
  startPosition: StartPosition,
): Promise<ReceivedEvent | undefined> {
  const reader = await client.openPartition(partitionId, { startPosition, prefetchCount: 10 });
  try {
    return (await collect(reader, 1, 5_000))[0];
  } finally {
    await reader.close();
  }
}

for (const kind of KINDS) {
  describe(`${kind} backend`, () => {
    test('hub and partition properties match the emulator', async (t) => {
      const { emulator, hubName, client } = await setup(t, kind, 3);
      emulator.append(hubName, '1', bodies('p', 5));
      const hub = await client.getHubProperties();
      assert.equal(hub.name, hubName);
      assert.deepEqual([...hub.partitionIds], ['0', '1', '2']);
      assert.equal(client.eventHubName, hubName);
      assert.equal(client.fullyQualifiedNamespace, '127.0.0.1');
      const empty = await client.getPartitionProperties('0');
      assert.equal(empty.isEmpty, true);
      assert.equal(empty.lastEnqueuedSequenceNumber, -1);
      const p1 = await client.getPartitionProperties('1');
      assert.equal(p1.hubName, hubName);
      assert.equal(p1.partitionId, '1');
      assert.equal(p1.isEmpty, false);
      assert.equal(p1.beginningSequenceNumber, 0);
      assert.equal(p1.lastEnqueuedSequenceNumber, 4);
      assert.equal(typeof p1.lastEnqueuedOffset, 'string');
      assert.ok(p1.lastEnqueuedOnUtc instanceof Date && Math.abs(p1.lastEnqueuedOnUtc.getTime() - Date.now()) < 60_000);
      await assert.rejects(
        client.getPartitionProperties('99'),
        (e) => e instanceof BackendError && e.retryable === false,
      );
    });

    test('each start position returns exactly the right first event', async (t) => {
      const { emulator, hubName, client } = await setup(t, kind);
      emulator.append(hubName, '0', bodies('a', 4));
      await new Promise((r) => setTimeout(r, 15));
      emulator.append(hubName, '0', bodies('a', 4, 4));
      const all = await (async () => {
        const reader = await client.openPartition('0', { startPosition: { kind: 'earliest' }, prefetchCount: 20 });
        const events = await collect(reader, 8);
        await reader.close();
        return events;
      })();
      assert.deepEqual(
        all.map((e) => e.sequenceNumber),
        [0, 1, 2, 3, 4, 5, 6, 7],
      );
      assert.deepEqual(
        all.map(text),
        bodies('a', 8).map((b) => b.body),
      );
      const e3 = all[3]!;
      const seqOf = async (p: StartPosition): Promise<number | undefined> =>
        (await firstEvent(client, '0', p))?.sequenceNumber;
      assert.equal(await seqOf({ kind: 'sequenceNumber', sequenceNumber: 3, inclusive: true }), 3);
      assert.equal(await seqOf({ kind: 'sequenceNumber', sequenceNumber: 3, inclusive: false }), 4);
      assert.equal(await seqOf({ kind: 'offset', offset: e3.offset, inclusive: true }), 3);
      assert.equal(await seqOf({ kind: 'offset', offset: e3.offset, inclusive: false }), 4);
      // Enqueued time is exclusive: the first event enqueued strictly after event 3 (the second append).
      assert.ok(all[4]!.enqueuedTime.getTime() > e3.enqueuedTime.getTime());
      assert.equal(await seqOf({ kind: 'enqueuedTime', enqueuedTime: e3.enqueuedTime }), 4);
      // Latest: only what arrives after the reader attached.
      const reader = await client.openPartition('0', { startPosition: { kind: 'latest' }, prefetchCount: 10 });
      assert.deepEqual(await reader.receive(10, 500, AbortSignal.timeout(5_000)), []);
      emulator.append(hubName, '0', bodies('late', 1));
      const late = await collect(reader, 1, 5_000);
      await reader.close();
      assert.equal(late[0]?.sequenceNumber, 8);
      assert.equal(text(late[0]!), 'late-0');
    });

    test('receive returns at most max, [] after the wait when idle, and rejects promptly on abort', async (t) => {
      const { emulator, hubName, client } = await setup(t, kind);
      emulator.append(hubName, '1', bodies('r', 10));
      const reader = await client.openPartition('1', { startPosition: { kind: 'earliest' }, prefetchCount: 50 });
      const seen: ReceivedEvent[] = [];
      while (seen.length < 10) {
        const batch = await reader.receive(3, 5_000, AbortSignal.timeout(10_000));
        assert.ok(batch.length >= 1 && batch.length <= 3, `batch of ${batch.length}`);
        seen.push(...batch);
      }
      assert.equal(seen.length, 10);
      let started = Date.now();
      assert.deepEqual(await reader.receive(10, 300, AbortSignal.timeout(5_000)), []);
      assert.ok(Date.now() - started >= 250, 'waited for maxWaitMs');
      const ac = new AbortController();
      const reason = new Error('shutting down');
      started = Date.now();
      const pending = reader.receive(10, 60_000, ac.signal);
      setTimeout(() => ac.abort(reason), 50);
      await assert.rejects(pending, (e) => e === reason);
      assert.ok(Date.now() - started < 1_000, 'abort is prompt');
      // The reader still works after an aborted receive.
      emulator.append(hubName, '1', bodies('r', 1, 10));
      assert.equal((await collect(reader, 1))[0]?.sequenceNumber, 10);
      await reader.close();
      await reader.close();
    });

    test('keeps order within each partition, with properties and bodies intact', async (t) => {
      const { emulator, hubName, client } = await setup(t, kind);
      for (let i = 0; i < 5; i++) {
        emulator.append(hubName, '0', bodies('x', 100, i * 100));
        emulator.append(hubName, '1', bodies('y', 60, i * 60));
      }
      const [r0, r1] = await Promise.all(
        ['0', '1'].map((p) => client.openPartition(p, { startPosition: { kind: 'earliest' }, prefetchCount: 64 })),
      );
      const [e0, e1] = await Promise.all([collect(r0!, 500), collect(r1!, 300)]);
      assert.deepEqual(
        e0.map((e) => e.sequenceNumber),
        Array.from({ length: 500 }, (_, i) => i),
      );
      assert.deepEqual(
        e1.map((e) => e.sequenceNumber),
        Array.from({ length: 300 }, (_, i) => i),
      );
      assert.deepEqual(
        e0.map(text),
        bodies('x', 500).map((b) => b.body),
      );
      assert.deepEqual(
        e1.map((e) => e.properties?.i),
        Array.from({ length: 300 }, (_, i) => i),
      );
      await Promise.all([r0!.close(), r1!.close()]);
    });

    test('events carry partition key, properties and runtime metrics of the partition', async (t) => {
      const { emulator, hubName, client } = await setup(t, kind);
      const when = new Date('2026-11-28T01:02:03.456Z');
      emulator.append(hubName, '0', [
        {
          body: Buffer.from([0, 1, 2, 255]),
          partitionKey: 'device-7',
          properties: { kind: 'binary', n: 3, bin: Buffer.from([9, 8, 7]), on: true, when },
        },
        { body: 'plain' },
      ]);
      const reader = await client.openPartition('0', {
        startPosition: { kind: 'earliest' },
        trackLastEnqueuedEventProperties: true,
      });
      const [keyed, plain] = await collect(reader, 2);
      assert.deepEqual([...keyed!.body], [0, 1, 2, 255], 'body bytes untouched');
      assert.equal(keyed!.partitionKey, 'device-7');
      // The same values from both backends: a binary property stays bytes (the SDK's `properties` turns a
      // Buffer into an object of byte values), a boolean stays a boolean, a timestamp is its ms number.
      const { bin, ...rest } = keyed!.properties ?? {};
      assert.deepEqual(rest, { kind: 'binary', n: 3, on: true, when: when.getTime() });
      assert.ok(bin instanceof Uint8Array, `binary property: ${JSON.stringify(bin)}`);
      assert.deepEqual([...(bin as Uint8Array)], [9, 8, 7]);
      assert.equal(plain!.partitionKey, undefined);
      assert.ok(keyed!.enqueuedTime instanceof Date);
      assert.equal(typeof keyed!.offset, 'string');
      assert.ok(Number(plain!.offset) > Number(keyed!.offset));
      const info = reader.lastEnqueued();
      assert.equal(info?.sequenceNumber, 1);
      assert.equal(info?.offset, plain!.offset);
      assert.ok(info?.retrievedOn instanceof Date && info.enqueuedOn instanceof Date);
      await reader.close();
    });

    test('a reader nobody pulls lets the service run ahead by at most prefetch events', async (t) => {
      const make = clientsFor(t);
      const { emulator, hubName, consumerGroup, connectionString } = await startTestEmulator(t, { partitions: 1 });
      const EVENT_BYTES = 8 * 1024;
      const PREFETCH = 20;
      const OVERHEAD_BYTES = 24 * 1024; // open, SASL, CBS and management frames, framing of each transfer
      const body = 'z'.repeat(EVENT_BYTES);
      emulator.append(
        hubName,
        '0',
        Array.from({ length: 400 }, () => ({ body })),
      );
      const relay = await startByteCounter(emulator.port);
      t.after(() => relay.close());
      const client = make(kind, {
        connectionString: connectionString.replace(`:${emulator.port}`, `:${relay.port}`),
        consumerGroup,
      });
      const reader = await client.openPartition('0', { startPosition: { kind: 'earliest' }, prefetchCount: PREFETCH });
      const first = await collect(reader, 1);
      assert.equal(first.length, 1, 'the link delivers');
      await new Promise((r) => setTimeout(r, 800));
      const idleBytes = relay.downstreamBytes;
      assert.ok(
        idleBytes <= (1 + PREFETCH) * EVENT_BYTES + OVERHEAD_BYTES,
        `${idleBytes} bytes arrived while idle: ${(idleBytes / EVENT_BYTES).toFixed(1)} events, prefetch ${PREFETCH}`,
      );
      assert.ok(idleBytes >= (PREFETCH / 2) * EVENT_BYTES, 'prefetching does happen');
      const more = await collect(reader, 49);
      assert.equal(more.length, 49);
      await new Promise((r) => setTimeout(r, 800));
      const afterBytes = relay.downstreamBytes;
      // While events are being taken the SDK tops its credit up to the prefetch without counting what is
      // still in flight, so the polling backend can run up to about two windows ahead; still bounded.
      assert.ok(
        afterBytes <= (50 + 2 * PREFETCH) * EVENT_BYTES + OVERHEAD_BYTES,
        `${(afterBytes / EVENT_BYTES).toFixed(1)} events delivered after 50 taken`,
      );
      await reader.close();
    });

    test('a prefetch made smaller on an open reader bounds how far the service runs ahead; none lost', async (t) => {
      const make = clientsFor(t);
      const { emulator, hubName, consumerGroup, connectionString } = await startTestEmulator(t, { partitions: 1 });
      const EVENT_BYTES = 8 * 1024;
      const TOTAL = 600;
      const [BEFORE, AFTER, BATCH] = [200, 20, 10];
      emulator.append(
        hubName,
        '0',
        Array.from({ length: TOTAL }, (_, i) => ({ body: `${i}`.padEnd(EVENT_BYTES, 'z') })),
      );
      const relay = await startByteCounter(emulator.port);
      t.after(() => relay.close());
      const client = make(kind, {
        connectionString: connectionString.replace(`:${emulator.port}`, `:${relay.port}`),
        consumerGroup,
      });
      const open = { startPosition: { kind: 'earliest' as const }, prefetchCount: BEFORE, maxBatchSize: BATCH };
      const reader = await client.openPartition('0', open);
      const events = await collect(reader, 1);
      await waitUntil(() => relay.downstreamBytes >= (BEFORE / 2) * EVENT_BYTES, 10_000, 'the first window');
      assert.ok(reader.setPrefetch, `${kind} readers take a new prefetch`);
      reader.setPrefetch(AFTER);
      events.push(...(await collect(reader, 299, 20_000, BATCH)));
      assert.equal(events.length, 300);
      const taken = relay.downstreamBytes;
      await new Promise((r) => setTimeout(r, 800)); // nobody reads: how far does the service run ahead?
      const ahead = (relay.downstreamBytes - taken) / EVENT_BYTES;
      t.diagnostic(`${ahead.toFixed(1)} events arrived while idle after the prefetch went from ${BEFORE} to ${AFTER}`);
      // Polling: the SDK's queue and the batch being handed over; streaming: the window alone.
      assert.ok(ahead <= 2 * AFTER + BATCH, `${ahead.toFixed(1)} events ran ahead with a prefetch of ${AFTER}`);
      events.push(...(await collect(reader, TOTAL - 300, 20_000, BATCH)));
      assert.deepEqual(
        events.map((e) => e.sequenceNumber),
        Array.from({ length: TOTAL }, (_, i) => i),
        'every event once, in order, across the change',
      );
      await reader.close();
    });

    test(
      'a reader with a higher owner level takes the partition; the first one fails with ' + 'OwnershipLostError',
      async (t) => {
        const { emulator, hubName, consumerGroup, connectionString, client, make } = await setup(t, kind);
        emulator.append(hubName, '0', bodies('o', 200));
        const first = await client.openPartition('0', {
          startPosition: { kind: 'earliest' },
          ownerLevel: 1,
          prefetchCount: 10,
        });
        assert.equal((await collect(first, 5)).length, 5);
        const other = make(kind, { connectionString, consumerGroup });
        const second = await other.openPartition('0', {
          startPosition: { kind: 'earliest' },
          ownerLevel: 2,
          prefetchCount: 10,
        });
        assert.equal((await collect(second, 5))[0]?.sequenceNumber, 0);
        const deadline = Date.now() + 10_000;
        let failure: unknown;
        let drained = 0;
        while (!failure && Date.now() < deadline) {
          try {
            drained += (await first.receive(10, 200, AbortSignal.timeout(5_000))).length;
          } catch (error) {
            failure = error;
          }
        }
        assert.ok(failure instanceof OwnershipLostError, `expected OwnershipLostError, got ${String(failure)}`);
        assert.equal(failure.retryable, false);
        assert.ok(drained <= 20, `the old reader handed out only what it had prefetched (${drained})`);
        await assert.rejects(first.receive(1, 10, AbortSignal.timeout(1_000)), OwnershipLostError);
        const epochs = emulator.audit.records
          .filter((r) => r.hub === hubName && r.partitionId === '0')
          .map((r) => r.epoch);
        assert.ok(epochs.includes(1) && epochs.includes(2));
        assert.equal((await collect(second, 10)).length, 10, 'the new owner keeps reading');
      },
    );

    for (const fault of ['server-busy detach', 'detach-forced', 'dropped connection', 'connection forced'] as const) {
      test(`recovers from ${fault} with nothing lost and no duplicates`, async (t) => {
        const { emulator, hubName, consumerGroup, client } = await setup(t, kind);
        const TOTAL = 300;
        emulator.append(hubName, '0', bodies('f', TOTAL));
        const reader = await client.openPartition('0', { startPosition: { kind: 'earliest' }, prefetchCount: 20 });
        const got = await collect(reader, 60, 10_000, 30);
        assert.equal(got.length, 60);
        let affected = 0;
        if (fault === 'server-busy detach')
          affected = emulator.faults.detachReceivers({
            hub: hubName,
            partitionId: '0',
            consumerGroup,
            condition: 'com.microsoft:server-busy',
            description: 'injected',
          });
        if (fault === 'detach-forced')
          affected = emulator.faults.detachReceivers({
            hub: hubName,
            partitionId: '0',
            consumerGroup,
            condition: 'amqp:link:detach-forced',
            description: 'injected',
          });
        if (fault === 'dropped connection') affected = emulator.faults.dropConnections();
        if (fault === 'connection forced')
          affected = emulator.faults.dropConnections({ condition: 'amqp:connection:forced', description: 'injected' });
        assert.ok(affected >= 1, 'the fault hit a link or connection');
        got.push(...(await collect(reader, TOTAL - got.length, 15_000, 30)));
        assert.deepEqual(
          got.map((e) => e.sequenceNumber),
          Array.from({ length: TOTAL }, (_, i) => i),
        );
        const links = emulator.audit.records.filter((r) => r.hub === hubName && r.partitionId === '0');
        assert.ok(links.length >= 2, 'the reader re-attached');
        await reader.close();
      });
    }

    test('a wrong SAS key fails with a non-retryable error that does not contain the key', async (t) => {
      const make = clientsFor(t);
      const RIGHT_KEY = 'cmlnaHQta2V5LWZvci10ZXN0cw==';
      const WRONG_KEY = 'd3Jvbmcta2V5LXNob3VsZC1uZXZlci1sZWFr';
      const { emulator, hubName, consumerGroup, connectionString } = await startTestEmulator(t, {
        sasKeys: { RootManageSharedAccessKey: RIGHT_KEY },
      });
      emulator.append(hubName, '0', bodies('s', 3));
      // The right key works (the emulator checks the signature)...
      const good = make(kind, { connectionString, consumerGroup });
      assert.equal((await good.getHubProperties()).name, hubName);
      const goodReader = await good.openPartition('0', { startPosition: { kind: 'earliest' } });
      assert.equal((await collect(goodReader, 3)).length, 3);
      // ...the wrong one fails, for management reads and for readers alike.
      const bad = make(kind, {
        connectionString: connectionString.replace(RIGHT_KEY, WRONG_KEY),
        consumerGroup,
        retry: { maxRetries: 1, retryDelayMs: 20, timeoutMs: 5_000 },
      });
      const check = (e: unknown): boolean => {
        assert.ok(e instanceof BackendError, `a BackendError, got ${String(e)}`);
        assert.equal(e.retryable, false);
        const all =
          `${e.message} ${String(e.stack)} ${JSON.stringify(e)} ` +
          `${String((e.cause as Error | undefined)?.message ?? '')}`;
        assert.ok(!all.includes(WRONG_KEY) && !all.includes(RIGHT_KEY), 'no key in the error');
        return true;
      };
      await assert.rejects(bad.getHubProperties(), check);
      await assert.rejects(async () => {
        const reader = await bad.openPartition('0', { startPosition: { kind: 'earliest' } });
        await collect(reader, 1, 8_000);
        await reader.receive(1, 10, AbortSignal.timeout(1_000));
      }, check);
    });
  });
}
