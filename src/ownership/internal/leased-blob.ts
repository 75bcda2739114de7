import type { BlobLeaseClient, BlockBlobClient } from '@azure/storage-blob';
import { isConflict, isNotFound, statusOf } from '../storage-errors.ts';

/**
 * Acquires a lease on `blob` with the lease id `lease` was made with, creating the empty blob first when it
 * does not exist (acquiring a lease on a missing blob is 404). Resolves false when another lease id holds it
 * (409 LeaseAlreadyPresent); throws on any other failure. Acquiring with the lease id that already holds the
 * lease succeeds (Azure semantics), so an instance that lost track of its own lease, e.g. after a storage
 * outage, gets it back at once instead of waiting for it to lapse. With `ifMatch`, the acquire only succeeds
 * while the blob still has that ETag (412 resolves false): a claim written in between by an ETag-claiming
 * processor (an Azure SDK processor) wins, as it would against another SDK processor.
 */
export async function acquireBlobLease(
  blob: BlockBlobClient,
  lease: BlobLeaseClient,
  durationSeconds: number,
  timeoutMs: number,
  initialMetadata: Record<string, string>,
  ifMatch?: string,
): Promise<boolean> {
  const conditions = ifMatch ? { ifMatch } : undefined;
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      await lease.acquireLease(durationSeconds, { conditions, abortSignal: AbortSignal.timeout(timeoutMs) });
      return true;
    } catch (error) {
      if (statusOf(error) === 409 || statusOf(error) === 412) return false;
      if (!isNotFound(error) || attempt > 0) throw error;
    }
    try {
      await blob.upload('', 0, {
        metadata: initialMetadata,
        conditions: { ifNoneMatch: '*' },
        abortSignal: AbortSignal.timeout(timeoutMs),
      });
    } catch (error) {
      // Someone else created it meanwhile: fine, acquire it (or find it leased) on the next attempt.
      if (!isConflict(error)) throw error;
    }
  }
  return false;
}
