import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blobCheckpointStoreConfigSchema, coordinatorOptionsFromConfig, ownershipConfigSchema } from '../../../src/ownership/ownership-config.ts';

const issues = (result: { success: boolean; error?: { issues: { path: PropertyKey[]; message: string }[] } }) =>
  (result.error?.issues ?? []).map((i) => `${i.path.join('.')}: ${i.message}`);

test('ownership: defaults, with renew_interval a third of lease_duration', () => {
  assert.deepEqual(ownershipConfigSchema.parse({}), { lease_duration: 15_000, renew_interval: 5_000, update_interval: 5_000, strategy: 'balanced' });
  assert.deepEqual(ownershipConfigSchema.parse({ lease_duration: '1m' }).renew_interval, 20_000);
});

test('ownership: Go-style durations and plain milliseconds', () => {
  const c = ownershipConfigSchema.parse({ lease_duration: '30s', renew_interval: 9000, update_interval: '1m30s', strategy: 'greedy', owner_id: 'pod-1' });
  assert.deepEqual(coordinatorOptionsFromConfig(c), { leaseDurationMs: 30_000, renewIntervalMs: 9_000, updateIntervalMs: 90_000, strategy: 'greedy', ownerId: 'pod-1' });
});

test('ownership: renew_interval above half the lease says what to do', () => {
  assert.deepEqual(issues(ownershipConfigSchema.safeParse({ renew_interval: '10s' })), [
    'renew_interval: renew_interval (10s) must be more than 0 and at most half of lease_duration (15s); set it to about a third (5s)',
  ]);
});

test('ownership: lease_duration outside 15–60 s, and every problem at once with its path', () => {
  const found = issues(ownershipConfigSchema.safeParse({ lease_duration: '2m', renew_interval: '90s', update_interval: 0 }));
  assert.equal(found.length, 3, found.join('\n'));
  assert.match(found[0]!, /^lease_duration: lease_duration \(2m\) must be whole seconds from 15s to 60s/);
  assert.match(found[1]!, /^renew_interval: /);
  assert.match(found[2]!, /^update_interval: /);
  assert.match(issues(ownershipConfigSchema.safeParse({ lease_duration: '10s' }))[0]!, /15s to 60s/);
  assert.match(issues(ownershipConfigSchema.safeParse({ lease_duration: '15500ms' }))[0]!, /whole seconds/);
});

test('ownership: bad duration text and unknown keys are reported', () => {
  assert.match(issues(ownershipConfigSchema.safeParse({ lease_duration: 'soon' }))[0]!, /^lease_duration: .*not a duration/);
  assert.equal(ownershipConfigSchema.safeParse({ lease_time: '15s' }).success, false);
  assert.equal(ownershipConfigSchema.safeParse({ strategy: 'random' }).success, false);
});

test('blob_checkpoint_store: exactly one of connection or storage_account_url', () => {
  assert.deepEqual(blobCheckpointStoreConfigSchema.parse({ connection: 'UseDevelopmentStorage=true', container_name: 'checkpoints' }), {
    connection: 'UseDevelopmentStorage=true',
    container_name: 'checkpoints',
    create_container: false,
  });
  assert.ok(blobCheckpointStoreConfigSchema.safeParse({ storage_account_url: 'https://acct.blob.core.windows.net', container_name: 'abc' }).success);
  assert.deepEqual(issues(blobCheckpointStoreConfigSchema.safeParse({ container_name: 'abc' })), ['connection: give exactly one of connection or storage_account_url']);
  const both = blobCheckpointStoreConfigSchema.safeParse({ connection: 'x', storage_account_url: 'https://a.blob.core.windows.net', container_name: 'Bad_Name' });
  assert.deepEqual(issues(both).map((i) => i.split(':')[0]), ['connection', 'container_name']);
});

test('blob_checkpoint_store: a connection string never appears in an error message', () => {
  const secret = 'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=c2VjcmV0;';
  const found = issues(blobCheckpointStoreConfigSchema.safeParse({ connection: secret, storage_account_url: 'https://a.blob.core.windows.net', container_name: 'x' }));
  assert.ok(found.length >= 2);
  assert.ok(found.every((i) => !i.includes('c2VjcmV0')));
});
