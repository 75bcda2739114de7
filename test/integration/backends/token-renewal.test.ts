/**
 * The short token soak: both backends read a hub under steady load with SAS tokens living 12 s
 * (`sasTokenLifetimeMs`), long enough for each partition's claim to be renewed twice, so the first token
 * of every link has expired while the link stayed attached. The emulator (with `sasKeys`) refuses
 * expired tokens and detaches a link whose claim expired (docs/emulator.md); its claims audit counts the
 * put-token requests per audience. The 30-minute version is test/bench/token-soak.bench.ts.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHubClient } from '../../../src/backends/create-hub-client.ts';
import type { BackendKind } from '../../../src/backends/consumer.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { waitUntil } from '../../helpers/fleet.ts';
import { CountingReaders, PARTITION_AUDIENCE, SteadyLoad, claimsPerAudience } from '../../helpers/token-soak.ts';

const KEY_NAME = 'RootManageSharedAccessKey';
const KEY = 'dG9rZW4tcmVuZXdhbC1rZXk=';
const PARTITIONS = 2;
const TOKEN_LIFETIME_MS = 12_000;
/** Puts per partition audience to wait for: the first claim and two renewals. */
const PUTS_PER_PARTITION = 3;

// The two backends run side by side (each with its own emulator): the test mostly waits for renewals.
describe('short-lived tokens', { concurrency: 2 }, () => {
  for (const kind of ['polling', 'streaming'] as const satisfies readonly BackendKind[]) {
    describe(`${kind} backend with short-lived tokens`, () => {
      test('every claim is renewed before it expires; no link is detached and no event is lost', async (t) => {
        const { emulator, hubName, connectionString, track } = await startTestEmulator(t, {
          sasKeys: { [KEY_NAME]: KEY },
          partitions: PARTITIONS,
        });
        const cs = connectionString.replace(/SharedAccessKey=[^;]*/, `SharedAccessKey=${KEY}`);
        const client = track(
          createHubClient(kind, {
            connectionString: cs,
            sasTokenLifetimeMs: TOKEN_LIFETIME_MS,
            retry: { maxRetries: 2, retryDelayMs: 100 },
          }),
        );
        const load = new SteadyLoad(emulator, hubName, PARTITIONS, 40);
        const readers = new CountingReaders(client, PARTITIONS);
        t.after(() => {
          load.stop();
          return readers.close();
        });
        load.start();
        await readers.start();
        const partitionClaims = () => claimsPerAudience(emulator, PARTITION_AUDIENCE);
        await waitUntil(
          () => partitionClaims().length === PARTITIONS && partitionClaims().every((c) => c.puts >= PUTS_PER_PARTITION),
          PUTS_PER_PARTITION * TOKEN_LIFETIME_MS,
          () => `${PUTS_PER_PARTITION} puts per partition audience: ${JSON.stringify(partitionClaims())}`,
        );
        load.stop();
        await waitUntil(
          () => readers.missing(load.sent) === 0,
          10_000,
          () => `all ${load.total} events, ${readers.missing(load.sent)} missing`,
        );

        const firstPut = Math.min(
          ...emulator.claims.puts.filter((p) => PARTITION_AUDIENCE.test(p.audience)).map((p) => p.at),
        );
        assert.ok(Date.now() - firstPut > TOKEN_LIFETIME_MS, 'the first tokens have expired meanwhile');
        assert.deepEqual(
          emulator.claims.puts.filter((p) => p.statusCode !== 202),
          [],
          'every put-token was accepted',
        );
        assert.ok(
          emulator.claims.puts.every(
            (p) => p.expiresAt !== undefined && p.expiresAt - p.at <= TOKEN_LIFETIME_MS + 1_000,
          ),
          'tokens live the asked lifetime',
        );
        assert.deepEqual(emulator.claims.expiredLinks, [], 'no link was detached for an expired claim');
        assert.deepEqual(
          emulator.audit.records.filter((r) => r.detachedAt !== undefined),
          [],
          'every receiver link stayed attached',
        );
        assert.deepEqual(readers.errors, []);
        assert.ok(load.total > 0);
        assert.equal(readers.missing(load.sent), 0);
        assert.deepEqual(
          readers.counts().map((c) => c.duplicates),
          new Array(PARTITIONS).fill(0),
        );
      });
    });
  }
});
