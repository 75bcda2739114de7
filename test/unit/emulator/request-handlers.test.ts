import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { handlePutToken, looksLikeJwt } from '../../../src/emulator/internal/request-handlers.ts';
import { fakeJwt } from '../../helpers/fake-jwt.ts';

const KEYS = { RootManageSharedAccessKey: 'right-key' };
const AUDIENCE = 'sb://127.0.0.1/hub';

function sas(key: string, expiry = Math.floor(Date.now() / 1000) + 600): string {
  const sr = encodeURIComponent(AUDIENCE);
  const sig = encodeURIComponent(createHmac('sha256', key).update(`${sr}\n${expiry}`).digest('base64'));
  return `SharedAccessSignature sr=${sr}&sig=${sig}&se=${expiry}&skn=RootManageSharedAccessKey`;
}

function putToken(body: string, type: string) {
  return handlePutToken(
    { body, application_properties: { operation: 'put-token', name: AUDIENCE, type } },
    KEYS,
    undefined,
  );
}

/** A status code as written: an AMQP int (typecode 0x71, or 0x54 for a small int), never a uint. */
function code(value: unknown): number {
  const typed = value as { type: { typecode: number }; value: number };
  assert.ok([0x71, 0x54].includes(typed.type.typecode), `status code typecode 0x${typed.type.typecode.toString(16)}`);
  return typed.value;
}
const statusOf = (result: ReturnType<typeof putToken>) => code(result.reply.application_properties['status-code']);

test('a SAS token is verified whatever type the client gives it (the Python SDK labels SAS tokens jwt)', () => {
  for (const type of ['servicebus.windows.net:sastoken', 'jwt']) {
    assert.equal(statusOf(putToken(sas('right-key'), type)), 202, `valid SAS typed ${type}`);
    const wrong = putToken(sas('wrong-key'), type);
    assert.equal(statusOf(wrong), 401, `wrong key typed ${type}`);
    assert.equal(wrong.granted, undefined);
    assert.equal(wrong.reply.application_properties['error-condition'], 'amqp:unauthorized-access');
  }
});

test('a well-formed JWT is accepted unverified; anything else typed jwt is refused', () => {
  assert.equal(statusOf(putToken(fakeJwt('user'), 'jwt')), 202);
  for (const token of ['not-a-token', 'a.b', 'eyJ.token.1', `${Buffer.from('{}').toString('base64url')}.e30.sig`]) {
    assert.equal(statusOf(putToken(token, 'jwt')), 401, token);
  }
  assert.equal(statusOf(putToken(fakeJwt('user'), 'other-type')), 401);
  assert.equal(looksLikeJwt(fakeJwt('x')), true);
});

test('replies carry their status as an AMQP int, in both spellings clients read', () => {
  const ok = putToken(sas('right-key'), 'jwt').reply.application_properties;
  assert.deepEqual(
    [code(ok['status-code']), code(ok.statusCode), ok['status-description'], ok.statusDescription],
    [202, 202, 'Accepted', 'Accepted'],
  );
  const refused = putToken('garbage', 'jwt').reply.application_properties;
  assert.equal(code(refused.statusCode), 401);
  assert.equal(refused.statusDescription, refused['status-description']);
  assert.ok(!String(refused['status-description']).includes('right-key'));
});

test('without sasKeys every token is accepted unverified, until the expiry it states', () => {
  const put = (body: string) =>
    handlePutToken(
      { body, application_properties: { operation: 'put-token', name: AUDIENCE, type: 'jwt' } },
      undefined,
      undefined,
    );
  const anything = put('anything');
  assert.equal(code(anything.reply.application_properties['status-code']), 202);
  assert.equal(
    anything.granted?.expiresAtMs,
    Number.POSITIVE_INFINITY,
    'a token without an expiry grants a claim for good',
  );
  const later = Date.now() + 60_000;
  assert.equal(put(fakeJwt('user', later)).granted?.expiresAtMs, Math.floor(later / 1000) * 1000);
  assert.equal(put(sas('any-key', Math.floor(later / 1000))).granted?.expiresAtMs, Math.floor(later / 1000) * 1000);
  for (const expired of [fakeJwt('user', Date.now() - 1_000), sas('any-key', Math.floor(Date.now() / 1000) - 1)]) {
    const refused = put(expired);
    assert.equal(code(refused.reply.application_properties['status-code']), 401);
    assert.equal(refused.granted, undefined);
    assert.match(String(refused.reply.application_properties['status-description']), /^ExpiredToken: /);
  }
});

test('with sasKeys a JWT is refused once past its exp, and its claim lasts until then', () => {
  const expired = putToken(fakeJwt('user', Date.now() - 1_000), 'jwt');
  assert.equal(statusOf(expired), 401);
  assert.match(
    String(expired.reply.application_properties['status-description']),
    /^ExpiredToken: the token expired at /,
  );
  const later = Date.now() + 30_000;
  assert.equal(putToken(fakeJwt('user', later), 'jwt').granted?.expiresAtMs, Math.floor(later / 1000) * 1000);
  const sasExpired = putToken(sas('right-key', Math.floor(Date.now() / 1000) - 1), 'servicebus.windows.net:sastoken');
  assert.equal(statusOf(sasExpired), 401);
});
