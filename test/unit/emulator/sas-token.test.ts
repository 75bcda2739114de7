import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { scopeCovers, verifySasToken } from '../../../src/emulator/internal/sas-token.ts';

const KEYS = { app: 'k3y' };
function token(resource: string, expiry: number, keyName = 'app', key = 'k3y'): string {
  const sr = encodeURIComponent(resource);
  const sig = encodeURIComponent(createHmac('sha256', key).update(`${sr}\n${expiry}`).digest('base64'));
  return `SharedAccessSignature sr=${sr}&sig=${sig}&se=${expiry}&skn=${keyName}`;
}

test('SAS tokens are verified for key, signature, expiry and scope, without echoing secrets', () => {
  const now = 1_700_000_000_000;
  const se = now / 1000 + 60;
  assert.equal(
    verifySasToken(token('sb://h/hub', se), KEYS, 'sb://h:5672/hub/ConsumerGroups/$Default/Partitions/0', now).ok,
    true,
  );
  const bad = [
    verifySasToken(token('sb://h/hub', se, 'app', 'wrong'), KEYS, 'sb://h/hub', now),
    verifySasToken(token('sb://h/hub', now / 1000 - 1), KEYS, 'sb://h/hub', now),
    verifySasToken(token('sb://h/other', se), KEYS, 'sb://h/hub', now),
    verifySasToken(token('sb://h/hub', se, 'nobody'), KEYS, 'sb://h/hub', now),
    verifySasToken('Bearer x', KEYS, 'sb://h/hub', now),
  ];
  assert.deepEqual(
    bad.map((v) => v.ok),
    [false, false, false, false, false],
  );
  for (const v of bad) if (!v.ok) assert.ok(!v.reason.includes('k3y') && !v.reason.includes('sig='));
  assert.match((bad[1] as { reason: string }).reason, /expired/i);
});

test('scopes cover their own path and everything below it, case-insensitively', () => {
  assert.equal(scopeCovers('sb://h/', 'sb://x/hub/$management'), true);
  assert.equal(scopeCovers('sb://h/Hub', 'sb://x/hub/Partitions/1'), true);
  assert.equal(scopeCovers('sb://h/hub', 'sb://x/hub2'), false);
});
