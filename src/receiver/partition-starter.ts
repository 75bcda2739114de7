import type { HubClient, PartitionProperties, StartPosition } from '../backends/consumer.ts';
import { prefetchShare } from './internal/prefetch-share.ts';
import type { InFlightBudget } from './internal/in-flight-budget.ts';
import type { ReceiverConfig } from '../config/receiver-config.ts';
import type { Logger } from '../component/logger.ts';
import { redactError } from '../component/redact.ts';
import { raceAbort } from '../component/abort.ts';
import type { Decoder } from '../decode/decoder.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import type { DeadLetterStore } from '../pipeline/dead-letter.ts';
import {
  UnusableCheckpointError,
  type Checkpoint,
  type CheckpointScope,
  type CheckpointStore,
} from '../ownership/checkpoint.ts';
import type { PartitionClaim, PartitionHandle, PartitionLifecycle, StopReason } from '../ownership/coordinator.ts';
import { Checkpointer } from './checkpointer.ts';
import { chooseStartPosition } from './start-position.ts';
import { InvalidCheckpointError, invalidCheckpoint } from './internal/invalid-checkpoint.ts';
import { PartitionPump, type PartitionPumpOptions } from './partition-pump.ts';
import type { PumpCounters } from './internal/pump-counters.ts';
import type { Signal } from '../pipeline/signals.ts';
import type { PartitionStats, ReceiverStats, ReceiverStatus } from './receiver-status.ts';
import type { BackfillProgress, BackfillRange } from './capture/backfill-progress.ts';

/** What the starter needs of the receiver: the wiring it built. */
export interface PartitionStarterDeps {
  readonly hub: HubClient;
  readonly store: CheckpointStore;
  readonly scope: CheckpointScope;
  readonly config: ReceiverConfig;
  readonly decoder: Decoder;
  /** Decodes and encodes off-thread (decode-pool.ts); see PartitionPumpOptions.offload. */
  readonly offload?: PartitionPumpOptions['offload'];
  /** The pipeline, wrapped with retry. */
  readonly consumer: SignalConsumer;
  readonly deadLetter?: DeadLetterStore;
  /** The receiver's id, named in dead-letter log lines. */
  readonly receiverId?: string;
  /** The signals the receiver's pipelines take (see PartitionPumpOptions.signals). Default every signal. */
  readonly signals?: ReadonlySet<Signal>;
  readonly counters: PumpCounters;
  readonly logger: Logger;
  readonly emit: (status: ReceiverStatus) => void;
  /** True once the receiver shuts down: no new partition starts. */
  readonly isClosing: () => boolean;
  /** Shared by every pump's delivery window (PartitionPumpOptions.inFlightBudget). Default none. */
  readonly inFlightBudget?: InFlightBudget;
  /** Passed to every pump (PartitionPumpOptions.readGate): the memory guard's pause. Default none. */
  readonly readGate?: (signal: AbortSignal) => Promise<void> | undefined;
  /**
   * With `capture`: the hub as pumps read it, filling retention gaps from Capture (receiver/capture/), and the
   * backfill progress. Without it, a retention gap is only counted and logged.
   */
  readonly backfill?: { readonly hub: HubClient; readonly progress: BackfillProgress };
}

interface Owned {
  readonly pump: PartitionPump;
  readonly checkpointer: Checkpointer;
  readonly startProps: PartitionProperties;
  readonly startedFrom: number;
}

/**
 * The coordinator's PartitionLifecycle: starts a partition (checkpoint, start position, first checkpoint
 * of a resolved `latest`, the pump) and hands its handle to the coordinator, which owns it from then on.
 * Keeps the running pumps for the receiver's stats.
 */
export class PartitionStarter implements PartitionLifecycle {
  readonly #d: PartitionStarterDeps;
  readonly #owned = new Map<string, Owned>();
  /** Partitions this instance read and handed back, with why: the `released` state. */
  readonly #released = new Map<string, { reason: string; at: number }>();
  /**
   * The last event exported of a partition whose reader ended without its final checkpoint (its lease lapsed,
   * say while storage was out): claimed again, it reads on from there rather than from the older checkpoint.
   */
  readonly #exported = new Map<string, Checkpoint>();

  constructor(deps: PartitionStarterDeps) {
    this.#d = deps;
  }

  /** Partitions with a running pump, in partition order. */
  owned(): readonly string[] {
    return [...this.#owned.keys()].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  }

  /** Stops every pump still running (graceful); for a coordinator that failed to stop them. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.#owned.values()].map((o) => o.pump.stop(this.#d.config.shutdown_timeout)));
  }

  /**
   * Events a partition buffers ahead when `partitions` are read: `prefetch_count` when set (at least one
   * batch; negative: one batch), else a share of one budget for the receiver (internal/prefetch-share.ts).
   */
  #prefetchFor(partitions: number): number {
    const c = this.#d.config;
    if (c.prefetch_count !== 0) return Math.max(c.prefetch_count, c.max_poll_events);
    return prefetchShare(partitions, c.max_poll_events);
  }

  /** With `prefetch_count` 0: every running partition takes its share of the budget for what is read now. */
  #sharePrefetch(): void {
    if (this.#d.config.prefetch_count !== 0) return;
    const share = this.#prefetchFor(this.#owned.size);
    for (const { pump } of this.#owned.values()) pump.setPrefetch(share);
  }

  async startPartition(claim: PartitionClaim, signal: AbortSignal): Promise<PartitionHandle> {
    const { partitionId } = claim;
    if (this.#d.isClosing()) throw new Error('the receiver is shutting down');
    if (this.#owned.has(partitionId)) throw new Error(`partition ${partitionId} is already being read`);
    const { hub, store, scope, config: c } = this.#d;
    // Every wait of a start has the caller's deadline: a slow hub or store must not hold a balancing round.
    const [storedOrError, props] = await raceAbort(
      Promise.all([readUsable(store, scope, partitionId), hub.getPartitionProperties(partitionId, signal)]),
      signal,
    );
    const stored = await this.#checkpointToUse(claim, storedOrError, props, signal);
    const resumed = this.#resumeAfter(partitionId, stored, props);
    const checkpoint = resumed ?? stored;
    // With Capture the reader fills the gap and accounts for what Capture does not hold.
    if (!this.#d.backfill) this.#noteRetentionGap(partitionId, checkpoint, props);
    let { position, source } = chooseStartPosition(partitionId, checkpoint, {
      startPosition: c.start_position,
      partitionStart: c.partition_start,
      partition: c.partition,
      offset: c.offset,
    });
    let initial = stored;
    if (!checkpoint && position.kind === 'latest') {
      // Resolve `latest` to a concrete position and checkpoint it at once: a successor after a crash must
      // resume here, not at a later `latest` that would skip what arrived in between (ARCHITECTURE.md).
      const resolved = {
        partitionId,
        sequenceNumber: props.lastEnqueuedSequenceNumber,
        offset: props.isEmpty ? '-1' : props.lastEnqueuedOffset,
      };
      await raceAbort(store.write(scope, resolved, claim.fence), signal);
      initial = resolved;
      position = {
        kind: 'sequenceNumber',
        sequenceNumber: resolved.sequenceNumber,
        inclusive: false,
      } satisfies StartPosition;
      source = 'start_position';
    }
    signal.throwIfAborted();
    if (this.#d.isClosing()) throw new Error('the receiver is shutting down');
    const checkpointer = new Checkpointer({
      store,
      scope,
      partitionId,
      fence: claim.fence,
      intervalMs: c.checkpoint.interval,
      everyNEvents: c.checkpoint.every_n_events,
      initial,
      resumeFrom: resumed,
    });
    const prefetch = this.#prefetchFor(this.#owned.size + 1);
    const pump = new PartitionPump({
      hub: this.#d.backfill?.hub ?? hub,
      gapsAccounted: this.#d.backfill !== undefined,
      partitionId,
      start: position,
      startSource: source,
      ownerLevel: claim.ownerLevel,
      prefetchCount: prefetch,
      maxBatchSize: c.max_poll_events,
      maxBatchesInFlight: c.max_batches_in_flight,
      maxWaitMs: Math.max(1, c.poll_rate * 1000),
      decode: this.#d.decoder,
      offload: this.#d.offload,
      context: {
        namespace: scope.fullyQualifiedNamespace,
        eventHubName: scope.eventHubName,
        consumerGroup: scope.consumerGroup,
        partitionId,
      },
      consumer: this.#d.consumer,
      checkpointer,
      deadLetter: this.#d.deadLetter,
      receiverId: this.#d.receiverId,
      signals: this.#d.signals,
      dropRefused: c.dead_letter?.drop === true,
      // A held batch is tried again on the retry_on_failure schedule: one policy for every export retry.
      holdInitialMs: c.retry_on_failure.initial_interval,
      holdMaxMs: c.retry_on_failure.max_interval,
      counters: this.#d.counters,
      logger: this.#d.logger.child({ partitionId }),
      emit: this.#d.emit,
      readGate: this.#d.readGate,
      ...(this.#d.inFlightBudget ? { inFlightBudget: this.#d.inFlightBudget } : {}),
    });
    this.#owned.set(partitionId, { pump, checkpointer, startProps: props, startedFrom: initial?.sequenceNumber ?? -1 });
    this.#sharePrefetch();
    this.#released.delete(partitionId);
    this.#d.emit({
      type: 'partitionOpened',
      partitionId,
      startSequenceNumber: position.kind === 'sequenceNumber' ? position.sequenceNumber : undefined,
      ownerLevel: claim.ownerLevel,
    });
    this.#d.logger.info('partition opened', {
      partitionId,
      start: describe(position),
      source: resumed ? 'exported before the lease lapsed' : source,
      ownerLevel: claim.ownerLevel,
    });
    let stopReason: StopReason | undefined;
    const ended = pump.run().then((end) => {
      if (this.#owned.get(partitionId)?.pump === pump) {
        this.#owned.delete(partitionId);
        this.#sharePrefetch();
      }
      const reason = end.reason === 'stopped' ? (stopReason ?? 'shutdown') : end.reason;
      if (end.reason !== 'stopped') this.#d.counters.restarts[end.reason]++;
      this.#released.set(partitionId, { reason, at: Date.now() });
      const written = checkpointer.writtenSequenceNumber() ?? -1;
      if (pump.lastSequenceNumber > written && pump.lastOffset !== undefined)
        this.#exported.set(partitionId, {
          partitionId,
          sequenceNumber: pump.lastSequenceNumber,
          offset: pump.lastOffset,
        });
      else this.#exported.delete(partitionId);
      this.#d.emit({ type: 'partitionState', partitionId, state: 'released', since: Date.now() });
      this.#d.emit({ type: 'partitionClosed', partitionId, reason, error: end.error });
      const fields = {
        partitionId,
        reason,
        lastSequenceNumber: pump.lastSequenceNumber,
        checkpoint: checkpointer.writtenSequenceNumber(),
      };
      if (end.reason === 'stopped') this.#d.logger.info('partition closed', fields);
      else
        this.#d.logger.warn('partition reader ended by itself; handing the partition back', {
          ...fields,
          error: end.error ? redactError(end.error) : undefined,
        });
      return end;
    });
    return {
      ended,
      stop: (reason) => {
        stopReason ??= reason;
        void (reason === 'lost' ? pump.kill() : pump.stop(c.shutdown_timeout));
        return ended;
      },
    };
  }

  /**
   * Where this instance's own earlier reader of the partition got to, when that is beyond `stored` and still in
   * the partition: everything up to it was exported here, so reading on from it re-reads nothing. Used once.
   */
  #resumeAfter(
    partitionId: string,
    stored: Checkpoint | undefined,
    props: PartitionProperties,
  ): Checkpoint | undefined {
    const exported = this.#exported.get(partitionId);
    this.#exported.delete(partitionId);
    if (!exported || props.isEmpty) return undefined;
    if (exported.sequenceNumber <= (stored?.sequenceNumber ?? -1)) return undefined;
    if (exported.sequenceNumber > props.lastEnqueuedSequenceNumber) return undefined;
    this.#d.logger.info(
      'reading on from what this instance exported before it lost the lease (not the older checkpoint)',
      {
        partitionId,
        checkpoint: stored?.sequenceNumber,
        exported: exported.sequenceNumber,
      },
    );
    return exported;
  }

  /**
   * The stored checkpoint, unless it lies beyond the partition's last event (`on_invalid_checkpoint`):
   * `fail` throws (the partition stays unread, health says `invalidCheckpoint`); `earliest` / `latest`
   * rewrite it under the lease, as `checkpoints reset` would, and say so. Never a silent jump.
   */
  async #checkpointToUse(
    claim: PartitionClaim,
    stored: Checkpoint | UnusableCheckpointError | undefined,
    props: PartitionProperties,
    signal: AbortSignal,
  ): Promise<Checkpoint | undefined> {
    const invalid =
      stored instanceof UnusableCheckpointError
        ? new InvalidCheckpointError(claim.partitionId, undefined, props.lastEnqueuedSequenceNumber, stored.message)
        : invalidCheckpoint(claim.partitionId, stored, props);
    if (!invalid) return stored as Checkpoint | undefined;
    const { store, scope, config: c, counters, logger } = this.#d;
    counters.invalidCheckpoints++;
    const policy = c.on_invalid_checkpoint;
    if (policy === 'fail') throw invalid;
    const reset: Checkpoint =
      policy === 'latest' && !props.isEmpty
        ? {
            partitionId: claim.partitionId,
            sequenceNumber: props.lastEnqueuedSequenceNumber,
            offset: props.lastEnqueuedOffset,
          }
        : { partitionId: claim.partitionId, sequenceNumber: -1, offset: '-1' };
    logger.error('checkpoint that cannot be right: reset by on_invalid_checkpoint', {
      partitionId: claim.partitionId,
      error: invalid.message,
      policy,
      from: invalid.checkpointSequenceNumber,
      to: reset.sequenceNumber,
    });
    await raceAbort(store.write(scope, reset, claim.fence, { replacing: invalid.checkpointSequenceNumber }), signal);
    return reset;
  }

  #noteRetentionGap(partitionId: string, checkpoint: Checkpoint | undefined, props: PartitionProperties): void {
    // Sequence number -1 (offset "-1") is the "before the first event" marker that `earliest` and resets write: not a
    // gap.
    if (
      !checkpoint ||
      checkpoint.sequenceNumber < 0 ||
      props.isEmpty ||
      props.beginningSequenceNumber <= checkpoint.sequenceNumber + 1
    )
      return;
    const lost = props.beginningSequenceNumber - checkpoint.sequenceNumber - 1;
    this.#d.counters.eventsLostToRetention += lost;
    this.#d.emit({
      type: 'retentionGap',
      partitionId,
      eventsLost: lost,
      checkpointSequenceNumber: checkpoint.sequenceNumber,
      firstRetainedSequenceNumber: props.beginningSequenceNumber,
    });
    this.#d.logger.error(
      'checkpoint is older than the first retained event: events were lost to retention before they were read',
      {
        partitionId,
        eventsLost: lost,
        checkpoint: checkpoint.sequenceNumber,
        firstRetained: props.beginningSequenceNumber,
      },
    );
  }

  /**
   * The properties of a partition read here, from its reader's last delivery, if that came within `maxAgeMs`
   * (the hub-wide lag uses them instead of a management call); undefined when not read here or stale.
   */
  freshProperties(partitionId: string, maxAgeMs: number): PartitionProperties | undefined {
    const owned = this.#owned.get(partitionId);
    const last = owned?.pump.reader?.lastEnqueued();
    if (!owned || !last || Date.now() - last.retrievedOn.getTime() > maxAgeMs) return undefined;
    return {
      ...owned.startProps,
      lastEnqueuedSequenceNumber: last.sequenceNumber,
      lastEnqueuedOffset: last.offset,
      lastEnqueuedOnUtc: last.enqueuedOn,
      isEmpty: false,
    };
  }

  /** Per-partition gauges and counters of the running pumps. */
  stats(): ReceiverStats {
    const now = Date.now();
    const retentionS = this.#d.config.retention ? this.#d.config.retention / 1000 : undefined;
    const partitions: PartitionStats[] = [];
    const backfills = new Map((this.#d.backfill?.progress.ranges() ?? []).map((r) => [r.partitionId, r]));
    for (const [partitionId, { pump, checkpointer, startProps, startedFrom }] of this.#owned) {
      const last = pump.reader?.lastEnqueued();
      const lastSeq = last?.sequenceNumber ?? startProps.lastEnqueuedSequenceNumber;
      const processed = pump.lastSequenceNumber >= 0 ? pump.lastSequenceNumber : startedFrom;
      const lagEvents = Math.max(0, lastSeq - processed);
      const since = pump.lastEnqueuedTime ?? (lagEvents > 0 ? startProps.lastEnqueuedOnUtc : undefined);
      const lagSeconds = lagEvents > 0 && since ? Math.max(0, (now - since.getTime()) / 1000) : 0;
      partitions.push({
        partitionId,
        lastProcessedSequenceNumber: pump.lastSequenceNumber,
        lagEvents,
        lagSeconds,
        checkpointAgeSeconds: checkpointer.ageSeconds(),
        retentionUsedRatio: retentionS ? lagSeconds / retentionS : undefined,
        state: pump.state.state,
        stateSeconds: Math.max(0, (now - pump.state.since) / 1000),
        idleSeconds: Math.max(0, (now - pump.progressAt) / 1000),
        prefetch: pump.prefetch,
        ...backfillOf(backfills.get(partitionId)),
      });
    }
    const { restarts, ...counters } = this.#d.counters;
    const released = [...this.#released].map(([partitionId, r]) => ({
      partitionId,
      reason: r.reason,
      seconds: (now - r.at) / 1000,
    }));
    return { counters, partitions, restarts: { ...restarts }, released };
  }
}

function backfillOf(r: BackfillRange | undefined): Pick<PartitionStats, 'backfill' | 'backfillRemainingEvents'> {
  if (!r) return {};
  const { fromSequenceNumber, toSequenceNumber, remainingEvents } = r;
  return {
    backfill: { fromSequenceNumber, toSequenceNumber, remainingEvents },
    backfillRemainingEvents: remainingEvents,
  };
}

function describe(p: StartPosition): string {
  switch (p.kind) {
    case 'earliest':
    case 'latest':
      return p.kind;
    case 'sequenceNumber':
      return `sequence number ${p.inclusive ? '>=' : '>'} ${p.sequenceNumber}`;
    case 'offset':
      return `offset ${p.inclusive ? '>=' : '>'} ${p.offset}`;
    case 'enqueuedTime':
      return `enqueued after ${p.enqueuedTime.toISOString()}`;
  }
}

/** The stored checkpoint; an unusable blob comes back as its error, for `on_invalid_checkpoint` to decide. */
async function readUsable(
  store: CheckpointStore,
  scope: CheckpointScope,
  partitionId: string,
): Promise<Checkpoint | UnusableCheckpointError | undefined> {
  try {
    return await store.read(scope, partitionId);
  } catch (error) {
    if (error instanceof UnusableCheckpointError) return error;
    throw error;
  }
}
