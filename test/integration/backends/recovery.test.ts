/**
 * Recovery that takes more than one attempt, and claim renewal, for both backends: the reader reports
 * `disconnected` then `recovered` through onStatus, resumes after the last event it handed over, and
 * CBS claims are renewed before the token expires.
 */
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import { createHubClient } from '../../../src/backends/create-hub-client.ts';
import type {
  BackendKind,
  BackendStatus,
  HubClient,
  PartitionReader,
  ReceivedEvent,
} from '../../../src/backends/consumer.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { createSelfSignedCert, trustAnyCertificate } from './self-signed-cert.ts';
import { fakeJwt } from '../../helpers/fake-jwt.ts';
import { waitUntil } from '../../helpers/wait-until.ts';

async function collect(reader: PartitionReader, count: number, timeoutMs: number): Promise<ReceivedEvent[]> {
  const out: ReceivedEvent[] = [];
  const deadline = Date.now() + timeoutMs;
  while (out.length < count && Date.now() < deadline)
    out.push(...(await reader.receive(Math.min(25, count - out.length), 300, AbortSignal.timeout(timeoutMs))));
  return out;
}

/** Whether `check` came to hold within `timeoutMs` (the shared wait, as a boolean for assert.ok's message). */
const until = (check: () => boolean, timeoutMs: number) =>
  waitUntil(check, timeoutMs, 'condition', 50).then(
    () => true,
    () => check(),
  );

for (const kind of ['polling', 'streaming'] as const satisfies readonly BackendKind[]) {
  describe(`${kind} backend recovery`, () => {
    test(
      'a reconnect that fails several times is reported, retried, and resumes exactly after the last ' + 'event',
      async (t) => {
        const clients: HubClient[] = [];
        t.after(() => Promise.all(clients.map((c) => c.close())));
        const { emulator, hubName, consumerGroup, connectionString } = await startTestEmulator(t, { partitions: 1 });
        const TOTAL = 200;
        emulator.append(
          hubName,
          '0',
          Array.from({ length: TOTAL }, (_, i) => ({ body: `e${i}` })),
        );
        const statuses: BackendStatus[] = [];
        const client = createHubClient(kind, {
          connectionString,
          consumerGroup,
          retry: { maxRetries: 1, retryDelayMs: 30, maxRetryDelayMs: 100, timeoutMs: 5_000 },
          onStatus: (s) => statuses.push(s),
        });
        clients.push(client);
        const reader = await client.openPartition('0', { startPosition: { kind: 'earliest' }, prefetchCount: 20 });
        const got = await collect(reader, 50, 10_000);
        // The next claims are refused as busy, more often than one operation retries: the error surfaces.
        emulator.faults.failNextRequests('cbs', 4, 'com.microsoft:server-busy', 'injected');
        assert.equal(
          emulator.faults.detachReceivers({
            hub: hubName,
            partitionId: '0',
            consumerGroup,
            condition: 'amqp:link:detach-forced',
          }),
          1,
        );
        got.push(...(await collect(reader, TOTAL - got.length, 20_000)));
        assert.deepEqual(
          got.map((e) => e.sequenceNumber),
          Array.from({ length: TOTAL }, (_, i) => i),
        );
        assert.ok(
          await until(() => statuses.some((s) => s.type === 'recovered'), 5_000),
          JSON.stringify(statuses.map((s) => s.type)),
        );
        const first = statuses[0];
        assert.equal(first?.type, 'disconnected');
        assert.equal(first?.partitionId, '0');
        assert.equal(statuses.at(-1)?.type, 'recovered');
        await reader.close();
      },
    );

    test(
      'a reader waiting for events when the connection drops gets the next ones without waiting out a receive ' +
        'round',
      async (t) => {
        const clients: HubClient[] = [];
        t.after(() => Promise.all(clients.map((c) => c.close())));
        const { emulator, hubName, consumerGroup, connectionString } = await startTestEmulator(t, { partitions: 1 });
        emulator.append(
          hubName,
          '0',
          Array.from({ length: 10 }, (_, i) => ({ body: `a${i}` })),
        );
        const statuses: BackendStatus[] = [];
        const client = createHubClient(kind, { connectionString, consumerGroup, onStatus: (s) => statuses.push(s) });
        clients.push(client);
        const reader = await client.openPartition('0', { startPosition: { kind: 'earliest' }, prefetchCount: 20 });
        const got = await collect(reader, 10, 10_000);
        assert.equal(got.length, 10);
        // Caught up: the backend now waits for events (the polling SDK in a 60 s receive round).
        assert.equal((await reader.receive(10, 500, AbortSignal.timeout(5_000))).length, 0);
        assert.ok(emulator.faults.dropConnections() >= 1, 'the connection was dropped');
        emulator.append(
          hubName,
          '0',
          Array.from({ length: 10 }, (_, i) => ({ body: `b${i}` })),
        );
        // Without noticing the drop, the polling SDK would only see these after its 60 s round.
        got.push(...(await collect(reader, 10, 15_000)));
        assert.deepEqual(
          got.map((e) => e.sequenceNumber),
          Array.from({ length: 20 }, (_, i) => i),
        );
        assert.ok(
          await until(() => statuses.some((s) => s.type === 'recovered'), 5_000),
          JSON.stringify(statuses.map((s) => s.type)),
        );
        assert.equal(statuses.find((s) => s.type === 'disconnected')?.partitionId, '0');
        await reader.close();
      },
    );

    test('renews the jwt claim before the token expires', async (t) => {
      const clients: HubClient[] = [];
      t.after(() => Promise.all(clients.map((c) => c.close())));
      const { emulator, hubName, consumerGroup } = await startTestEmulator(t, {
        partitions: 1,
        tls: createSelfSignedCert(),
      });
      trustAnyCertificate();
      emulator.append(hubName, '0', [{ body: 'x' }]);
      const calls: number[] = [];
      // Lives 8 s: both backends renew a token living under 8 min at three quarters of its life (6 s), and
      // the emulator would detach the link at 8 s without a renewal.
      const credential: TokenCredential = {
        async getToken(): Promise<AccessToken> {
          calls.push(Date.now());
          const expiresOnTimestamp = Date.now() + 8_000;
          return { token: fakeJwt(`token-${calls.length}`, expiresOnTimestamp), expiresOnTimestamp };
        },
      };
      const client = createHubClient(kind, {
        credential,
        fullyQualifiedNamespace: `localhost:${emulator.port}`,
        eventHubName: hubName,
        consumerGroup,
      });
      clients.push(client);
      const reader = await client.openPartition('0', { startPosition: { kind: 'earliest' } });
      assert.equal((await collect(reader, 1, 5_000)).length, 1);
      const initial = calls.length;
      assert.ok(await until(() => calls.length > initial, 9_000), `claims renewed: ${calls.length - initial}`);
      assert.ok(calls.at(-1)! - calls[0]! >= 5_000, 'not renewed before it was due');
      assert.deepEqual(emulator.claims.expiredLinks, [], 'renewed before the emulator would detach the link');
      // The reader keeps working on the renewed claim.
      emulator.append(hubName, '0', [{ body: 'y' }]);
      assert.equal((await collect(reader, 1, 5_000)).length, 1);
      await reader.close();
    });
  });
}
