import { performance } from 'node:perf_hooks';
import type { ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope } from '../checkpoint.ts';
import type { OwnershipEvent, PartitionEnd, PartitionHandle, PartitionLifecycle, StopReason } from '../coordinator.ts';
import type { Logger } from '../../component/logger.ts';
import type { CoordinatorTimings } from './coordinator-timings.ts';
import { foreignOwner } from './foreign-owner.ts';
import { PartitionLease, type OwnershipBlobProps } from './partition-lease.ts';
import { sortPartitionIds } from '../partition-order.ts';
import type { RestartBackoff } from './restart-backoff.ts';
import { toStorageError } from '../storage-errors.ts';

export interface LeasedPartitionsOptions {
  readonly containerClient: ContainerClient;
  readonly scope: CheckpointScope;
  readonly ownerId: string;
  readonly timings: CoordinatorTimings;
  readonly restarts: RestartBackoff;
  /** The receiver's lifecycle, once the coordinator started. */
  readonly lifecycle: () => PartitionLifecycle;
  /** Aborted at shutdown: starts in progress give up. */
  readonly closing: AbortSignal;
  /** False once the coordinator is shutting down: a lease acquired then is released at once. */
  readonly running: () => boolean;
  /** Brings the next balancing round forward to `delayMs` from now. */
  readonly wake: (delayMs: number) => void;
  readonly emit: (event: OwnershipEvent) => void;
  readonly logger: Logger;
}

/** What the listing a claim was chosen from showed about the partition. */
export interface ListedOwnership {
  /** The ownership blob's ETag: the lease is acquired on it, so that a foreign claim made since wins. */
  readonly etag: string | undefined;
  readonly epoch: number | undefined;
  /** Every owner id of this fleet (members with a record): an `ownerid` outside it may be foreign. */
  readonly known: ReadonlySet<string>;
}

/**
 * The partitions this instance holds a lease on, from the claim to the release: acquiring the lease and
 * starting the partition, and every way a held partition ends (a yield or shutdown, an end by itself, a
 * lost lease). A leased partition is always being read or being handed back; never leased and idle.
 */
export class LeasedPartitions {
  readonly #options: LeasedPartitionsOptions;
  readonly #claims = new Map<string, PartitionLease>();
  /** Lease ids used per partition: re-acquiring with the same id succeeds while our old lease is still on. */
  readonly #leaseIds = new Map<string, string>();
  readonly #pendingStops = new Set<Promise<void>>();

  constructor(options: LeasedPartitionsOptions) {
    this.#options = options;
  }

  get(partitionId: string): PartitionLease | undefined {
    return this.#claims.get(partitionId);
  }

  has(partitionId: string): boolean {
    return this.#claims.has(partitionId);
  }

  /** Every claim held, in any state. */
  values(): IterableIterator<PartitionLease> {
    return this.#claims.values();
  }

  /** Partitions starting or running, sorted. */
  owned(): string[] {
    const live = [...this.#claims.values()].filter((c) => c.state === 'starting' || c.state === 'running');
    return sortPartitionIds(live.map((c) => c.partitionId));
  }

  /** Resolves once the stops under way (of lost partitions, and releases after an end) have ended. */
  async settled(): Promise<void> {
    await Promise.allSettled([...this.#pendingStops]);
  }

  /** Forgets every claim without stopping or releasing anything (a simulated crash). */
  abandon(): void {
    for (const claim of this.#claims.values()) claim.dispose();
    this.#claims.clear();
  }

  /**
   * Acquires the partition's lease (conditional on the listed `etag`, so that a foreign ETag claim made
   * since the listing wins), raises its epoch and starts the pump. Resolves true when the pump runs.
   */
  async claim(partitionId: string, listed: ListedOwnership): Promise<boolean> {
    const { containerClient, scope, ownerId, timings, closing } = this.#options;
    let claim: PartitionLease | undefined;
    const expiryMs = timings.foreignOwnershipExpiryMs;
    const guard = {
      etag: listed.etag,
      listedEpoch: listed.epoch,
      foreignOwner: (p: OwnershipBlobProps) =>
        foreignOwner(
          { ownerId: p.metadata?.ownerid, leased: false, lastModifiedMs: p.lastModified?.getTime() },
          new Set([...listed.known, ownerId]),
          p.date?.getTime() ?? Date.now(),
          expiryMs,
        ),
    };
    try {
      const onExpire = (c: PartitionLease): void =>
        this.lose(c, new Error(`lease not renewed for ${timings.leaseDurationMs - timings.safetyMarginMs} ms`));
      const leaseId = this.#leaseIds.get(partitionId);
      claim = await PartitionLease.acquire(
        containerClient,
        scope,
        partitionId,
        ownerId,
        leaseId,
        timings,
        onExpire,
        guard,
      );
    } catch (error) {
      this.#options.emit({ type: 'storageError', error: toStorageError(error) });
      return false;
    }
    if (!claim) return false;
    this.#leaseIds.set(partitionId, claim.leaseId);
    this.#claims.set(partitionId, claim);
    if (!this.#options.running()) {
      await this.#release(claim, 'shutdown');
      return false;
    }
    const { ownerLevel } = claim;
    const signal = AbortSignal.any([claim.lost.signal, closing, AbortSignal.timeout(timings.startTimeoutMs)]);
    const lifecycle = this.#options.lifecycle();
    claim.started = lifecycle.startPartition({ partitionId, ownerLevel, fence: claim.fence() }, signal).then(
      (handle) => handle,
      (error: unknown) => {
        const err = error instanceof Error ? error : new Error(String(error));
        if (claim.state === 'starting' && !closing.aborted) {
          const retryInMs = this.#options.restarts.failed(partitionId);
          this.#options.emit({ type: 'startFailed', partitionId, error: err, retryInMs });
        }
        return undefined;
      },
    );
    const handle = await claim.started;
    if (!handle) {
      if (claim.state === 'starting') await this.#release(claim, 'yield');
      return false;
    }
    claim.handle = handle;
    claim.startedAt = performance.now();
    void handle.ended.then((end) => this.#onEnded(claim, handle, end));
    if (claim.state !== 'starting') return false; // lost or shut down meanwhile: whoever changed it stops the handle
    claim.state = 'running';
    this.#options.emit({ type: 'claimed', partitionId, ownerLevel });
    return true;
  }

  /** Yield or shutdown: the pump finishes its batch and writes the final checkpoint, then the lease goes. */
  async stopAndRelease(claim: PartitionLease, reason: 'yield' | 'shutdown'): Promise<void> {
    await claim.started;
    if (claim.state !== 'running' || !claim.handle) return;
    claim.state = 'stopping';
    try {
      await claim.handle.stop(reason);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.#options.logger.error('stopping the partition failed', {
        partitionId: claim.partitionId,
        reason,
        error: message,
      });
    }
    if (claim.state !== 'stopping') return; // lost meanwhile: the lease is not ours to release
    await this.#release(claim, reason);
  }

  /** Ownership may be gone: abort the claim's signal and stop the pump at once, writing nothing. */
  lose(claim: PartitionLease, error: Error): void {
    const { logger } = this.#options;
    const wasStopping = claim.state === 'stopping';
    if (!claim.markLost(error)) return;
    logger.warn('partition ownership lost', { partitionId: claim.partitionId, error: error.message });
    this.#options.emit({ type: 'released', partitionId: claim.partitionId, reason: 'lost' });
    // A yield or shutdown in progress already called stopPartition; the aborted signal tells it to hurry.
    if (wasStopping) return this.#forget(claim);
    const stop = claim.started
      .then((handle) => handle?.stop('lost'))
      .then(() => undefined)
      .catch((e: unknown) => {
        const message = e instanceof Error ? e.message : String(e);
        logger.error('stopping a lost partition failed', { partitionId: claim.partitionId, error: message });
      })
      .finally(() => {
        this.#forget(claim);
        this.#pendingStops.delete(stop);
      });
    this.#pendingStops.add(stop);
  }

  /**
   * A partition's reading ended. Ended by our own stop: nothing to do. Ended by itself (link stolen by a
   * higher owner level, an unexpected error): the lease goes back to the fleet at once, after the final
   * checkpoint the pump wrote, and this instance waits out a restart backoff before it claims the
   * partition again, so any instance may take it at its next round with a raised owner level.
   */
  #onEnded(claim: PartitionLease, handle: PartitionHandle, end: PartitionEnd): void {
    if (claim.handle !== handle || end.reason === 'stopped' || !claim.active) return;
    const retryInMs = this.#options.restarts.failed(claim.partitionId, performance.now() - claim.startedAt);
    this.#options.emit({ type: 'ended', partitionId: claim.partitionId, end, retryInMs });
    if (end.reason === 'fenced') {
      this.lose(claim, end.error ?? new Error('checkpoint fenced: the lease is gone'));
      return;
    }
    if (claim.state === 'stopping') return; // a yield or shutdown is already releasing it
    claim.state = 'stopping';
    const release = this.#release(claim, end.reason).finally(() => {
      this.#pendingStops.delete(release);
      this.#options.wake(retryInMs);
    });
    this.#pendingStops.add(release);
  }

  async #release(claim: PartitionLease, reason: StopReason | PartitionEnd['reason']): Promise<void> {
    try {
      await claim.release();
    } catch (error) {
      const message = toStorageError(error).message;
      this.#options.logger.warn('could not release a partition lease; it lapses by itself', {
        partitionId: claim.partitionId,
        error: message,
      });
    }
    this.#forget(claim);
    this.#options.emit({ type: 'released', partitionId: claim.partitionId, reason });
  }

  #forget(claim: PartitionLease): void {
    if (this.#claims.get(claim.partitionId) === claim) this.#claims.delete(claim.partitionId);
  }
}
