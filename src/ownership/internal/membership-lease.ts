import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BlobLeaseClient, BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope } from '../checkpoint.ts';
import { memberBlobName } from './blob-names.ts';
import { acquireBlobLease } from './leased-blob.ts';
import { isLeaseGone } from '../storage-errors.ts';

/** Metadata key on a membership blob: the instance is shutting down and is about to release its partitions. */
export const LEAVING_METADATA_KEY = 'leaving';

/**
 * This instance's membership record: a leased blob `<prefix>/members/<owner id>`. While the lease is held
 * the instance counts toward the fair share even when it owns no partition, so over-owners see a newcomer
 * and yield to it. One lease id for the instance's life: re-acquiring after an outage succeeds at once even
 * if the old lease had not lapsed yet. A graceful shutdown first marks the record `leaving` (see
 * `markLeaving`), so that peers get ready to claim at once; a fresh lease clears a mark left by an earlier
 * incarnation with the same owner id.
 */
export class MembershipLease {
  readonly #blob: BlockBlobClient;
  readonly #lease: BlobLeaseClient;
  readonly #durationMs: number;
  readonly #timeoutMs: number;
  #held = false;
  #leaving = false;
  #lastRenewSentAt = 0;
  /** The announcement in flight, and whether another was asked for meanwhile (announcements coalesce). */
  #announcing: Promise<void> | undefined;
  #announceAgain = false;

  constructor(
    container: ContainerClient,
    scope: CheckpointScope,
    ownerId: string,
    leaseDurationMs: number,
    requestTimeoutMs: number,
  ) {
    this.#blob = container.getBlockBlobClient(memberBlobName(scope, ownerId));
    this.#lease = this.#blob.getBlobLeaseClient(randomUUID());
    this.#durationMs = leaseDurationMs;
    this.#timeoutMs = requestTimeoutMs;
  }

  get held(): boolean {
    return this.#held;
  }

  /**
   * Acquires the lease unless held. Resolves false while another holder (a previous incarnation with the same owner id)
   * has it.
   */
  async ensure(): Promise<boolean> {
    if (this.#held) return true;
    const sentAt = performance.now();
    if (!(await acquireBlobLease(this.#blob, this.#lease, this.#durationMs / 1000, this.#timeoutMs, {}))) return false;
    // One write per acquisition (never in steady state): an earlier incarnation may have left `leaving` set.
    await this.#blob.setMetadata(
      {},
      { conditions: { leaseId: this.#lease.leaseId }, abortSignal: AbortSignal.timeout(this.#timeoutMs) },
    );
    this.#held = true;
    this.#leaving = false;
    this.#lastRenewSentAt = sentAt;
    return true;
  }

  /** Marks the record `leaving` (under the lease): peers stop counting this instance and watch for its releases. */
  async markLeaving(): Promise<void> {
    if (!this.#held) return;
    this.#leaving = true;
    const metadata = { [LEAVING_METADATA_KEY]: 'true' };
    await this.#blob.setMetadata(metadata, {
      conditions: { leaseId: this.#lease.leaseId },
      abortSignal: AbortSignal.timeout(this.#timeoutMs),
    });
  }

  /**
   * Rewrites the record as it is (no metadata), under the lease, so that its ETag changes: peers in quiet
   * rounds (quiet-rounds.ts) list ownership at their next round and see the partition this instance gave
   * back while staying (its reader ended, a yield, a lost lease), instead of at their next full listing.
   * One write; calls while one is in flight coalesce into one more. Not while leaving (that mark is the
   * notice then). Failures are left to `onError` and otherwise ignored: the next full listing sees it anyway.
   */
  announceChange(onError: (error: unknown) => void): void {
    if (!this.#held || this.#leaving) return;
    if (this.#announcing) {
      this.#announceAgain = true;
      return;
    }
    this.#announcing = this.#blob
      .setMetadata(
        {},
        { conditions: { leaseId: this.#lease.leaseId }, abortSignal: AbortSignal.timeout(this.#timeoutMs) },
      )
      .then(() => undefined, onError)
      .finally(() => {
        this.#announcing = undefined;
        if (this.#announceAgain) {
          this.#announceAgain = false;
          this.announceChange(onError);
        }
      });
  }

  /** Renews once; `stop` (a shutdown) ends a renewal still waiting for its answer. */
  async renew(stop?: AbortSignal): Promise<void> {
    if (!this.#held) return;
    const sentAt = performance.now();
    // As a partition lease's renewal (partition-lease.ts): a late answer still counts, so wait for it while the
    // lease may still be on, rather than give up and queue a retry behind it at a slow service.
    const leftMs = this.#lastRenewSentAt + this.#durationMs - sentAt;
    try {
      const timeout = AbortSignal.timeout(Math.ceil(Math.max(this.#timeoutMs, leftMs)));
      await this.#lease.renewLease({ abortSignal: stop ? AbortSignal.any([timeout, stop]) : timeout });
      this.#lastRenewSentAt = sentAt;
    } catch (error) {
      // Gone for sure, or possibly lapsed: either way acquire again at the next balancing round.
      if (isLeaseGone(error) || performance.now() - this.#lastRenewSentAt >= this.#durationMs) this.#held = false;
      throw error;
    }
  }

  async release(): Promise<void> {
    if (!this.#held) return;
    this.#held = false;
    await this.#lease.releaseLease({ abortSignal: AbortSignal.timeout(this.#timeoutMs) });
  }
}
