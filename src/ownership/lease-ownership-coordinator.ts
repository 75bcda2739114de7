import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { BlobLeaseClient, BlockBlobClient, ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope, OwnershipFence } from './checkpoint.ts';
import type { OwnershipCoordinator, OwnershipEvent, PartitionLifecycle, StopReason } from './coordinator.ts';
import { noopLogger, type Logger } from '../component/logger.ts';
import { balance, type BalanceStrategy } from './balance.ts';
import { ownershipBlobName } from './internal/blob-names.ts';
import { acquireBlobLease } from './internal/leased-blob.ts';
import { MembershipLease } from './internal/membership-lease.ts';
import { parseEpoch, readOwnershipSnapshot } from './internal/ownership-snapshot.ts';
import { sortPartitionIds } from './internal/partition-order.ts';
import { isLeaseGone, toStorageError } from './internal/storage-errors.ts';
import { resolveCoordinatorTimings, type CoordinatorTimings } from './internal/coordinator-timings.ts';

export interface LeaseOwnershipCoordinatorOptions {
  /** Container holding the ownership, checkpoint and membership blobs. It must exist. */
  readonly containerClient: ContainerClient;
  readonly scope: CheckpointScope;
  /** This instance's id, written to `ownerid`. Default: a random UUID. Give each instance a distinct id. */
  readonly ownerId?: string;
  /** Lease duration, in ms, 15000–60000, whole seconds (a storage service limit). Default 15000. */
  readonly leaseDurationMs?: number;
  /** Interval between lease renewals, in ms; at most half the lease duration. Default a third of it. */
  readonly renewIntervalMs?: number;
  /** Interval between balancing rounds (list, then claim or yield), in ms. Default 5000. */
  readonly updateIntervalMs?: number;
  /** Delay before the first round, in ms, so that instances started together count each other. Default the update interval. */
  readonly startDelayMs?: number;
  /** A claim is given up this long, in ms, before its lease could lapse without a renewal. Default 2000. */
  readonly safetyMarginMs?: number;
  /** Timeout of each storage request, in ms. Default the renew interval. */
  readonly requestTimeoutMs?: number;
  /** Default `balanced`. */
  readonly strategy?: BalanceStrategy;
  /** The hub's partition ids; called every round. The last answer is reused when it fails. */
  readonly getPartitionIds: () => Promise<string[]>;
  readonly logger?: Logger;
}

export {
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_SAFETY_MARGIN_MS,
  DEFAULT_UPDATE_INTERVAL_MS,
  MAX_LEASE_DURATION_MS,
  MIN_LEASE_DURATION_MS,
} from './internal/coordinator-timings.ts';

/** After a round that claimed and is still below its share, the next round comes this soon, in ms. */
const CATCH_UP_DELAY_MS = 50;

type ClaimState = 'starting' | 'running' | 'stopping' | 'lost' | 'released';

interface Claim {
  readonly partitionId: string;
  readonly leaseId: string;
  readonly ownerLevel: number;
  readonly blob: BlockBlobClient;
  readonly lease: BlobLeaseClient;
  readonly lost: AbortController;
  state: ClaimState;
  lastRenewSentAt: number;
  deadline: NodeJS.Timeout | undefined;
  started: Promise<void>;
}

/**
 * Partition ownership through blob leases: a claim is a lease on `<fqns>/<hub>/<cg>/ownership/<pid>`, whose
 * expiry the storage service enforces; each claim raises the blob's `epoch`, which the reader uses as its
 * owner level so that the hub itself disconnects a stale reader. Instances register a leased membership
 * blob, share partitions by `balance()`, and hand partitions over cooperatively: the over-owner stops its
 * pump (final checkpoint written) before it releases the lease. See docs/ownership.md.
 */
export class LeaseOwnershipCoordinator implements OwnershipCoordinator {
  readonly ownerId: string;
  readonly #options: LeaseOwnershipCoordinatorOptions;
  readonly #timings: CoordinatorTimings;
  readonly #logger: Logger;
  readonly #membership: MembershipLease;
  readonly #claims = new Map<string, Claim>();
  /** Lease ids used per partition: re-acquiring with the same id succeeds while our old lease is still on. */
  readonly #leaseIds = new Map<string, string>();
  readonly #listeners = new Set<(event: OwnershipEvent) => void>();
  readonly #pendingStops = new Set<Promise<void>>();
  #lifecycle: PartitionLifecycle | undefined;
  #state: 'new' | 'running' | 'closing' | 'closed' = 'new';
  #roundTimer: NodeJS.Timeout | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  #renewal: Promise<void> | undefined;
  #shutdown: Promise<void> | undefined;
  #partitionIds: string[] | undefined;

  constructor(options: LeaseOwnershipCoordinatorOptions) {
    this.#options = options;
    this.#timings = resolveCoordinatorTimings(options);
    this.ownerId = options.ownerId ?? randomUUID();
    this.#logger = (options.logger ?? noopLogger).child({ component: 'ownership', ownerId: this.ownerId });
    this.#membership = new MembershipLease(options.containerClient, options.scope, this.ownerId, this.#timings.leaseDurationMs, this.#timings.requestTimeoutMs);
  }

  async start(lifecycle: PartitionLifecycle): Promise<void> {
    if (this.#state !== 'new') throw new Error('the ownership coordinator was already started or shut down');
    this.#lifecycle = lifecycle;
    this.#state = 'running';
    try {
      await this.#membership.ensure();
    } catch (error) {
      // Not fatal: every round tries again, and storage outages are expected to end.
      this.#emit({ type: 'storageError', error: toStorageError(error) });
    }
    this.#scheduleRenewal();
    this.#scheduleRound(this.#timings.startDelayMs);
  }

  owned(): readonly string[] {
    return sortPartitionIds([...this.#claims.values()].filter((c) => c.state === 'starting' || c.state === 'running').map((c) => c.partitionId));
  }

  onEvent(listener: (event: OwnershipEvent) => void): void {
    this.#listeners.add(listener);
  }

  shutdown(): Promise<void> {
    this.#shutdown ??= this.#doShutdown();
    return this.#shutdown;
  }

  /**
   * Simulates a crash, for tests: stops every timer and loop and forgets the claims without calling the
   * lifecycle or releasing any lease, so the leases lapse on the service as they would after a real crash.
   */
  abandon(): void {
    this.#state = 'closed';
    clearTimeout(this.#roundTimer);
    clearTimeout(this.#renewTimer);
    for (const claim of this.#claims.values()) clearTimeout(claim.deadline);
    this.#claims.clear();
  }

  async #doShutdown(): Promise<void> {
    if (this.#state === 'new' || this.#state === 'closed') {
      this.#state = 'closed';
      return;
    }
    this.#state = 'closing';
    clearTimeout(this.#roundTimer);
    await this.#round;
    // Renewals keep running meanwhile: pumps may take a while to finish their batch and final checkpoint.
    await Promise.all([...this.#claims.values()].map((claim) => this.#stopAndRelease(claim, 'shutdown')));
    await Promise.allSettled([...this.#pendingStops]);
    this.#state = 'closed';
    clearTimeout(this.#renewTimer);
    await this.#renewal;
    try {
      await this.#membership.release();
    } catch (error) {
      this.#logger.warn('could not release the membership lease; it lapses by itself', { error: toStorageError(error).message });
    }
  }

  #scheduleRound(delayMs: number): void {
    if (this.#state !== 'running') return;
    this.#roundTimer = setTimeout(() => {
      this.#round = this.#runRound().then((next) => this.#scheduleRound(next));
    }, delayMs);
    this.#roundTimer.unref();
  }

  /** One balancing round; resolves to the delay before the next one. Never rejects. */
  async #runRound(): Promise<number> {
    try {
      const partitionIds = await this.#fetchPartitionIds();
      if (!(await this.#membership.ensure())) {
        this.#logger.warn('membership record is leased by another instance with the same owner id; waiting for it to lapse');
      }
      const snapshot = await readOwnershipSnapshot(this.#options.containerClient, this.#options.scope, AbortSignal.timeout(this.#timings.requestTimeoutMs));
      if (this.#state !== 'running' || !partitionIds) return this.#timings.updateIntervalMs;
      const ownerships = new Map<string, string | undefined>();
      for (const [pid, holder] of snapshot.holders) {
        // Held under our id but not by this object: a lease of ours we lost track of. Not a member's, so claimable.
        ownerships.set(pid, holder === this.ownerId ? `${this.ownerId} (earlier lease)` : holder);
      }
      for (const claim of this.#claims.values()) {
        if (claim.state === 'starting' || claim.state === 'running' || claim.state === 'stopping') ownerships.set(claim.partitionId, this.ownerId);
      }
      const members = snapshot.members.filter((m) => m !== this.ownerId);
      const decision = balance({ ownerId: this.ownerId, members, ownerships, partitionIds, strategy: this.#timings.strategy });
      this.#emit({ type: 'balanced', owned: this.owned(), members: decision.members, fairShare: decision.fairShare });
      for (const pid of decision.yield) {
        const claim = this.#claims.get(pid);
        if (claim) await this.#stopAndRelease(claim, 'yield');
      }
      const toClaim = decision.claim.filter((pid) => !this.#claims.has(pid));
      const results = await Promise.all(toClaim.map((pid) => this.#claim(pid, snapshot.epochs.get(pid))));
      const raced = toClaim.some((pid, i) => !results[i] && ownerships.get(pid) === undefined);
      if ((results.some(Boolean) || raced) && this.owned().length < decision.fairShare) return Math.min(CATCH_UP_DELAY_MS, this.#timings.updateIntervalMs);
    } catch (error) {
      this.#emit({ type: 'storageError', error: toStorageError(error) });
    }
    return this.#timings.updateIntervalMs;
  }

  async #fetchPartitionIds(): Promise<string[] | undefined> {
    try {
      this.#partitionIds = await this.#options.getPartitionIds();
    } catch (error) {
      this.#logger.warn('could not read the hub partition ids; using the last known list', { error: error instanceof Error ? error.message : String(error) });
    }
    return this.#partitionIds;
  }

  /** Acquires the partition's lease, raises its epoch and starts the pump. Resolves true when the pump runs. */
  async #claim(partitionId: string, listedEpoch: number | undefined): Promise<boolean> {
    const { containerClient, scope } = this.#options;
    const timeoutMs = this.#timings.requestTimeoutMs;
    const blob = containerClient.getBlockBlobClient(ownershipBlobName(scope, partitionId));
    const leaseId = this.#leaseIds.get(partitionId) ?? randomUUID();
    const lease = blob.getBlobLeaseClient(leaseId);
    const sentAt = performance.now();
    let ownerLevel: number;
    try {
      if (!(await acquireBlobLease(blob, lease, this.#timings.leaseDurationMs / 1000, timeoutMs, { ownerid: '' }))) return false;
      this.#leaseIds.set(partitionId, leaseId);
      // Read under the lease: the listing may predate another owner's claim, and the epoch must only grow.
      const props = await blob.getProperties({ conditions: { leaseId }, abortSignal: AbortSignal.timeout(timeoutMs) });
      ownerLevel = Math.max(parseEpoch(props.metadata?.epoch) ?? 0, listedEpoch ?? 0) + 1;
      await blob.setMetadata({ ownerid: this.ownerId, epoch: String(ownerLevel) }, { conditions: { leaseId }, abortSignal: AbortSignal.timeout(timeoutMs) });
    } catch (error) {
      this.#emit({ type: 'storageError', error: toStorageError(error) });
      await lease.releaseLease({ abortSignal: AbortSignal.timeout(timeoutMs) }).catch(() => undefined);
      return false;
    }
    const claim: Claim = {
      partitionId, leaseId, ownerLevel, blob, lease,
      lost: new AbortController(),
      state: 'starting',
      lastRenewSentAt: sentAt,
      deadline: undefined,
      started: Promise.resolve(),
    };
    this.#claims.set(partitionId, claim);
    this.#armDeadline(claim);
    if (this.#state !== 'running') {
      await this.#release(claim, 'shutdown');
      return false;
    }
    const fence: OwnershipFence = { leaseId, isValid: () => this.#isValid(claim) };
    claim.started = this.#lifecycle!.startPartition({ partitionId, ownerLevel, fence, lost: claim.lost.signal });
    try {
      await claim.started;
    } catch (error) {
      this.#logger.error('starting the partition failed; releasing it', { partitionId, error: error instanceof Error ? error.message : String(error) });
      if (claim.state === 'starting') await this.#release(claim, 'yield');
      return false;
    }
    if (claim.state !== 'starting') return false;
    claim.state = 'running';
    this.#emit({ type: 'claimed', partitionId, ownerLevel });
    return true;
  }

  #isValid(claim: Claim): boolean {
    const active = claim.state === 'starting' || claim.state === 'running' || claim.state === 'stopping';
    return active && performance.now() - claim.lastRenewSentAt < this.#timings.leaseDurationMs - this.#timings.safetyMarginMs;
  }

  /** Yield or shutdown: the pump finishes its batch and writes the final checkpoint, then the lease goes. */
  async #stopAndRelease(claim: Claim, reason: 'yield' | 'shutdown'): Promise<void> {
    await claim.started.catch(() => undefined);
    if (claim.state !== 'running') return;
    claim.state = 'stopping';
    try {
      await this.#lifecycle!.stopPartition(claim.partitionId, reason);
    } catch (error) {
      this.#logger.error('stopping the partition failed', { partitionId: claim.partitionId, reason, error: error instanceof Error ? error.message : String(error) });
    }
    if (claim.state !== 'stopping') return; // lost meanwhile: the lease is not ours to release
    await this.#release(claim, reason);
  }

  /** Clears `ownerid` (SDK tools then show the partition unowned) and releases the lease. */
  async #release(claim: Claim, reason: StopReason): Promise<void> {
    claim.state = 'released';
    clearTimeout(claim.deadline);
    const conditions = { leaseId: claim.leaseId };
    try {
      await claim.blob.setMetadata({ ownerid: '', epoch: String(claim.ownerLevel) }, { conditions, abortSignal: AbortSignal.timeout(this.#timings.requestTimeoutMs) });
      await claim.lease.releaseLease({ abortSignal: AbortSignal.timeout(this.#timings.requestTimeoutMs) });
    } catch (error) {
      this.#logger.warn('could not release a partition lease; it lapses by itself', { partitionId: claim.partitionId, error: toStorageError(error).message });
    }
    if (this.#claims.get(claim.partitionId) === claim) this.#claims.delete(claim.partitionId);
    this.#emit({ type: 'released', partitionId: claim.partitionId, reason });
  }

  /** Ownership may be gone: abort the claim's signal and stop the pump at once, writing nothing. */
  #lose(claim: Claim, error: Error): void {
    if (claim.state === 'lost' || claim.state === 'released') return;
    const wasStopping = claim.state === 'stopping';
    claim.state = 'lost';
    clearTimeout(claim.deadline);
    claim.lost.abort(error);
    this.#logger.warn('partition ownership lost', { partitionId: claim.partitionId, error: error.message });
    this.#emit({ type: 'released', partitionId: claim.partitionId, reason: 'lost' });
    const forget = () => {
      if (this.#claims.get(claim.partitionId) === claim) this.#claims.delete(claim.partitionId);
    };
    // A yield or shutdown in progress already called stopPartition; the aborted signal tells it to hurry.
    if (wasStopping) return forget();
    const stop = claim.started
      .catch(() => undefined)
      .then(() => this.#lifecycle!.stopPartition(claim.partitionId, 'lost'))
      .catch((e: unknown) => this.#logger.error('stopping a lost partition failed', { partitionId: claim.partitionId, error: e instanceof Error ? e.message : String(e) }))
      .finally(() => {
        forget();
        this.#pendingStops.delete(stop);
      });
    this.#pendingStops.add(stop);
  }

  /** Gives the claim up just before its lease could lapse unrenewed: no split brain during a storage outage. */
  #armDeadline(claim: Claim): void {
    clearTimeout(claim.deadline);
    const { leaseDurationMs, safetyMarginMs } = this.#timings;
    const remainingMs = claim.lastRenewSentAt + leaseDurationMs - safetyMarginMs - performance.now();
    claim.deadline = setTimeout(() => this.#lose(claim, new Error(`lease not renewed for ${leaseDurationMs - safetyMarginMs} ms`)), Math.max(0, remainingMs));
    claim.deadline.unref();
  }

  #scheduleRenewal(): void {
    if (this.#state === 'closed') return;
    this.#renewTimer = setTimeout(() => {
      this.#renewal = this.#renewAll().then(() => this.#scheduleRenewal());
    }, this.#timings.renewIntervalMs);
    this.#renewTimer.unref();
  }

  async #renewAll(): Promise<void> {
    const claims = [...this.#claims.values()].filter((c) => c.state === 'starting' || c.state === 'running' || c.state === 'stopping');
    const membership = this.#membership.renew().catch((error: unknown) => this.#emit({ type: 'storageError', error: toStorageError(error) }));
    await Promise.all([membership, ...claims.map((claim) => this.#renew(claim))]);
  }

  async #renew(claim: Claim): Promise<void> {
    const sentAt = performance.now();
    try {
      await claim.lease.renewLease({ abortSignal: AbortSignal.timeout(this.#timings.requestTimeoutMs) });
      if (claim.state === 'lost' || claim.state === 'released') return;
      // The service renewed after we sent: counting from the send time errs on the safe side.
      claim.lastRenewSentAt = Math.max(claim.lastRenewSentAt, sentAt);
      this.#armDeadline(claim);
    } catch (error) {
      if (claim.state === 'lost' || claim.state === 'released') return;
      const safe = toStorageError(error);
      this.#emit({ type: 'renewalFailed', partitionId: claim.partitionId, error: safe });
      if (isLeaseGone(error)) this.#lose(claim, safe);
    }
  }

  #emit(event: OwnershipEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        this.#logger.warn('an ownership event listener threw', { error: error instanceof Error ? error.message : String(error) });
      }
    }
  }
}
