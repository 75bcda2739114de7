import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import type { ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope } from './checkpoint.ts';
import type { OwnershipCoordinator, OwnershipEvent, PartitionLifecycle } from './coordinator.ts';
import { noopLogger, type Logger } from '../component/logger.ts';
import { balance, type BalanceStrategy } from './balance.ts';
import { ClaimAdmission } from './internal/claim-admission.ts';
import { ClaimRamp } from './internal/claim-ramp.ts';
import { resolveCoordinatorTimings, type CoordinatorTimings } from './internal/coordinator-timings.ts';
import { ForeignOwnersNotice } from './internal/foreign-owners-notice.ts';
import { LeasedPartitions } from './internal/leased-partitions.ts';
import { announceLeaving } from './internal/leave-notice.ts';
import { MembershipLease } from './internal/membership-lease.ts';
import { OrphanWatch } from './internal/orphan-watch.ts';
import { readMembership, readOwnershipSnapshot, type MembershipListing } from './internal/ownership-snapshot.ts';
import { PartitionIdSource } from './internal/partition-id-source.ts';
import { QuietRounds, settledShare, type SettledShare } from './internal/quiet-rounds.ts';
import { RenewalPressure } from './internal/renewal-pressure.ts';
import { RenewalSchedule } from './internal/renewal-schedule.ts';
import { RestartBackoff } from './internal/restart-backoff.ts';
import { roundView } from './internal/round-view.ts';
import { CATCH_UP_DELAY_MS, RoundSchedule } from './internal/round-schedule.ts';
import { toStorageError } from './storage-errors.ts';

export interface LeaseOwnershipCoordinatorOptions {
  /** Container holding the ownership, checkpoint and membership blobs. It must exist. */
  readonly containerClient: ContainerClient;
  readonly scope: CheckpointScope;
  /** This instance's id, written to `ownerid`. Default: a random UUID. Give each instance a distinct id. */
  readonly ownerId?: string;
  /**
   * Lease duration, in ms, 15000–60000, whole seconds (a storage service limit). Default 30000
   * (DEFAULT_LEASE_DURATION_MS).
   */
  readonly leaseDurationMs?: number;
  /** Interval between lease renewals, in ms; at most half the lease duration. Default a third of it. */
  readonly renewIntervalMs?: number;
  /** Interval between balancing rounds (list, then claim or yield), in ms. Default 5000. */
  readonly updateIntervalMs?: number;
  /**
   * Delay before the first round, in ms, so that instances started together count each other. Default the update
   * interval.
   */
  readonly startDelayMs?: number;
  /** A claim is given up this long, in ms, before its lease could lapse without a renewal. Default 2000. */
  readonly safetyMarginMs?: number;
  /**
   * Timeout of each storage request, in ms (a renewal waits while its lease has time left). Default the renew interval,
   * at most 5000.
   */
  readonly requestTimeoutMs?: number;
  /** Default `balanced`. */
  readonly strategy?: BalanceStrategy;
  /**
   * Longest a partition's start (checkpoint read, partition properties, first checkpoint) may take, in ms. Default
   * 30000.
   */
  readonly startTimeoutMs?: number;
  /**
   * On a graceful shutdown with peers, the longest this instance keeps reading after it marked its membership
   * `leaving`, in ms: it waits for the peers' next round (rounds fall on a shared wall-clock grid), where they
   * see the mark and then watch for its releases, so they claim within a fraction of a second of each release.
   * Default the update interval, at most 5000, plus 100. 0 turns the notice off (release at once, as before).
   */
  readonly leaveNoticeMaxMs?: number;
  /**
   * How long, in ms, an ownership written by a processor outside this fleet (an Azure SDK processor, the Go
   * receiver, Filebeat: an `ownerid` without a lease, not one of our members) counts as live after the
   * blob's Last-Modified. Such partitions are never claimed and are left out of the fair share. Set it to
   * the other processors' ownership expiry: 60000 for the JS and Go SDKs (the default), 120000 for .NET.
   * 0 turns the check off.
   */
  readonly foreignOwnershipExpiryMs?: number;
  /**
   * Admission control, in ms: while a lease renewal has been in flight longer than this (or one recently took
   * longer, or failed without an answer), no new claim starts, so that claims do not crowd out the renewals of
   * the leases held at a slow storage service. Default a quarter of (lease duration − safety margin − renew
   * interval): 2000 at the defaults, 9500 with a 60 s lease.
   */
  readonly renewalLatencyLimitMs?: number;
  /** Restart backoff after a failed start or an unexpected end, in ms. Defaults 1000 to 60000. */
  readonly restartInitialMs?: number;
  readonly restartMaxMs?: number;
  /** The hub's partition ids; called every round. The last answer is reused when it fails. */
  readonly getPartitionIds: () => Promise<string[]>;
  readonly logger?: Logger;
}

export {
  DEFAULT_FOREIGN_OWNERSHIP_EXPIRY_MS,
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_SAFETY_MARGIN_MS,
  DEFAULT_UPDATE_INTERVAL_MS,
  MAX_LEASE_DURATION_MS,
  MIN_LEASE_DURATION_MS,
} from './internal/coordinator-timings.ts';

/**
 * Partition ownership through blob leases: a claim is a lease on `<fqns>/<hub>/<cg>/ownership/<pid>`, whose
 * expiry the storage service enforces; each claim raises the blob's `epoch`, which the reader uses as its
 * owner level so that the hub itself disconnects a stale reader. Instances register a leased membership
 * blob, share partitions by `balance()`, and hand partitions over cooperatively: the over-owner stops its
 * pump (final checkpoint written) before it releases the lease. See docs/ownership.md.
 * This class runs the lifecycle and the balancing round; its parts are in `internal/` (see the map in
 * docs/ownership.md, "Where it lives in the code").
 */
export class LeaseOwnershipCoordinator implements OwnershipCoordinator {
  readonly ownerId: string;
  readonly #options: LeaseOwnershipCoordinatorOptions;
  readonly #timings: CoordinatorTimings;
  readonly #logger: Logger;
  readonly #membership: MembershipLease;
  readonly #partitions: LeasedPartitions;
  readonly #listeners = new Set<(event: OwnershipEvent) => void>();
  readonly #restarts: RestartBackoff;
  /** Aborted at shutdown: starts in progress give up. */
  readonly #closing = new AbortController();
  #lifecycle: PartitionLifecycle | undefined;
  #state: 'new' | 'running' | 'closing' | 'closed' = 'new';
  readonly #rounds: RoundSchedule;
  readonly #renewals: RenewalSchedule;
  readonly #partitionIds: PartitionIdSource;
  /** Other live members at the last round: a lone instance has nobody to announce its leaving to. */
  #peerCount = 0;
  readonly #foreign: ForeignOwnersNotice;
  readonly #ramp = new ClaimRamp();
  readonly #orphans = new OrphanWatch();
  readonly #quiet = new QuietRounds();
  readonly #admission: ClaimAdmission;
  #shutdown: Promise<void> | undefined;
  /** Set while storage fails (a round, a renewal); cleared, and #recoveredAt set, by the next listing. */
  #storageFailing = false;
  /** When storage answered again after failing (performance.now()), until the grace after it ends. */
  #recoveredAt: number | undefined;

  constructor(options: LeaseOwnershipCoordinatorOptions) {
    this.#options = options;
    const timings = resolveCoordinatorTimings(options);
    this.#timings = timings;
    this.ownerId = options.ownerId ?? randomUUID();
    this.#logger = (options.logger ?? noopLogger).child({ component: 'ownership', ownerId: this.ownerId });
    this.#membership = new MembershipLease(
      options.containerClient,
      options.scope,
      this.ownerId,
      timings.leaseDurationMs,
      timings.requestTimeoutMs,
    );
    this.#restarts = new RestartBackoff({ initialMs: options.restartInitialMs, maxMs: options.restartMaxMs });
    const emit = (event: OwnershipEvent): void => {
      if (event.type === 'storageError' || event.type === 'renewalFailed') this.#storageFailing = true;
      // A partition given back while this instance stays: peers in quiet rounds must list ownership to see it.
      if (event.type === 'released' && event.reason !== 'shutdown' && this.#state === 'running') {
        this.#membership.announceChange((error) => this.#emit({ type: 'storageError', error: toStorageError(error) }));
      }
      this.#emit(event);
    };
    const running = (): boolean => this.#state === 'running';
    this.#rounds = new RoundSchedule(timings.updateIntervalMs, () => this.#runRound(), running);
    this.#partitions = new LeasedPartitions({
      containerClient: options.containerClient,
      scope: options.scope,
      ownerId: this.ownerId,
      timings,
      restarts: this.#restarts,
      lifecycle: () => this.#lifecycle!,
      closing: this.#closing.signal,
      running,
      // A reader ended and its partition was released: the next round lists ownership (not a quiet one).
      wake: (delayMs) => {
        this.#quiet.unsettle();
        this.#rounds.wake(delayMs);
      },
      emit,
      logger: this.#logger,
    });
    const pressure = new RenewalPressure(timings.renewalLatencyLimitMs);
    this.#admission = new ClaimAdmission(pressure, emit, () => this.owned().length);
    this.#renewals = new RenewalSchedule({
      renewIntervalMs: timings.renewIntervalMs,
      pressure,
      membership: this.#membership,
      claims: () => this.#partitions.values(),
      emit,
      lose: (claim, error) => this.#partitions.lose(claim, error),
      // Claims paused for late renewals: the round comes back as soon as renewals are in time.
      onTick: () => {
        if (this.#admission.resumable) this.#rounds.wake(CATCH_UP_DELAY_MS);
      },
      closed: () => this.#state === 'closed',
    });
    this.#partitionIds = new PartitionIdSource(() => options.getPartitionIds(), this.#logger);
    this.#foreign = new ForeignOwnersNotice(emit);
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
    this.#renewals.start();
    this.#rounds.schedule(this.#timings.startDelayMs);
  }

  owned(): readonly string[] {
    return this.#partitions.owned();
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
    this.#rounds.stop();
    this.#renewals.stop();
    this.#partitions.abandon();
  }

  async #doShutdown(): Promise<void> {
    if (this.#state === 'new' || this.#state === 'closed') {
      this.#state = 'closed';
      return;
    }
    this.#state = 'closing';
    this.#closing.abort(new Error('shutdown'));
    this.#rounds.stop();
    await this.#rounds.current;
    const owning = [...this.#partitions.values()].some((c) => c.state === 'running');
    await announceLeaving(
      this.#membership,
      {
        maxMs: this.#timings.leaveNoticeMaxMs,
        owning,
        peers: this.#peerCount,
        msToNextTick: (minMs) => this.#rounds.msToNextTick(minMs),
      },
      this.#logger,
    );
    // Renewals keep running meanwhile: pumps may take a while to finish their batch and final checkpoint.
    const claims = [...this.#partitions.values()];
    await Promise.all(claims.map((claim) => this.#partitions.stopAndRelease(claim, 'shutdown')));
    await this.#partitions.settled();
    this.#state = 'closed';
    this.#renewals.stop();
    // Nothing is held any more but the membership, released next: a renewal still waiting for an answer
    // (up to the lease duration, when storage does not answer) would only hold the shutdown.
    this.#renewals.abort();
    await this.#renewals.settled();
    try {
      await this.#membership.release();
    } catch (error) {
      const message = toStorageError(error).message;
      this.#logger.warn('could not release the membership lease; it lapses by itself', { error: message });
    }
  }

  /** One balancing round; resolves to the delay before the next one. Never rejects. */
  async #runRound(): Promise<number> {
    try {
      const partitionIds = await this.#partitionIds.fetch();
      if (!(await this.#membership.ensure())) {
        this.#logger.warn(
          'membership record is leased by another instance with the same owner id; waiting for it to lapse',
        );
      }
      const listedAt = performance.now();
      const { containerClient: container, scope } = this.#options;
      const signal = AbortSignal.timeout(this.#timings.requestTimeoutMs);
      const membership = await readMembership(container, scope, signal);
      if (this.#state !== 'running' || !partitionIds) return this.#rounds.regularDelay();
      // A settled fleet with nothing new in the membership listing: the ownership listing is skipped.
      const view = { membership, partitionIds, claims: this.#partitions.values() };
      const settled = this.#membership.held ? this.#quiet.quiet(view) : undefined;
      if (settled) return this.#quietRound(membership, settled);
      this.#quiet.unsettle();
      const expiryMs = this.#timings.foreignOwnershipExpiryMs;
      const snapshot = await readOwnershipSnapshot(container, scope, signal, expiryMs, membership);
      if (this.#state !== 'running') return this.#rounds.regularDelay();
      const holdBackFor = this.#recoveryHoldBack(snapshot.known);
      this.#foreign.note(snapshot.foreign);
      const { ownerships, members, leaving, orphaned } = roundView(snapshot, this.ownerId, this.#partitions.values());
      this.#peerCount = members.length;
      const anyOrphaned = this.#orphans.observe(partitionIds, orphaned);
      // While a member leaves, or after one crashed, everyone's share is settled (the leaver or the dead one
      // is excluded): take it whole, in parallel.
      const strategy = leaving.length > 0 || anyOrphaned ? 'greedy' : this.#timings.strategy;
      // Partitions a live foreign processor holds are not ours to share: left out of the count and never claimed.
      const shared = partitionIds.filter((pid) => !snapshot.foreign.has(pid));
      const decision = balance({
        ownerId: this.ownerId,
        members,
        leaving,
        ownerships,
        partitionIds: shared,
        strategy,
        balancedClaims: this.#ramp.observe(members),
        lastOwners: snapshot.lastOwners,
        holdBackFor,
      });
      this.#emit({ type: 'balanced', owned: this.owned(), members: decision.members, fairShare: decision.fairShare });
      for (const pid of decision.yield) {
        const claim = this.#partitions.get(pid);
        if (claim) await this.#partitions.stopAndRelease(claim, 'yield');
      }
      // A partition whose start failed or whose reader ended waits out its restart backoff here (other
      // instances may take it meanwhile); the round is brought forward when the wait ends.
      const waiting = decision.claim.filter((pid) => !this.#partitions.has(pid) && this.#restarts.waitMs(pid) > 0);
      if (waiting.length > 0) this.#rounds.wake(Math.min(...waiting.map((pid) => this.#restarts.waitMs(pid))));
      const toClaim = decision.claim.filter((pid) => !this.#partitions.has(pid) && this.#restarts.waitMs(pid) === 0);
      const { results, deferred } = await this.#admission.claimAll({
        pids: toClaim,
        claim: (pid) =>
          this.#partitions.claim(pid, {
            etag: snapshot.etags.get(pid),
            epoch: snapshot.epochs.get(pid),
            known: snapshot.known,
          }),
        running: () => this.#state === 'running',
        listedAt,
        maxViewAgeMs: this.#timings.updateIntervalMs,
      });
      // Claims wait for the renewals; the renewal tick brings the round back as soon as they are in time,
      // so no listing is spent meanwhile.
      if (deferred) return this.#rounds.regularDelay();
      this.#admission.resume();
      const raced = toClaim.some(
        (pid, i) => results[i] === false && ownerships.get(pid) === undefined && this.#restarts.waitMs(pid) === 0,
      );
      const claimedAny = results.some((r) => r === true);
      this.#ramp.claimed(claimedAny);
      const owned = this.owned().length;
      const claims = () => this.#partitions.values();
      const share = settledShare({
        ownerId: this.ownerId,
        partitionIds: shared,
        ownerships,
        members,
        leaving,
        decision,
        owned,
        claims: claims(),
        membershipHeld: this.#membership.held,
      });
      // A foreign claim lapses at a time known from the listing: the round after it lists again.
      const fullByMs = listedAt + (snapshot.foreignLiveMs ?? Number.POSITIVE_INFINITY);
      this.#quiet.fullRound({ membership, partitionIds, claims: claims() }, share, fullByMs);
      // A dead member's partitions whose leases have not lapsed yet (its membership lapsed first): they are
      // free within moments, so look again shortly rather than at the next tick (crash failover stays
      // within the lease duration plus one interval).
      const lapsing = (pid: string): boolean => this.#orphans.lapsing(pid, this.#timings.leaseDurationMs);
      return this.#rounds.afterClaims({
        catchUp: claimedAny || raced || results.includes(undefined),
        owned,
        fairShare: decision.fairShare,
        leavingHolds: leaving.length > 0 && [...snapshot.holders.values()].some((holder) => leaving.includes(holder)),
        orphanLapsing: toClaim.some((pid, i) => results[i] === false && orphaned(pid) && lapsing(pid)),
        awaitsYield: decision.claim.length === 0 && owned < decision.fairShare && waiting.length === 0,
      });
    } catch (error) {
      this.#quiet.unsettle();
      this.#emit({ type: 'storageError', error: toStorageError(error) });
    }
    return this.#rounds.regularDelay();
  }

  /**
   * The other instances whose lapsed partitions are left to them: for one lease duration after this instance's
   * storage came back (a listing after failures), every lease of the fleet may have lapsed at once, and each
   * holder takes its own back first (balance's lastOwners) and reads on from its position in memory, without
   * re-reading. A holder that is really gone loses its partitions one lease duration later than after a crash.
   */
  #recoveryHoldBack(known: ReadonlySet<string>): ReadonlySet<string> | undefined {
    const now = performance.now();
    if (this.#storageFailing) {
      this.#storageFailing = false;
      this.#recoveredAt = now;
    }
    if (this.#recoveredAt === undefined) return undefined;
    if (now - this.#recoveredAt >= this.#timings.leaseDurationMs) {
      this.#recoveredAt = undefined;
      return undefined;
    }
    return new Set([...known].filter((id) => id !== this.ownerId));
  }

  /**
   * A round of a settled fleet whose membership listing showed nothing new: the decision is the settled
   * round's (nothing to claim or yield), told as usual for the status and the health check.
   */
  #quietRound(membership: MembershipListing, settled: SettledShare): number {
    this.#peerCount = membership.members.filter((m) => m !== this.ownerId).length;
    this.#emit({ type: 'balanced', owned: this.owned(), members: settled.members, fairShare: settled.fairShare });
    return this.#rounds.regularDelay();
  }

  #emit(event: OwnershipEvent): void {
    for (const listener of this.#listeners) {
      try {
        listener(event);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        this.#logger.warn('an ownership event listener threw', { error: message });
      }
    }
  }
}
