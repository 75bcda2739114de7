import { test } from 'node:test';
import assert from 'node:assert/strict';
import { describeStorageError, isLeaseGone, toStorageError } from '../../../src/ownership/storage-errors.ts';
import { parseBlobName, memberBlobName, checkpointBlobName } from '../../../src/ownership/internal/blob-names.ts';

test('storage errors: lease gone for 404/409/412 only; transient failures are not', () => {
  assert.equal(isLeaseGone({ statusCode: 409, details: { errorCode: 'LeaseIdMismatchWithLeaseOperation' } }), true);
  assert.equal(isLeaseGone({ statusCode: 412 }), true);
  assert.equal(isLeaseGone({ statusCode: 404 }), true);
  assert.equal(isLeaseGone({ statusCode: 503 }), false);
  assert.equal(isLeaseGone(Object.assign(new Error('aborted'), { name: 'AbortError' })), false);
  assert.equal(isLeaseGone(new Error('connect ECONNREFUSED 127.0.0.1:1')), false);
});

test('storage errors: messages carry status and code, never a secret', () => {
  const rest = Object.assign(
    new Error('Server failed to authenticate: https://a.blob.core.windows.net/c?sv=1&sig=SECRETSIG'),
    { statusCode: 403, details: { errorCode: 'AuthenticationFailed' } },
  );
  assert.equal(describeStorageError(rest), 'storage request failed (403 AuthenticationFailed)');
  const plain = new Error('bad connection string AccountKey=SECRETKEY;BlobEndpoint=x');
  assert.ok(!toStorageError(plain).message.includes('SECRETKEY'));
  assert.equal(
    describeStorageError(Object.assign(new Error('x'), { name: 'AbortError' })),
    'storage request timed out',
  );
});

test('blob names: lower-cased scope, member ids encoded, parsed back', () => {
  const scope = {
    fullyQualifiedNamespace: 'NS.servicebus.windows.net',
    eventHubName: 'Hub',
    consumerGroup: '$Default',
  };
  assert.equal(checkpointBlobName(scope, '3'), 'ns.servicebus.windows.net/hub/$default/checkpoint/3');
  const member = memberBlobName(scope, 'pod/1 a');
  assert.equal(member, 'ns.servicebus.windows.net/hub/$default/members/pod%2F1%20a');
  assert.deepEqual(parseBlobName(scope, member), { kind: 'members', id: 'pod/1 a' });
  assert.deepEqual(parseBlobName(scope, 'ns.servicebus.windows.net/hub/$default/ownership/7'), {
    kind: 'ownership',
    id: '7',
  });
  assert.equal(parseBlobName(scope, 'ns.servicebus.windows.net/hub/$default/other/7'), undefined);
  assert.equal(parseBlobName(scope, 'elsewhere/hub/$default/ownership/7'), undefined);
});
