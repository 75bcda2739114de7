import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobSASPermissions, BlobServiceClient } from '@azure/storage-blob';
import { startAzurite, randomName } from '../helpers/azurite.ts';

test('Azurite starts from node_modules on a free loopback port and serves blobs with leases', async (t) => {
  const azurite = await startAzurite({ own: true });
  t.after(() => azurite.stop());
  assert.ok(azurite.port > 0);
  const service = BlobServiceClient.fromConnectionString(azurite.connectionString);
  const container = service.getContainerClient(randomName('c'));
  await container.create();
  const blob = container.getBlockBlobClient('a/b');
  await blob.upload('', 0, { metadata: { ownerid: 'x' } });
  const lease = blob.getBlobLeaseClient();
  await lease.acquireLease(15);
  await assert.rejects(blob.getBlobLeaseClient().acquireLease(15), (e: any) => e.statusCode === 409);
  await lease.releaseLease();
});

test(
  "Azurite runs loose: a write carrying x-ms-encryption-algorithm (as the Python SDK's blob client sends) is " +
    'accepted',
  async (t) => {
    // Strict Azurite answers 500 FeatureNotSupported, which stopped the Python SDK's checkpoint store.
    const azurite = await startAzurite({ own: true });
    t.after(() => azurite.stop());
    const container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(
      randomName('c'),
    );
    await container.create();
    const blob = container.getBlockBlobClient('127.0.0.1/hub/$default/checkpoint/0');
    await blob.upload('', 0);
    const url = await blob.generateSasUrl({
      permissions: BlobSASPermissions.parse('rw'),
      expiresOn: new Date(Date.now() + 60_000),
    });
    const response = await fetch(`${url}&comp=metadata`, {
      method: 'PUT',
      headers: {
        'x-ms-version': '2021-08-06',
        'x-ms-meta-sequencenumber': '1',
        'x-ms-meta-offset': '10',
        'x-ms-encryption-algorithm': 'AES256',
      },
    });
    assert.equal(response.status, 200, await response.text());
    assert.deepEqual((await blob.getProperties()).metadata, { sequencenumber: '1', offset: '10' });
  },
);
