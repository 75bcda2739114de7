/**
 * A checkpoint-store container in which a processor outside the fleet holds every partition of a hub but
 * the first few, so that one receiver instance owns exactly those of a big hub: the hub-wide work
 * (ownership listings of every partition's blob, hub lag) is the hub's, whatever the instance owns. The
 * idle-memory benches measure their baseline instance this way, so that "per owned partition" does not
 * also count the hub's size.
 */
import { BlobServiceClient } from '@azure/storage-blob';
import { EventHubConsumerClient } from '@azure/event-hubs';
import { randomName } from '../../helpers/azurite.ts';

/** The owner id of the claims: not one of the bench's instances. */
export const FOREIGN_OWNER = 'another-fleet';
/** Blob uploads in flight while the claims are written: 1023 claims take well under a second on Azurite. */
const UPLOADS_IN_FLIGHT = 32;

export interface ForeignClaimsOptions {
  /** Storage connection string the container is created with (Azurite's). */
  readonly storageConnection: string;
  /** The namespace as the receiver names it in blob names: see namespaceOf. */
  readonly fullyQualifiedNamespace: string;
  readonly hub: string;
  /** Consumer group whose ownership blobs are written. Default `$Default`. */
  readonly consumerGroup?: string;
  /** The hub's partition count. */
  readonly hubPartitions: number;
  /** Partitions 0 to owned − 1 stay free for the receiver; owned to hubPartitions − 1 are claimed. */
  readonly owned: number;
  /** Prefix of the random container name. Default `mem`. */
  readonly namePrefix?: string;
}

/**
 * Creates a fresh container and writes, for every partition from `owned` on, an unleased ownership blob
 * with an `ownerid` (as the Azure SDK processors write them). A receiver given the container and
 * `ownership.foreign_ownership_expiry` longer than the bench leaves those partitions alone. Returns the
 * container's name.
 */
export async function containerWithForeignClaims(options: ForeignClaimsOptions): Promise<string> {
  const name = randomName(options.namePrefix ?? 'mem');
  const container = BlobServiceClient.fromConnectionString(options.storageConnection).getContainerClient(name);
  await container.create();
  const group = options.consumerGroup ?? '$Default';
  const prefix = `${options.fullyQualifiedNamespace}/${options.hub}/${group}/ownership/`.toLowerCase();
  const ids = Array.from({ length: options.hubPartitions - options.owned }, (_, i) => String(options.owned + i));
  for (let i = 0; i < ids.length; i += UPLOADS_IN_FLIGHT) {
    await Promise.all(
      ids
        .slice(i, i + UPLOADS_IN_FLIGHT)
        .map((pid) =>
          container.getBlockBlobClient(prefix + pid).upload('', 0, { metadata: { ownerid: FOREIGN_OWNER } }),
        ),
    );
  }
  return name;
}

/** The namespace as the receiver names it in blob names: the SDK's reading of the connection string's endpoint. */
export async function namespaceOf(eventHubsConnection: string): Promise<string> {
  const probe = new EventHubConsumerClient('$default', eventHubsConnection);
  try {
    return probe.fullyQualifiedNamespace;
  } finally {
    await probe.close();
  }
}
