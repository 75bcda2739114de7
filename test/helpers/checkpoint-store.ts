/** A fresh checkpoint container in Azurite for an emulator hub, with the store and scope a receiver of it uses. */
import { BlobServiceClient } from '@azure/storage-blob';
import { BlobCheckpointStore } from '../../src/ownership/blob-checkpoint-store.ts';
import { randomName } from './azurite.ts';

export async function emulatorCheckpointStore(
  storageConnectionString: string,
  hubConnectionString: string,
  hubName: string,
) {
  const containerName = randomName('ckpt');
  const service = BlobServiceClient.fromConnectionString(storageConnectionString);
  await service.getContainerClient(containerName).create();
  const namespace = new URL(hubConnectionString.split(';')[0]!.replace('Endpoint=', '').replace('sb://', 'http://'))
    .hostname;
  const scope = { fullyQualifiedNamespace: namespace, eventHubName: hubName, consumerGroup: '$Default' };
  return { containerName, scope, store: new BlobCheckpointStore(service.getContainerClient(containerName)) };
}
