import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BlobLeaseClient, BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope, OwnershipFence } from '../checkpoint.ts';
import type { PartitionHandle } from '../coordinator.ts';
import { ownershipBlobName } from './blob-names.ts';
import { acquireBlobLease } from './leased-blob.ts';
import { parseEpoch } from './ownership-snapshot.ts';
import { isConflict, isLeaseGone } from '../storage-errors.ts';

/** starting → running → stopping → released, or → lost from any of the first three. */
export type PartitionLeaseState = 'starting' | 'running' | 'stopping' | 'lost' | 'released';

/** What the service tells about an ownership blob read under our lease. */
export interface OwnershipBlobProps {
  readonly metadata?: Record<string, string>;
  readonly lastModified?: Date;
  /** The response's Date: the service's clock. */
  readonly date?: Date;
}

/**
 * What a claim checks against foreign (ETag-claiming) processors: the ownership blob's ETag from the
 * listing the claim was decided on, and a test of the blob's properties read under our new lease.
 */
export interface ForeignClaimGuard {
  readonly etag?: string;
  /**
   * The `epoch` the listing showed with `etag`. A lease acquired on that ETag holds the blob as listed, so the
   * claim raises this epoch without reading the blob again under the lease. Default 0.
   */
  readonly listedEpoch?: number;
  /** The live foreign owner the properties show, if any (see foreign-owner.ts). */
  readonly foreignOwner: (props: OwnershipBlobProps) => string | undefined;
}

/**
 * After a renewal failed without a definite answer (a timeout, a 5xx, a refused connection), the next attempt
 * is due this soon, in ms (or the renew interval, if shorter), not a whole renew interval later: the lease
 * still has time left, and a claim is only lost when its deadline passes.
 */
export const RENEW_RETRY_MS = 1_000;

export interface PartitionLeaseTimings {
  readonly leaseDurationMs: number;
  readonly safetyMarginMs: number;
  readonly requestTimeoutMs: number;
}

/**
 * One held claim: the lease on `ownership/<pid>`, the epoch raised for it, and the renewal bookkeeping.
 * A deadline timer fires `onExpire` when the last renewal that succeeded was *sent* more than
 * `leaseDurationMs - safetyMarginMs` ago, so it fires before the service could let the lease lapse.
 */
export class PartitionLease {
  readonly partitionId: string;
  readonly leaseId: string;
  readonly ownerLevel: number;
  readonly lost = new AbortController();
  state: PartitionLeaseState = 'starting';
  /** The lifecycle's startPartition promise, once called; undefined when the start failed. */
  started: Promise<PartitionHandle | undefined> = Promise.resolve(undefined);
  /** The running partition, once started. */
  handle: PartitionHandle | undefined;
  /** When the partition started reading (performance.now()), for the restart backoff. */
  startedAt = 0;
  readonly #blob: BlockBlobClient;
  readonly #lease: BlobLeaseClient;
  readonly #timings: PartitionLeaseTimings;
  readonly #onExpire: (lease: PartitionLease) => void;
  #lastRenewSentAt: number;
  /** When the last renewal was sent, whatever its outcome (performance.now()). */
  #lastAttemptAt: number;
  /** The last renewal failed without a definite answer: the next one is due after RENEW_RETRY_MS. */
  #lastAttemptFailed = false;
  /** Renewals in flight (ours, not a fence's). */
  #renewing = 0;
  #deadline: NodeJS.Timeout | undefined;

  private constructor(
    init: {
      partitionId: string;
      leaseId: string;
      ownerLevel: number;
      blob: BlockBlobClient;
      lease: BlobLeaseClient;
      sentAt: number;
    },
    timings: PartitionLeaseTimings,
    onExpire: (lease: PartitionLease) => void,
  ) {
    this.partitionId = init.partitionId;
    this.leaseId = init.leaseId;
    this.ownerLevel = init.ownerLevel;
    this.#blob = init.blob;
    this.#lease = init.lease;
    this.#lastRenewSentAt = init.sentAt;
    this.#lastAttemptAt = init.sentAt;
    this.#timings = timings;
    this.#onExpire = onExpire;
    this.#armDeadline();
  }

  /**
   * Acquires the partition's lease (with `leaseId` when given: Azure lets the holder of a lease acquire it
   * again), then raises `epoch` and sets `ownerid` under the lease. Resolves undefined when another instance
   * holds it; throws on storage errors after releasing what it acquired. With a `guard`, the acquire is
   * conditional on the listed ETag, and a blob that shows a live foreign owner once we hold the lease (a
   * claim that slipped in before our acquire) is let go at once, unchanged: resolves undefined.
   */
  static async acquire(
    container: ContainerClient,
    scope: CheckpointScope,
    partitionId: string,
    ownerId: string,
    leaseId: string | undefined,
    timings: PartitionLeaseTimings,
    onExpire: (lease: PartitionLease) => void,
    guard?: ForeignClaimGuard,
  ): Promise<PartitionLease | undefined> {
    const timeout = () => AbortSignal.timeout(timings.requestTimeoutMs);
    const blob = container.getBlockBlobClient(ownershipBlobName(scope, partitionId));
    const id = leaseId ?? randomUUID();
    const lease = blob.getBlobLeaseClient(id);
    const sentAt = performance.now();
    const seconds = timings.leaseDurationMs / 1000;
    // A lease acquired on a known ETag holds the blob in a known state: as the listing showed it (no foreign
    // owner, or it would not be a candidate, and the epoch listed), or as this claim just created it (empty,
    // epoch 0). Otherwise (a blob created by someone since the listing) it is read under the lease.
    let known: { etag: string; epoch: number } | undefined;
    if (guard?.etag !== undefined) known = { etag: guard.etag, epoch: guard.listedEpoch ?? 0 };
    else if (guard) known = await createEmpty(blob, timings.requestTimeoutMs);
    const ifMatch = known?.etag ?? guard?.etag;
    const acquired = await acquireBlobLease(blob, lease, seconds, timings.requestTimeoutMs, { ownerid: '' }, ifMatch);
    if (!acquired) return undefined;
    try {
      let epoch = known?.epoch;
      if (epoch === undefined) {
        // Read under the lease: a listing may predate another owner's claim, and the epoch must only grow.
        const props = await blob.getProperties({ conditions: { leaseId: id }, abortSignal: timeout() });
        if (guard?.foreignOwner(props) !== undefined) {
          // Released without a write: the blob keeps its ETag, so the foreign owner's next renewal succeeds.
          await lease.releaseLease({ abortSignal: timeout() });
          return undefined;
        }
        epoch = parseEpoch(props.metadata?.epoch) ?? 0;
      }
      const ownerLevel = epoch + 1;
      await blob.setMetadata(
        { ownerid: ownerId, epoch: String(ownerLevel) },
        { conditions: { leaseId: id }, abortSignal: timeout() },
      );
      return new PartitionLease({ partitionId, leaseId: id, ownerLevel, blob, lease, sentAt }, timings, onExpire);
    } catch (error) {
      await lease.releaseLease({ abortSignal: timeout() }).catch(() => undefined);
      throw error;
    }
  }

  /** Holds (or may hold) the lease: starting, running or stopping. */
  get active(): boolean {
    return this.state === 'starting' || this.state === 'running' || this.state === 'stopping';
  }

  isValid(): boolean {
    return (
      this.active &&
      performance.now() - this.#lastRenewSentAt < this.#timings.leaseDurationMs - this.#timings.safetyMarginMs
    );
  }

  /** Time left, in ms, before the lease could lapse without a renewal (less the safety margin); 0 once inactive. */
  remainingMs(): number {
    if (!this.active) return 0;
    const { leaseDurationMs, safetyMarginMs } = this.#timings;
    return Math.max(0, this.#lastRenewSentAt + leaseDurationMs - safetyMarginMs - performance.now());
  }

  fence(): OwnershipFence {
    return {
      leaseId: this.leaseId,
      isValid: () => this.isValid(),
      remainingMs: () => this.remainingMs(),
      renewed: (sentAt) => this.#noteRenewed(sentAt),
    };
  }

  /**
   * True once `intervalMs` passed since the last renewal sent (ours or a fence's), or since the last attempt;
   * after a failed attempt, once RENEW_RETRY_MS (at most `intervalMs`) passed since it.
   */
  renewalDue(intervalMs: number, now: number = performance.now()): boolean {
    const sinceMs = now - Math.max(this.#lastAttemptAt, this.#lastRenewSentAt);
    return sinceMs >= (this.#lastAttemptFailed ? Math.min(RENEW_RETRY_MS, intervalMs) : intervalMs);
  }

  /**
   * Renews once. `gone`: the service says the lease is not ours any more (409/412/404).
   *
   * The request waits for its answer as long as the claim has lease left (at least the request timeout): a
   * renewal the service answers late still renewed the lease, from no earlier than when it was sent. Giving
   * up on it at the request timeout, as other requests do, would leave it queued at a slow service anyway and
   * add a retry behind it: under load, that is how renewals fell behind and leases were lost.
   * `stop` (a shutdown, once nothing is held) ends it at once instead.
   */
  async renew(stop?: AbortSignal): Promise<{ ok: true } | { ok: false; gone: boolean; error: unknown }> {
    const sentAt = performance.now();
    this.#lastAttemptAt = sentAt;
    // Whole ms: AbortSignal.timeout refuses fractions.
    const timeoutMs = Math.ceil(Math.max(this.#timings.requestTimeoutMs, this.remainingMs()));
    this.#renewing++;
    try {
      const timeout = AbortSignal.timeout(timeoutMs);
      await this.#lease.renewLease({ abortSignal: stop ? AbortSignal.any([timeout, stop]) : timeout });
    } catch (error) {
      const gone = isLeaseGone(error);
      this.#lastAttemptFailed = !gone;
      return { ok: false, gone, error };
    } finally {
      this.#renewing--;
    }
    this.#lastAttemptFailed = false;
    this.#noteRenewed(sentAt);
    return { ok: true };
  }

  /** A renewal sent at `sentAt` succeeded (ours, or a checkpoint store's fence): the deadline moves on. */
  #noteRenewed(sentAt: number): void {
    if (!this.active) return;
    this.#lastRenewSentAt = Math.max(this.#lastRenewSentAt, sentAt);
    this.#armDeadline();
  }

  /** Marks the claim lost and aborts its signal; false when it was already lost or released. */
  markLost(reason: Error): boolean {
    if (!this.active) return false;
    this.state = 'lost';
    clearTimeout(this.#deadline);
    this.lost.abort(reason);
    return true;
  }

  /** Clears `ownerid` (SDK tools then show the partition unowned) and releases the lease. */
  async release(): Promise<void> {
    this.state = 'released';
    clearTimeout(this.#deadline);
    const conditions = { leaseId: this.leaseId };
    await this.#blob.setMetadata(
      { ownerid: '', epoch: String(this.ownerLevel) },
      { conditions, abortSignal: AbortSignal.timeout(this.#timings.requestTimeoutMs) },
    );
    await this.#lease.releaseLease({ abortSignal: AbortSignal.timeout(this.#timings.requestTimeoutMs) });
  }

  /** Stops the deadline timer without touching the lease (crash simulation). */
  dispose(): void {
    clearTimeout(this.#deadline);
  }

  #armDeadline(): void {
    clearTimeout(this.#deadline);
    const { leaseDurationMs, safetyMarginMs } = this.#timings;
    const remainingMs = this.#lastRenewSentAt + leaseDurationMs - safetyMarginMs - performance.now();
    this.#deadline = setTimeout(() => this.#expireUnlessRenewed(), Math.max(0, remainingMs));
    this.#deadline.unref();
  }

  /**
   * The deadline passed. After the event loop was blocked, expired timers run before the I/O that arrived
   * meanwhile is read, so an answer to a renewal in flight may be waiting unread: let two turns of the loop
   * read it (its success re-arms the deadline) before giving the claim up. This stays within the safety
   * margin unless the loop is blocked again, which would have delayed this timer as much.
   */
  #expireUnlessRenewed(): void {
    if (this.#renewing === 0) return this.#onExpire(this);
    setImmediate(() =>
      setImmediate(() => {
        if (!this.active) return;
        // Renewed meanwhile: the deadline was re-armed. A timer may also fire a fraction of a ms early: re-arm.
        if (this.remainingMs() > 0) return this.#armDeadline();
        this.#onExpire(this);
      }),
    );
  }
}

/**
 * Creates the empty ownership blob, only if it does not exist; resolves its ETag (epoch 0), or undefined when
 * the blob exists already (created by someone since the listing). Saves a claim of a new partition the
 * failed acquire (404) that would otherwise come first.
 */
async function createEmpty(
  blob: BlockBlobClient,
  timeoutMs: number,
): Promise<{ etag: string; epoch: number } | undefined> {
  try {
    const created = await blob.upload('', 0, {
      metadata: { ownerid: '' },
      conditions: { ifNoneMatch: '*' },
      abortSignal: AbortSignal.timeout(timeoutMs),
    });
    return created.etag === undefined ? undefined : { etag: created.etag, epoch: 0 };
  } catch (error) {
    if (isConflict(error)) return undefined;
    throw error;
  }
}
