/**
 * Fails when @azure/event-hubs changes under src/backends/polling/internal/sdk-token-timing.ts: the
 * renewal constants it compensates for must still be in the installed SDK's withAuth, and the credentials
 * must make the SDK's interval (`expiresOnTimestamp - now - 2 min`) our renewal time.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import {
  EVENT_HUBS_VERSION_WRITTEN_FOR,
  replaceSdkCredential,
} from '../../../../src/backends/polling/internal/event-hubs-internals.ts';
import {
  SDK_JWT_RENEWAL_MARGIN_MS,
  SDK_SAS_RENEWAL_INTERVAL_MS,
  expiryForSdkMs,
  sasKeyCredential,
  withTimelyRenewal,
} from '../../../../src/backends/polling/internal/sdk-token-timing.ts';
import { unconnectedClient } from './unconnected-client.ts';

const require = createRequire(import.meta.url);

test("the installed SDK's withAuth renews jwt claims 2 min before expiry and SAS claims every 45 min", () => {
  const pkg = require.resolve('@azure/event-hubs/package.json');
  assert.equal((JSON.parse(readFileSync(pkg, 'utf8')) as { version: string }).version, EVENT_HUBS_VERSION_WRITTEN_FOR);
  const withAuth = readFileSync(join(dirname(pkg), 'dist', 'esm', 'withAuth.js'), 'utf8');
  assert.equal(SDK_JWT_RENEWAL_MARGIN_MS, 2 * 60 * 1000);
  assert.equal(SDK_SAS_RENEWAL_INTERVAL_MS, 45 * 60 * 1000);
  assert.match(withAuth, /timeToLiveInMs: token\.expiresOnTimestamp - Date\.now\(\) - 2 \* 60 \* 1000/);
  assert.match(withAuth, /timeToLiveInMs: 45 \* 60 \* 1000/);
  assert.match(withAuth, /createTimerLoop\(info\.timeToLiveInMs, createTask\)/);
});

test('the SDK interval from a reported expiry is 2 min before expiry, or three quarters of a shorter life', () => {
  const now = 1_000_000_000_000;
  const sdkInterval = (expiresAtMs: number) => expiryForSdkMs(expiresAtMs, now) - now - SDK_JWT_RENEWAL_MARGIN_MS;
  assert.equal(sdkInterval(now + 3_600_000), 3_600_000 - 120_000);
  assert.equal(expiryForSdkMs(now + 3_600_000, now), now + 3_600_000, 'long-lived tokens report their real expiry');
  assert.equal(sdkInterval(now + 120_000), 90_000);
  assert.equal(sdkInterval(now + 20_000), 15_000);
});

test('withTimelyRenewal keeps the token and adjusts only the expiry the SDK sees', async () => {
  const expiresOnTimestamp = Date.now() + 60_000;
  const wrapped = withTimelyRenewal({ getToken: async () => ({ token: 'a.b.c', expiresOnTimestamp }) });
  const token = await wrapped.getToken('scope');
  assert.equal(token?.token, 'a.b.c');
  assert.ok(token!.expiresOnTimestamp - Date.now() - SDK_JWT_RENEWAL_MARGIN_MS <= 45_000 + 50);
  assert.equal(await withTimelyRenewal({ getToken: async () => null }).getToken('scope'), null);
});

test('sasKeyCredential signs hub-wide SAS tokens of the asked lifetime', async () => {
  const before = Math.floor(Date.now() / 1000);
  const token = (await sasKeyCredential('key name', 'secret', 'sb://ns.example/hub', 20_000).getToken('ignored'))!;
  const se = Number(/&se=(\d+)/.exec(token.token)![1]);
  assert.ok(se >= before + 19 && se <= before + 21, String(se));
  assert.match(token.token, /^SharedAccessSignature sr=sb%3A%2F%2Fns.example%2Fhub&sig=[^&]+&se=\d+&skn=key%20name$/);
});

test("a client's claims credential is at _context.tokenCredential, which replaceSdkCredential swaps", async () => {
  const client = unconnectedClient();
  try {
    const credential = { getToken: async () => ({ token: 't', expiresOnTimestamp: 0 }) };
    assert.equal(replaceSdkCredential(client, credential), true);
    assert.equal(
      (client as unknown as { _context: { tokenCredential: unknown } })._context.tokenCredential,
      credential,
    );
  } finally {
    await client.close();
  }
});
