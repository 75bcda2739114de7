import { randomUUID } from 'node:crypto';
import type { ContainerClient } from '@azure/storage-blob';
import type { CheckpointScope } from './checkpoint.ts';
import type { OwnershipCoordinator, OwnershipEvent, PartitionEnd, PartitionHandle, PartitionLifecycle, StopReason } from './coordinator.ts';
import { performance } from 'node:perf_hooks';
import { noopLogger, type Logger } from '../component/logger.ts';
import { balance, type BalanceStrategy } from './balance.ts';
import { MembershipLease } from './internal/membership-lease.ts';
import { readOwnershipSnapshot, type OwnershipSnapshot } from './internal/ownership-snapshot.ts';
import { PartitionLease, type OwnershipBlobProps } from './internal/partition-lease.ts';
import { sortPartitionIds } from './internal/partition-order.ts';
import { toStorageError } from './internal/storage-errors.ts';
import { LEAVE_NOTICE_MARGIN_MS, resolveCoordinatorTimings, type CoordinatorTimings } from './internal/coordinator-timings.ts';
import { RestartBackoff } from './internal/restart-backoff.ts';
import { foreignOwner } from './internal/foreign-owner.ts';
import { RenewalPressure } from './internal/renewal-pressure.ts';

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
  /** Longest a partition's start (checkpoint read, partition properties, first checkpoint) may take, in ms. Default 30000. */
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
 * Claims (each a lease, then the partition's start) in flight at once. A claim of a large share (128
 * partitions at 1024 over 8 instances) must not start every pump together, or the starts overrun their
 * deadline; this many in flight, topped up as each ends, keeps storage and the hub busy without a storm.
 */
const MAX_CLAIMS_IN_FLIGHT = 32;
/** How often, in ms, the coordinator looks for claims whose renewal is due (at most a quarter renew interval). */
const RENEW_TICK_MS = 250;
/** After a round that claimed and is still below its share, the next round comes this soon, in ms. */
const CATCH_UP_DELAY_MS = 50;
/**
 * While a hand-off is under way (a leaving member still holds partitions, or this member waits for an
 * over-owner's yield), rounds come this often, in ms, instead of every update interval.
 */
const HANDOFF_POLL_MS = 250;
/**
 * Over-owners yield right after a tick of the round grid. A member below its share with nothing to claim
 * polls at HANDOFF_POLL_MS for this long, in ms, after each tick, then waits for the next tick.
 */
const YIELD_WATCH_MS = 2_000;
/** A leaving instance starts stopping its partitions this long, in ms, before the tick its peers list at. */
const RELEASE_LEAD_MS = 500;
/** A round waits this long, in ms, for the hub's partition ids before it falls back to the last known list. */
const PARTITION_IDS_TIMEOUT_MS = 30_000;


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
  readonly #claims = new Map<string, PartitionLease>();
  /** Lease ids used per partition: re-acquiring with the same id succeeds while our old lease is still on. */
  readonly #leaseIds = new Map<string, string>();
  readonly #listeners = new Set<(event: OwnershipEvent) => void>();
  readonly #pendingStops = new Set<Promise<void>>();
  readonly #restarts: RestartBackoff;
  /** Aborted at shutdown: starts in progress give up. */
  readonly #closing = new AbortController();
  #nextRoundAt = Number.POSITIVE_INFINITY;
  #lifecycle: PartitionLifecycle | undefined;
  #state: 'new' | 'running' | 'closing' | 'closed' = 'new';
  #roundTimer: NodeJS.Timeout | undefined;
  #renewTimer: NodeJS.Timeout | undefined;
  #round: Promise<void> | undefined;
  /** Claims (and the membership) with a renewal in flight, and those renewals. */
  readonly #renewing = new Set<PartitionLease | 'membership'>();
  readonly #renewals = new Set<Promise<void>>();
  #membershipAttemptAt = performance.now();
  #shutdown: Promise<void> | undefined;
  #partitionIds: string[] | undefined;
  /** Other live members at the last round: a lone instance has nobody to announce its leaving to. */
  #peerCount = 0;
  /** Foreign-owned partitions at the last round, as `pid=owner` keys: events go out only on a change. */
  #foreignKey = '';
  /** The other live members at the last round: a newcomer resets the claim ramp, a departure lifts it. */
  #lastMembers: Set<string> | undefined;
  /** Claims the next `balanced` round may make (1, doubling while rounds claim from a stable view). */
  #rampClaims = 1;
  /** Partitions held by an id that is no member, with when a round first saw that (performance.now()). */
  readonly #orphanSince = new Map<string, number>();
  /** How late lease renewals are: claims wait while they are. */
  readonly #pressure: RenewalPressure;
  /** A round deferred claims for late renewals, and no round claimed since. */
  #claimsPaused = false;
  /**
   * Claims in flight allowed now: halved at each pause for late renewals (the claims still in flight when the
   * pause began are what pushed renewals late), grown by one per claim made in time, up to MAX_CLAIMS_IN_FLIGHT.
   */
  #claimWindow = MAX_CLAIMS_IN_FLIGHT;

  constructor(options: LeaseOwnershipCoordinatorOptions) {
    this.#options = options;
    this.#timings = resolveCoordinatorTimings(options);
    this.ownerId = options.ownerId ?? randomUUID();
    this.#logger = (options.logger ?? noopLogger).child({ component: 'ownership', ownerId: this.ownerId });
    this.#membership = new MembershipLease(options.containerClient, options.scope, this.ownerId, this.#timings.leaseDurationMs, this.#timings.requestTimeoutMs);
    this.#restarts = new RestartBackoff({ initialMs: options.restartInitialMs, maxMs: options.restartMaxMs });
    this.#pressure = new RenewalPressure(this.#timings.renewalLatencyLimitMs);
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
    for (const claim of this.#claims.values()) claim.dispose();
    this.#claims.clear();
  }

  async #doShutdown(): Promise<void> {
    if (this.#state === 'new' || this.#state === 'closed') {
      this.#state = 'closed';
      return;
    }
    this.#state = 'closing';
    this.#closing.abort(new Error('shutdown'));
    clearTimeout(this.#roundTimer);
    await this.#round;
    await this.#announceLeaving();
    // Renewals keep running meanwhile: pumps may take a while to finish their batch and final checkpoint.
    await Promise.all([...this.#claims.values()].map((claim) => this.#stopAndRelease(claim, 'shutdown')));
    await Promise.allSettled([...this.#pendingStops]);
    this.#state = 'closed';
    clearTimeout(this.#renewTimer);
    await Promise.allSettled([...this.#renewals]);
    try {
      await this.#membership.release();
    } catch (error) {
      this.#logger.warn('could not release the membership lease; it lapses by itself', { error: toStorageError(error).message });
    }
  }

  /**
   * Peers see a release only when they list, at the ticks of the round grid. So before releasing anything,
   * mark the membership `leaving`, keep reading, and start stopping RELEASE_LEAD_MS before the next tick:
   * a release done by the tick is claimed at the tick; one that takes longer is claimed within one
   * HANDOFF_POLL_MS of it, since every peer saw the mark at the tick and polls until the partitions are free.
   */
  async #announceLeaving(): Promise<void> {
    const maxMs = this.#timings.leaveNoticeMaxMs;
    const owning = [...this.#claims.values()].some((c) => c.state === 'running');
    if (maxMs <= 0 || !owning || this.#peerCount === 0 || !this.#membership.held) return;
    const began = performance.now();
    try {
      await this.#membership.markLeaving();
    } catch (error) {
      this.#logger.warn('could not mark the membership as leaving; peers see the releases at their next round', { error: toStorageError(error).message });
      return;
    }
    // The tick must come after the mark is stored, or the peers would not see it.
    const waitMs = this.#msToNextTick(LEAVE_NOTICE_MARGIN_MS) - RELEASE_LEAD_MS;
    if (waitMs <= 0 || performance.now() - began + waitMs > maxMs) return;
    this.#logger.info('leaving: partitions are released at the peers\' next round', { waitMs: Math.round(waitMs) });
    await new Promise((resolve) => setTimeout(resolve, waitMs));
  }

  /**
   * Time to the first tick of the round grid at least `minMs` from now. Ticks are multiples of the update
   * interval on the wall clock, so that every instance lists at the same moments and a leaving instance
   * knows when its peers will look. A clock that is off only delays hand-offs to the next round, as before.
   */
  #msToNextTick(minMs: number): number {
    const interval = this.#timings.updateIntervalMs;
    const now = Date.now();
    return Math.ceil((now + minMs) / interval) * interval - now || interval;
  }

  /** The regular round: the next grid tick (one listing per interval; a round off the grid never skips a tick). */
  #regularDelay(): number {
    return this.#msToNextTick(Math.min(HANDOFF_POLL_MS, this.#timings.updateIntervalMs / 4));
  }

  #scheduleRound(delayMs: number): void {
    if (this.#state !== 'running') return;
    clearTimeout(this.#roundTimer);
    this.#nextRoundAt = performance.now() + delayMs;
    this.#roundTimer = setTimeout(() => {
      this.#nextRoundAt = Number.POSITIVE_INFINITY;
      this.#round = this.#runRound().then((next) => this.#scheduleRound(next));
    }, delayMs);
    this.#roundTimer.unref();
  }

  /** Brings the next round forward to `delayMs` from now, unless one runs or is due sooner. */
  #wake(delayMs: number): void {
    if (this.#state !== 'running' || this.#nextRoundAt === Number.POSITIVE_INFINITY) return;
    if (performance.now() + delayMs < this.#nextRoundAt) this.#scheduleRound(delayMs);
  }

  /** One balancing round; resolves to the delay before the next one. Never rejects. */
  async #runRound(): Promise<number> {
    try {
      const partitionIds = await this.#fetchPartitionIds();
      if (!(await this.#membership.ensure())) {
        this.#logger.warn('membership record is leased by another instance with the same owner id; waiting for it to lapse');
      }
      const listedAt = performance.now();
      const snapshot = await readOwnershipSnapshot(
        this.#options.containerClient,
        this.#options.scope,
        AbortSignal.timeout(this.#timings.requestTimeoutMs),
        this.#timings.foreignOwnershipExpiryMs,
      );
      if (this.#state !== 'running' || !partitionIds) return this.#regularDelay();
      this.#noteForeign(snapshot.foreign);
      const ownerships = new Map<string, string | undefined>();
      for (const [pid, holder] of snapshot.holders) {
        // Held under our id but not by this object: a lease of ours we lost track of. Not a member's, so claimable.
        ownerships.set(pid, holder === this.ownerId ? `${this.ownerId} (earlier lease)` : holder);
      }
      for (const claim of this.#claims.values()) if (claim.active) ownerships.set(claim.partitionId, this.ownerId);
      const members = snapshot.members.filter((m) => m !== this.ownerId);
      const leaving = snapshot.leaving.filter((m) => m !== this.ownerId);
      this.#peerCount = members.length;
      // Held by an id that is no member (crashed, or our own earlier lease): its lease lapses by itself.
      const live = new Set([...members, ...leaving, this.ownerId]);
      const orphaned = (pid: string): boolean => {
        const holder = ownerships.get(pid);
        return holder !== undefined && holder !== '' && !live.has(holder);
      };
      const anyOrphaned = partitionIds.some(orphaned);
      const now = performance.now();
      for (const pid of this.#orphanSince.keys()) if (!orphaned(pid)) this.#orphanSince.delete(pid);
      for (const pid of partitionIds) if (orphaned(pid) && !this.#orphanSince.has(pid)) this.#orphanSince.set(pid, now);
      // While a member leaves, or after one crashed, everyone's share is settled (the leaver or the dead one
      // is excluded): take it whole, in parallel.
      const strategy = leaving.length > 0 || anyOrphaned ? 'greedy' : this.#timings.strategy;
      // Partitions a live foreign processor holds are not ours to share: left out of the count and never claimed.
      const shared = partitionIds.filter((pid) => !snapshot.foreign.has(pid));
      // `balanced` claims one partition per round while members join, so that members starting together
      // interleave their claims from fresh views; once a round sees no newcomer since the last, each round
      // that claimed doubles the next one's allowance (up to MAX_CLAIMS_IN_FLIGHT).
      // A member that left (crashed, or its lease lapsed) settles the others' shares as much as a stable view
      // does: only a member that joined since the last round resets the ramp.
      const previous = this.#lastMembers;
      const current = new Set(members);
      this.#lastMembers = current;
      const stableView = previous !== undefined && members.every((m) => previous.has(m));
      if (!stableView) this.#rampClaims = 1;
      else if ([...previous].some((m) => !current.has(m))) this.#rampClaims = MAX_CLAIMS_IN_FLIGHT;
      const decision = balance({
        ownerId: this.ownerId, members, leaving, ownerships, partitionIds: shared, strategy,
        balancedClaims: stableView ? this.#rampClaims : 1,
      });
      this.#emit({ type: 'balanced', owned: this.owned(), members: decision.members, fairShare: decision.fairShare });
      for (const pid of decision.yield) {
        const claim = this.#claims.get(pid);
        if (claim) await this.#stopAndRelease(claim, 'yield');
      }
      // A partition whose start failed or whose reader ended waits out its restart backoff here (other
      // instances may take it meanwhile); the round is brought forward when the wait ends.
      const waiting = decision.claim.filter((pid) => !this.#claims.has(pid) && this.#restarts.waitMs(pid) > 0);
      if (waiting.length > 0) this.#wake(Math.min(...waiting.map((pid) => this.#restarts.waitMs(pid))));
      const toClaim = decision.claim.filter((pid) => !this.#claims.has(pid) && this.#restarts.waitMs(pid) === 0);
      const { results, deferred } = await this.#claimAll(toClaim, snapshot, listedAt);
      // Claims wait for the renewals; the renewal tick brings the round back as soon as they are in time
      // (see #renewDue), so no listing is spent meanwhile.
      if (deferred) return this.#regularDelay();
      if (this.#claimsPaused) {
        this.#claimsPaused = false;
        this.#emit({ type: 'claimsResumed' });
      }
      const raced = toClaim.some(
        (pid, i) => results[i] === false && ownerships.get(pid) === undefined && this.#restarts.waitMs(pid) === 0,
      );
      const claimedAny = results.some((r) => r === true);
      this.#rampClaims = claimedAny && stableView ? Math.min(this.#rampClaims * 2, MAX_CLAIMS_IN_FLIGHT) : 1;
      const catchUp = claimedAny || raced || results.includes(undefined);
      if (catchUp && this.owned().length < decision.fairShare) {
        return Math.min(CATCH_UP_DELAY_MS, this.#timings.updateIntervalMs);
      }
      // Hand-offs under way: poll briefly (never in a settled fleet, so steady-state traffic stays the same).
      const leavingHolds = leaving.length > 0 && [...snapshot.holders.values()].some((holder) => leaving.includes(holder));
      // A dead member's partitions whose leases have not lapsed yet (its membership lapsed first): they are
      // free within moments, so look again shortly rather than at the next tick (crash failover stays
      // within the lease duration plus one interval).
      // Only while the lease can still be lapsing: one held longer than a lease duration is renewed by someone.
      const lapsing = (pid: string): boolean =>
        now - (this.#orphanSince.get(pid) ?? now) < this.#timings.leaseDurationMs;
      const orphanLapsing = toClaim.some((pid, i) => results[i] === false && orphaned(pid) && lapsing(pid));
      const awaitsYield = decision.claim.length === 0 && this.owned().length < decision.fairShare && waiting.length === 0;
      const sinceTickMs = Date.now() % this.#timings.updateIntervalMs;
      const poll = Math.min(HANDOFF_POLL_MS, this.#timings.updateIntervalMs);
      const watchingYields = awaitsYield && sinceTickMs + poll < Math.min(YIELD_WATCH_MS, this.#timings.updateIntervalMs / 2);
      if (leavingHolds || orphanLapsing || watchingYields) return poll;
    } catch (error) {
      this.#emit({ type: 'storageError', error: toStorageError(error) });
    }
    return this.#regularDelay();
  }

  /**
   * Claims `pids` in order, at most MAX_CLAIMS_IN_FLIGHT at a time (each a lease, then the partition's start),
   * topping up as each finishes rather than in waves, and starting no new claim once the listing they were
   * chosen from is older than one update interval: the next round decides the rest from a fresh view, nor
   * while lease renewals are late (`deferred`: see RenewalPressure). Per partition: true = claimed and
   * started, false = not claimed, undefined = not tried (view too old, or deferred).
   */
  async #claimAll(
    pids: readonly string[],
    snapshot: OwnershipSnapshot,
    listedAt: number,
  ): Promise<{ results: Array<boolean | undefined>; deferred: boolean }> {
    const results: Array<boolean | undefined> = pids.map(() => undefined);
    let next = 0;
    let deferred = false;
    let active = 0;
    const worker = async (): Promise<void> => {
      while (next < pids.length && this.#state === 'running') {
        if (performance.now() - listedAt > this.#timings.updateIntervalMs) return;
        // Renewals first: a claim is several requests, and at a slow service they would queue in front of
        // the renewals of the leases already held.
        if (this.#pressure.congested()) return void (deferred = true);
        if (active >= this.#claimWindow) return;
        const i = next++;
        const pid = pids[i]!;
        active++;
        results[i] = await this.#claim(pid, snapshot.etags.get(pid), snapshot.epochs.get(pid), snapshot.known);
        active--;
        if (results[i] && !this.#pressure.congested()) {
          this.#claimWindow = Math.min(MAX_CLAIMS_IN_FLIGHT, this.#claimWindow + 1);
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(this.#claimWindow, pids.length) }, worker));
    if (deferred) this.#pauseClaims(results.filter((r) => r === undefined).length);
    return { results, deferred };
  }

  async #fetchPartitionIds(): Promise<string[] | undefined> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`no answer within ${PARTITION_IDS_TIMEOUT_MS} ms`)), PARTITION_IDS_TIMEOUT_MS);
      timer.unref();
    });
    try {
      this.#partitionIds = await Promise.race([this.#options.getPartitionIds(), timeout]);
    } catch (error) {
      this.#logger.warn('could not read the hub partition ids; using the last known list', { error: error instanceof Error ? error.message : String(error) });
    } finally {
      clearTimeout(timer);
    }
    return this.#partitionIds;
  }

  /**
   * Acquires the partition's lease (conditional on the listed `etag`, so that a foreign ETag claim made
   * since the listing wins), raises its epoch and starts the pump. Resolves true when the pump runs.
   */
  async #claim(
    partitionId: string,
    etag: string | undefined,
    listedEpoch: number | undefined,
    known: ReadonlySet<string>,
  ): Promise<boolean> {
    let claim: PartitionLease | undefined;
    const expiryMs = this.#timings.foreignOwnershipExpiryMs;
    const guard = {
      etag,
      listedEpoch,
      foreignOwner: (p: OwnershipBlobProps) =>
        foreignOwner(
          { ownerId: p.metadata?.ownerid, leased: false, lastModifiedMs: p.lastModified?.getTime() },
          new Set([...known, this.ownerId]),
          p.date?.getTime() ?? Date.now(),
          expiryMs,
        ),
    };
    try {
      claim = await PartitionLease.acquire(this.#options.containerClient, this.#options.scope, partitionId, this.ownerId, this.#leaseIds.get(partitionId), this.#timings, (c) =>
        this.#lose(c, new Error(`lease not renewed for ${this.#timings.leaseDurationMs - this.#timings.safetyMarginMs} ms`)),
        guard,
      );
    } catch (error) {
      this.#emit({ type: 'storageError', error: toStorageError(error) });
      return false;
    }
    if (!claim) return false;
    this.#leaseIds.set(partitionId, claim.leaseId);
    this.#claims.set(partitionId, claim);
    if (this.#state !== 'running') {
      await this.#release(claim, 'shutdown');
      return false;
    }
    const { ownerLevel } = claim;
    const signal = AbortSignal.any([claim.lost.signal, this.#closing.signal, AbortSignal.timeout(this.#timings.startTimeoutMs)]);
    claim.started = this.#lifecycle!.startPartition({ partitionId, ownerLevel, fence: claim.fence() }, signal).then(
      (handle) => handle,
      (error: unknown) => {
        const err = error instanceof Error ? error : new Error(String(error));
        if (claim.state === 'starting' && !this.#closing.signal.aborted) {
          const retryInMs = this.#restarts.failed(partitionId);
          this.#emit({ type: 'startFailed', partitionId, error: err, retryInMs });
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
    this.#emit({ type: 'claimed', partitionId, ownerLevel });
    return true;
  }

  /**
   * A partition's reading ended. Ended by our own stop: nothing to do. Ended by itself (link stolen by a
   * higher owner level, an unexpected error): the lease goes back to the fleet at once, after the final
   * checkpoint the pump wrote, and this instance waits out a restart backoff before it claims the
   * partition again, so any instance may take it at its next round with a raised owner level. A leased
   * partition is therefore always being read or being handed back; never leased and idle.
   */
  #onEnded(claim: PartitionLease, handle: PartitionHandle, end: PartitionEnd): void {
    if (claim.handle !== handle || end.reason === 'stopped' || !claim.active) return;
    const retryInMs = this.#restarts.failed(claim.partitionId, performance.now() - claim.startedAt);
    this.#emit({ type: 'ended', partitionId: claim.partitionId, end, retryInMs });
    if (end.reason === 'fenced') {
      this.#lose(claim, end.error ?? new Error('checkpoint fenced: the lease is gone'));
      return;
    }
    if (claim.state === 'stopping') return; // a yield or shutdown is already releasing it
    claim.state = 'stopping';
    const release = this.#release(claim, end.reason).finally(() => {
      this.#pendingStops.delete(release);
      this.#wake(retryInMs);
    });
    this.#pendingStops.add(release);
  }

  /** Yield or shutdown: the pump finishes its batch and writes the final checkpoint, then the lease goes. */
  async #stopAndRelease(claim: PartitionLease, reason: 'yield' | 'shutdown'): Promise<void> {
    await claim.started;
    if (claim.state !== 'running' || !claim.handle) return;
    claim.state = 'stopping';
    try {
      await claim.handle.stop(reason);
    } catch (error) {
      this.#logger.error('stopping the partition failed', { partitionId: claim.partitionId, reason, error: error instanceof Error ? error.message : String(error) });
    }
    if (claim.state !== 'stopping') return; // lost meanwhile: the lease is not ours to release
    await this.#release(claim, reason);
  }

  async #release(claim: PartitionLease, reason: StopReason | PartitionEnd['reason']): Promise<void> {
    try {
      await claim.release();
    } catch (error) {
      this.#logger.warn('could not release a partition lease; it lapses by itself', { partitionId: claim.partitionId, error: toStorageError(error).message });
    }
    this.#forget(claim);
    this.#emit({ type: 'released', partitionId: claim.partitionId, reason });
  }

  #forget(claim: PartitionLease): void {
    if (this.#claims.get(claim.partitionId) === claim) this.#claims.delete(claim.partitionId);
  }

  /** Ownership may be gone: abort the claim's signal and stop the pump at once, writing nothing. */
  #lose(claim: PartitionLease, error: Error): void {
    const wasStopping = claim.state === 'stopping';
    if (!claim.markLost(error)) return;
    this.#logger.warn('partition ownership lost', { partitionId: claim.partitionId, error: error.message });
    this.#emit({ type: 'released', partitionId: claim.partitionId, reason: 'lost' });
    // A yield or shutdown in progress already called stopPartition; the aborted signal tells it to hurry.
    if (wasStopping) return this.#forget(claim);
    const stop = claim.started
      .then((handle) => handle?.stop('lost'))
      .then(() => undefined)
      .catch((e: unknown) => this.#logger.error('stopping a lost partition failed', { partitionId: claim.partitionId, error: e instanceof Error ? e.message : String(e) }))
      .finally(() => {
        this.#forget(claim);
        this.#pendingStops.delete(stop);
      });
    this.#pendingStops.add(stop);
  }

  /**
   * Renewals are due per claim, `renewIntervalMs` after that claim's last attempt (or its acquisition, or a
   * renewal a checkpoint fence made), checked every RENEW_TICK_MS. Claims made at different moments thus
   * renew at different moments: a large share does not send all its renewals in one burst (128 at once per
   * instance at 1024 partitions over 8), whose queueing at a loaded storage service made renewals miss
   * their deadlines and lose leases. A renewal in flight is not sent again; one that hangs holds only itself.
   */
  #scheduleRenewal(): void {
    if (this.#state === 'closed') return;
    const tickMs = Math.min(RENEW_TICK_MS, this.#timings.renewIntervalMs / 4);
    const dueAt = performance.now() + tickMs;
    this.#renewTimer = setTimeout(() => {
      this.#pressure.tickLate(performance.now() - dueAt);
      this.#renewDue();
      this.#scheduleRenewal();
    }, tickMs);
    this.#renewTimer.unref();
  }

  #renewDue(): void {
    const now = performance.now();
    const intervalMs = this.#timings.renewIntervalMs;
    if (now - this.#membershipAttemptAt >= intervalMs && !this.#renewing.has('membership')) {
      this.#membershipAttemptAt = now;
      const ended = this.#pressure.begin();
      const renewal = this.#membership.renew().then(
        () => ended('renewed'),
        (error: unknown) => {
          ended('failed');
          this.#emit({ type: 'storageError', error: toStorageError(error) });
        },
      );
      this.#track('membership', renewal);
    }
    if (this.#claimsPaused && !this.#pressure.congested()) this.#wake(CATCH_UP_DELAY_MS);
    for (const claim of this.#claims.values()) {
      if (!claim.active || this.#renewing.has(claim) || !claim.renewalDue(intervalMs, now)) continue;
      this.#track(claim, this.#renew(claim));
    }
  }

  #track(key: PartitionLease | 'membership', renewal: Promise<void>): void {
    this.#renewing.add(key);
    const done = renewal.finally(() => {
      this.#renewing.delete(key);
      this.#renewals.delete(done);
    });
    this.#renewals.add(done);
  }

  async #renew(claim: PartitionLease): Promise<void> {
    const ended = this.#pressure.begin();
    const result = await claim.renew();
    ended(result.ok ? 'renewed' : result.gone ? 'gone' : 'failed');
    if (result.ok || !claim.active) return;
    const error = toStorageError(result.error);
    this.#emit({ type: 'renewalFailed', partitionId: claim.partitionId, error });
    // Definitely gone: stop now. Otherwise retry at the next renewal; the claim's deadline is the backstop.
    if (result.gone) this.#lose(claim, error);
  }

  /** Claims wait for late renewals: `left` of this round's claims are deferred; told once per pause. */
  #pauseClaims(left: number): void {
    if (this.#claimsPaused) return;
    this.#claimsPaused = true;
    this.#claimWindow = Math.max(1, Math.floor(this.#claimWindow / 2));
    const lateMs = Math.round(this.#pressure.lateMs());
    this.#emit({ type: 'claimsPaused', lateMs, owned: this.owned().length, deferred: left });
  }

  /** Tells the foreign-owned partitions when they change (a log line and a status, not an error). */
  #noteForeign(foreign: ReadonlyMap<string, string>): void {
    const ids = sortPartitionIds([...foreign.keys()]);
    const key = ids.map((pid) => `${pid}=${foreign.get(pid)}`).join(',');
    if (key === this.#foreignKey) return;
    this.#foreignKey = key;
    this.#emit({ type: 'foreignOwners', partitions: new Map(ids.map((pid) => [pid, foreign.get(pid)!])) });
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
