import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { startAzurite, randomName } from '../helpers/azurite.ts';

test('Azurite starts from node_modules on a free loopback port and serves blobs with leases', async (t) => {
  const azurite = await startAzurite();
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
