import type { CheckpointScope } from '../checkpoint.ts';

/** The three kinds of blob under a consumer group's prefix. */
export type BlobKind = 'ownership' | 'checkpoint' | 'members';

/**
 * `<fqns>/<hub>/<cg>/<kind>/`, lower-cased: the Azure SDK checkpoint stores lower-case these three because
 * Event Hubs treats them case-insensitively (see `BlobCheckpointStore.getBlobPrefix` in
 * `@azure/eventhubs-checkpointstore-blob`). `members/` is ours; the SDK stores never list it.
 */
export function blobPrefix(scope: CheckpointScope, kind?: BlobKind): string {
  const base = `${scope.fullyQualifiedNamespace}/${scope.eventHubName}/${scope.consumerGroup}/`.toLowerCase();
  return kind ? `${base}${kind}/` : base;
}

export function ownershipBlobName(scope: CheckpointScope, partitionId: string): string {
  return `${blobPrefix(scope, 'ownership')}${partitionId}`;
}

export function checkpointBlobName(scope: CheckpointScope, partitionId: string): string {
  return `${blobPrefix(scope, 'checkpoint')}${partitionId}`;
}

/** Owner ids are user-chosen strings: encoded so that any id is one path segment. */
export function memberBlobName(scope: CheckpointScope, ownerId: string): string {
  return `${blobPrefix(scope, 'members')}${encodeURIComponent(ownerId)}`;
}

/** Splits a blob name under `blobPrefix(scope)` into its kind and last segment (decoded for members). */
export function parseBlobName(scope: CheckpointScope, name: string): { kind: BlobKind; id: string } | undefined {
  const base = blobPrefix(scope);
  if (!name.startsWith(base)) return undefined;
  const rest = name.slice(base.length);
  const slash = rest.indexOf('/');
  if (slash < 0) return undefined;
  const kind = rest.slice(0, slash);
  const id = rest.slice(slash + 1);
  if (!id || id.includes('/')) return undefined;
  if (kind === 'members') {
    try {
      return { kind, id: decodeURIComponent(id) };
    } catch {
      return undefined;
    }
  }
  return kind === 'ownership' || kind === 'checkpoint' ? { kind, id } : undefined;
}
