/**
 * A misconfiguration fails fast and says which setting to fix, the same way in both backends: the reader
 * rejects (at `openPartition` in streaming, which awaits the attach; at the first `receive()` in polling,
 * whose SDK attaches in the background) with a BackendError that is `permanent`, not `retryable`, and
 * names the config key. Before, polling rejected with an unclassified error and streaming read nothing.
 * One `receive()` is the bound: its wait (30 s) is far longer than the refusal takes, so a reader that
 * silently waited would resolve [] and fail the test.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHubClient } from '../../../src/backends/create-hub-client.ts';
import type { BackendKind, HubClient, OpenOptions } from '../../../src/backends/consumer.ts';
import { BackendError, isPermanentBackendError } from '../../../src/backends/consumer.ts';
import type { HubClientOptions } from '../../../src/backends/hub-client-options.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';

const KEY_NAME = 'RootManageSharedAccessKey';
const KEY = 'bWlzY29uZmlndXJhdGlvbi10ZXN0LWtleQ==';
const WRONG_KEY = 'bm90LXRoZS1rZXk=';
/** Short retries: the SDK retries a refused credential (core-amqp counts it retryable) 3 × 30 s by default. */
const RETRY = { maxRetries: 1, retryDelayMs: 20, maxRetryDelayMs: 100, timeoutMs: 5_000 } as const;
const RECEIVE_WAIT_MS = 30_000;

/** Opens a reader and receives once; returns what the backend rejected with (or fails the test). */
async function refusal(client: HubClient, partitionId: string, options: OpenOptions): Promise<BackendError> {
  let error: unknown;
  try {
    const reader = await client.openPartition(partitionId, options);
    const events = await reader.receive(10, RECEIVE_WAIT_MS, AbortSignal.timeout(2 * RECEIVE_WAIT_MS));
    assert.fail(`expected a rejection, got ${events.length} events`);
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof BackendError, `a BackendError, got ${String(error)}`);
  return error;
}

function assertPermanent(e: BackendError, code: string, configKey: string): void {
  assert.ok(isPermanentBackendError(e), `permanent: ${e.message}`);
  assert.equal(e.retryable, false);
  assert.equal(e.code, code, e.message);
  assert.equal(e.configKey, configKey, e.message);
  assert.ok(e.message.includes(`check ${configKey}`), e.message);
  assert.ok(e.hint, 'says what to do');
}

const EARLIEST: OpenOptions = { startPosition: { kind: 'earliest' } };

for (const kind of ['polling', 'streaming'] as const satisfies readonly BackendKind[]) {
  describe(`${kind} backend: misconfiguration is permanent and names the config key`, () => {
    async function setup(t: Parameters<typeof startTestEmulator>[0], sasKeys?: Record<string, string>) {
      const eh = await startTestEmulator(t, sasKeys ? { sasKeys } : {});
      eh.emulator.append(eh.hubName, '0', [{ body: 'a' }, { body: 'b' }]);
      const client = (options: Partial<HubClientOptions>): HubClient =>
        eh.track(
          createHubClient(kind, {
            connectionString: eh.connectionString,
            consumerGroup: eh.consumerGroup,
            retry: RETRY,
            ...options,
          }),
        );
      return { ...eh, client };
    }

    test('unknown consumer group → ConsumerGroupNotFound, group', async (t) => {
      const { client } = await setup(t);
      const e = await refusal(client({ consumerGroup: 'no-such-group' }), '0', EARLIEST);
      assertPermanent(e, 'ConsumerGroupNotFound', 'group');
    });

    test('unknown hub → HubNotFound, event_hub.name (or connection when only EntityPath names it)', async (t) => {
      const { client, emulator } = await setup(t);
      const named = client({ connectionString: emulator.connectionString(), eventHubName: 'no-such-hub' });
      assertPermanent(await refusal(named, '0', EARLIEST), 'HubNotFound', 'event_hub.name');
      await assert.rejects(named.getHubProperties(), (e: unknown) => {
        assertPermanent(e as BackendError, 'HubNotFound', 'event_hub.name');
        return true;
      });
      const byEntityPath = client({ connectionString: emulator.connectionString('no-such-hub') });
      await assert.rejects(byEntityPath.getPartitionProperties('0'), (e: unknown) => {
        assertPermanent(e as BackendError, 'HubNotFound', 'connection');
        return true;
      });
    });

    test('wrong key → Unauthorized, connection; the key never appears', async (t) => {
      const { client, emulator, hubName } = await setup(t, { [KEY_NAME]: KEY });
      const cs = emulator.connectionString(hubName).replace(KEY, WRONG_KEY);
      assert.ok(cs.includes(WRONG_KEY));
      const wrong = client({ connectionString: cs });
      const e = await refusal(wrong, '0', EARLIEST);
      assertPermanent(e, 'Unauthorized', 'connection');
      assert.ok(!`${e.message}${e.hint}`.includes(WRONG_KEY));
      await assert.rejects(wrong.getHubProperties(), (err: unknown) => {
        assertPermanent(err as BackendError, 'Unauthorized', 'connection');
        return true;
      });
    });

    test('an offset the hub refuses ("1234-5566", the Go README example) → InvalidStartPosition, offset', async (t) => {
      const { client } = await setup(t);
      const e = await refusal(client({}), '0', {
        startPosition: { kind: 'offset', offset: '1234-5566', inclusive: false },
        startPositionKey: 'offset',
      });
      assertPermanent(e, 'InvalidStartPosition', 'offset');
      assert.match(e.message, /1234-5566/);
    });

    test('the config key named is the one the start position came from (startPositionKey)', async (t) => {
      const { client } = await setup(t);
      const bad = { kind: 'offset', offset: 'not-a-number', inclusive: true } as const;
      assertPermanent(
        await refusal(client({}), '0', { startPosition: bad, startPositionKey: 'partition_start' }),
        'InvalidStartPosition',
        'partition_start',
      );
    });

    test('unknown partition → PartitionNotFound, partition', async (t) => {
      const { client } = await setup(t);
      const c = client({});
      assertPermanent(await refusal(c, '7', EARLIEST), 'PartitionNotFound', 'partition');
      await assert.rejects(c.getPartitionProperties('7'), (e: unknown) => {
        assertPermanent(e as BackendError, 'PartitionNotFound', 'partition');
        return true;
      });
    });

    test(
      'a good configuration still reads (the refusals above are not the emulator refusing ' + 'everything)',
      async (t) => {
        const { client } = await setup(t);
        const reader = await client({}).openPartition('0', EARLIEST);
        const events = await reader.receive(2, RECEIVE_WAIT_MS, AbortSignal.timeout(2 * RECEIVE_WAIT_MS));
        assert.ok(events.length >= 1);
        assert.equal(Buffer.from(events[0]!.body).toString(), 'a');
        await reader.close();
      },
    );
  });
}
