import { randomUUID } from 'node:crypto';
import type { ContainerClient } from '@azure/storage-blob';
import type { TokenCredential } from '@azure/core-auth';
import type { BackendKind, HubClient, PartitionProperties, StartPosition } from '../backends/consumer.ts';
import { DEFAULT_PREFETCH_COUNT } from '../backends/consumer.ts';
import { createHubClient } from '../backends/create-hub-client.ts';
import type { ReceiverConfig } from '../config/receiver-config.ts';
import { createFeatureGates, STREAMING_GATE_ID } from '../component/feature-gates.ts';
import { authConfigSchema, createTokenCredential } from '../component/credential.ts';
import { noopLogger, type Logger } from '../component/logger.ts';
import { ConfigError } from '../component/errors.ts';
import { redactError } from '../component/redact.ts';
import { createDecoder } from '../decode/create-decoder.ts';
import type { Decoder } from '../decode/decoder.ts';
import type { LogsConsumer } from '../pipeline/consumer.ts';
import { withRetry, retryOptionsFromConfig } from '../pipeline/retry.ts';
import type { DeadLetterStore } from '../pipeline/dead-letter.ts';
import { createDeadLetterStore } from '../pipeline/create-dead-letter-store.ts';
import type { Checkpoint, CheckpointScope, CheckpointStore } from '../ownership/checkpoint.ts';
import { BlobCheckpointStore } from '../ownership/blob-checkpoint-store.ts';
import { MemoryCheckpointStore } from '../ownership/memory-checkpoint-store.ts';
import { checkpointContainerClient } from '../ownership/checkpoint-container.ts';
import { toStorageError } from '../ownership/internal/storage-errors.ts';
import type {
  OwnershipCoordinator,
  OwnershipEvent,
  PartitionClaim,
  PartitionHandle,
  PartitionLifecycle,
  StopReason,
} from '../ownership/coordinator.ts';
import { createLeaseCoordinator } from './internal/create-lease-coordinator.ts';
import { StaticOwnership } from './static-ownership.ts';
import { Checkpointer } from './checkpointer.ts';
import { chooseStartPosition } from './start-position.ts';
import { PartitionPump } from './partition-pump.ts';
import { createPumpCounters, type PumpCounters } from './internal/pump-counters.ts';
import { raceAbort, settleWithin, sleep } from '../component/abort.ts';
import { rateLimitedLogger } from '../component/rate-limited-logger.ts';
import { backoffDelayMs } from '../component/backoff.ts';
import type { AzureEventHubReceiver, ReceiverCreateSettings } from './receiver.ts';
import type { PartitionStats, ReceiverStats, ReceiverStatus } from './receiver-status.ts';
import { errorHints } from './internal/error-hints.ts';
import { HubLagMonitor } from './internal/hub-lag-monitor.ts';
import { blobPartitionOwners } from '../ownership/partition-owners.ts';
import type { HubPartitionLag } from './receiver-status.ts';

/** Longest wait for the backend connection to close at shutdown. */
const HUB_CLOSE_TIMEOUT_MS = 5_000;

interface Owned {
  readonly pump: PartitionPump;
  readonly checkpointer: Checkpointer;
  readonly startProps: PartitionProperties;
  readonly startedFrom: number;
}

/**
 * The receiver: wires a backend, an ownership coordinator, checkpoint store, decoder and the pipeline,
 * and runs one PartitionPump per owned partition. It is the coordinator's PartitionLifecycle.
 */
export class AzureEventHubReceiverImpl implements AzureEventHubReceiver, PartitionLifecycle {
  readonly #config: ReceiverConfig;
  readonly #next: LogsConsumer;
  readonly #settings: ReceiverCreateSettings;
  readonly #logger: Logger;
  readonly #listeners = new Set<(s: ReceiverStatus) => void>();
  readonly #counters: PumpCounters = createPumpCounters();
  readonly #owned = new Map<string, Owned>();
  /** Partitions this instance read and handed back, with why: the `released` state. */
  readonly #released = new Map<string, { reason: string; at: number }>();
  /** Aborted at shutdown: the background bring-up gives up. */
  readonly #closing = new AbortController();
  #bringUp: Promise<void> | undefined;
  #hubLag: HubLagMonitor | undefined;
  #hub: HubClient | undefined;
  #store: CheckpointStore | undefined;
  #scope: CheckpointScope | undefined;
  #coordinator: OwnershipCoordinator | undefined;
  #decoder: Decoder | undefined;
  #consumer: LogsConsumer | undefined;
  #deadLetter: DeadLetterStore | undefined;
  #started: Promise<void> | undefined;
  #shutdown: Promise<void> | undefined;
  /** A started receiver keeps its process alive, as a listening server does; every other timer is unref'd. */
  #keepAlive: NodeJS.Timeout | undefined;

  constructor(config: ReceiverConfig, next: LogsConsumer, settings: ReceiverCreateSettings) {
    this.#config = config;
    this.#next = next;
    this.#settings = settings;
    // A partition failing the same way on every backoff step, on every partition, is one line per window.
    this.#logger = rateLimitedLogger(settings.logger ?? noopLogger);
  }

  /** The backend in force: an explicit `backend:` wins over the feature gate. */
  backendKind(): BackendKind {
    if (this.#config.backend) return this.#config.backend;
    const gates = this.#settings.featureGates ?? createFeatureGates();
    return gates.isEnabled(STREAMING_GATE_ID) ? 'streaming' : 'polling';
  }

  start(): Promise<void> {
    if (this.#shutdown) return Promise.reject(new Error('receiver was shut down'));
    this.#keepAlive ??= setInterval(() => undefined, 60_000);
    this.#started ??= this.#start().catch(async (error: unknown) => {
      // A start that fails half-way cleans up what it started.
      await this.#teardown();
      throw error;
    });
    return this.#started;
  }

  async #start(): Promise<void> {
    const c = this.#config;
    const kind = this.backendKind();
    const credential = this.#credential();
    this.#hub = createHubClient(kind, {
      connectionString: c.connection,
      credential: c.connection ? undefined : credential,
      fullyQualifiedNamespace: c.event_hub.namespace,
      eventHubName: c.event_hub.name,
      consumerGroup: c.group,
      onStatus: (s) => {
        if (s.type === 'disconnected') {
          this.#counters.backendReconnects++;
          this.#emit({ type: 'backendDisconnected', partitionId: s.partitionId, error: s.error });
        } else this.#emit({ type: 'backendRecovered', partitionId: s.partitionId });
      },
    });
    this.#scope = {
      fullyQualifiedNamespace: this.#hub.fullyQualifiedNamespace,
      eventHubName: this.#hub.eventHubName,
      consumerGroup: c.group,
    };
    const container = this.#container(credential);
    this.#store = container ? new BlobCheckpointStore(container) : new MemoryCheckpointStore();
    this.#decoder = createDecoder({
      format: c.format,
      applySemanticConventions: c.apply_semantic_conventions,
      timeFormats: c.time_formats.logs,
      sanitizers: c.sanitizers,
    });
    this.#consumer = c.retry_on_failure.enabled
      ? withRetry(this.#next, retryOptionsFromConfig(c.retry_on_failure, { logger: this.#logger }))
      : this.#next;
    this.#deadLetter =
      c.dead_letter && !c.dead_letter.drop
        ? await createDeadLetterStore(c.dead_letter, { fallback: c.blob_checkpoint_store, credential })
        : undefined;
    const ownerId = c.ownership.owner_id ?? randomUUID();
    const hub = this.#hub;
    const getPartitionIds = async () => {
      const props = await hub.getHubProperties();
      return props.partitionIds;
    };
    const leases = container !== undefined && !c.partition;
    this.#coordinator = leases
      ? createLeaseCoordinator({
          container,
          scope: this.#scope,
          ownerId,
          ownership: c.ownership,
          getPartitionIds,
          logger: this.#logger,
          emit: (s) => this.#emit(s),
        })
      : new StaticOwnership({
          ownerId,
          partition: c.partition || undefined,
          logger: this.#logger,
          getPartitionIds,
          onHubReached: (ids) => this.#emit({ type: 'hubReached', partitionIds: ids }),
          onHubError: (error) => {
            this.#logger.warn('event hub unreachable; retrying', { error: redactError(error), ...errorHints(error) });
            this.#emit({ type: 'hubUnreachable', error });
          },
        });
    this.#coordinator.onEvent?.((e) => this.#onOwnershipEvent(e));
    if (c.hub_lag_interval > 0) {
      // Lag of every partition of the hub, whoever owns it: a partition stuck anywhere in the fleet shows here.
      const owned = this.#coordinator;
      this.#hubLag = new HubLagMonitor({
        hub: this.#hub,
        store: this.#store,
        scope: this.#scope,
        intervalMs: c.hub_lag_interval,
        logger: this.#logger,
        readOwners: leases
          ? blobPartitionOwners(container, this.#scope)
          : async () => new Map(owned.owned().map((p) => [p, ownerId])),
      });
      this.#hubLag.start();
    }
    this.#logger.info('receiver starting', {
      backend: kind,
      eventHub: this.#scope.eventHubName,
      consumerGroup: c.group,
      ownership: leases ? 'leases' : 'static',
      ownerId,
    });
    // Storage may be down or misconfigured at start: that is retried in the background (and reported),
    // so one receiver's bad storage never fails the others in the same process.
    const coordinator = this.#coordinator;
    this.#bringUp = this.#ensureContainer(container).then(async (ready) => {
      if (ready) await coordinator.start(this);
    });
  }

  /** Creates the container when configured to, retrying with backoff; false when shut down first. */
  async #ensureContainer(container: ContainerClient | undefined): Promise<boolean> {
    if (!container || !this.#config.blob_checkpoint_store?.create_container) return true;
    for (let attempt = 1; ; attempt++) {
      try {
        await container.createIfNotExists({
          abortSignal: AbortSignal.any([this.#closing.signal, AbortSignal.timeout(30_000)]),
        });
        return true;
      } catch (error) {
        if (this.#closing.signal.aborted) return false;
        const err = toStorageError(error);
        this.#emit({ type: 'storageFailing', error: err });
        this.#logger.error('could not create the checkpoint container; retrying', {
          error: err.message,
          ...errorHints(err),
        });
        try {
          await sleep(backoffDelayMs(attempt, 1_000, 60_000), this.#closing.signal);
        } catch {
          return false;
        }
      }
    }
  }

  #credential(): TokenCredential | undefined {
    if (this.#settings.credential) return this.#settings.credential;
    const auth = this.#config.auth;
    if (auth === undefined) return undefined;
    if (typeof auth === 'string') {
      const resolved = this.#settings.resolveAuth?.(auth);
      if (!resolved) throw new ConfigError([`auth: no auth extension named '${auth}' is configured`]);
      return resolved;
    }
    const parsed = authConfigSchema.safeParse(auth);
    if (!parsed.success)
      throw new ConfigError(parsed.error.issues.map((i) => `auth.${i.path.join('.')}: ${i.message}`));
    return createTokenCredential(parsed.data);
  }

  #container(credential: TokenCredential | undefined): ContainerClient | undefined {
    const b = this.#config.blob_checkpoint_store;
    if (!b) return undefined;
    const container = checkpointContainerClient(b, credential);
    if (!container)
      throw new ConfigError(['blob_checkpoint_store.storage_account_url: needs auth (an Entra ID credential)']);
    return container;
  }

  // ---- PartitionLifecycle -------------------------------------------------------------------------

  async startPartition(claim: PartitionClaim, signal: AbortSignal): Promise<PartitionHandle> {
    const { partitionId } = claim;
    if (this.#shutdown) throw new Error('the receiver is shutting down');
    if (this.#owned.has(partitionId)) throw new Error(`partition ${partitionId} is already being read`);
    const hub = this.#hub!;
    const store = this.#store!;
    const scope = this.#scope!;
    const c = this.#config;
    // Every wait of a start has the caller's deadline: a slow hub or store must not hold a balancing round.
    const [checkpoint, props] = await raceAbort(
      Promise.all([store.read(scope, partitionId), hub.getPartitionProperties(partitionId, signal)]),
      signal,
    );
    this.#noteRetentionGap(partitionId, checkpoint, props);
    let { position, source } = chooseStartPosition(partitionId, checkpoint, {
      startPosition: c.start_position,
      partitionStart: c.partition_start,
      partition: c.partition,
      offset: c.offset,
    });
    let initial = checkpoint;
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
    if (this.#shutdown) throw new Error('the receiver is shutting down');
    const checkpointer = new Checkpointer({
      store,
      scope,
      partitionId,
      fence: claim.fence,
      intervalMs: c.checkpoint.interval,
      everyNEvents: c.checkpoint.every_n_events,
      initial,
    });
    const prefetch = c.prefetch_count === 0 ? DEFAULT_PREFETCH_COUNT : Math.max(0, c.prefetch_count);
    const pump = new PartitionPump({
      hub,
      partitionId,
      start: position,
      startSource: source,
      ownerLevel: claim.ownerLevel,
      prefetchCount: Math.max(prefetch, c.max_poll_events),
      maxBatchSize: c.max_poll_events,
      maxWaitMs: Math.max(1, c.poll_rate * 1000),
      decode: this.#decoder!,
      context: {
        namespace: scope.fullyQualifiedNamespace,
        eventHubName: scope.eventHubName,
        consumerGroup: scope.consumerGroup,
        partitionId,
      },
      consumer: this.#consumer!,
      checkpointer,
      deadLetter: this.#deadLetter,
      dropRefused: this.#dropRefused(),
      // A held batch is tried again on the retry_on_failure schedule: one policy for every export retry.
      holdInitialMs: c.retry_on_failure.initial_interval,
      holdMaxMs: c.retry_on_failure.max_interval,
      counters: this.#counters,
      logger: this.#logger.child({ partitionId }),
      emit: (s) => this.#emit(s),
    });
    this.#owned.set(partitionId, { pump, checkpointer, startProps: props, startedFrom: initial?.sequenceNumber ?? -1 });
    this.#released.delete(partitionId);
    this.#emit({
      type: 'partitionOpened',
      partitionId,
      startSequenceNumber: position.kind === 'sequenceNumber' ? position.sequenceNumber : undefined,
      ownerLevel: claim.ownerLevel,
    });
    this.#logger.info('partition opened', {
      partitionId,
      start: describe(position),
      source,
      ownerLevel: claim.ownerLevel,
    });
    let stopReason: StopReason | undefined;
    const ended = pump.run().then((end) => {
      if (this.#owned.get(partitionId)?.pump === pump) this.#owned.delete(partitionId);
      const reason = end.reason === 'stopped' ? (stopReason ?? 'shutdown') : end.reason;
      if (end.reason !== 'stopped') this.#counters.restarts[end.reason]++;
      this.#released.set(partitionId, { reason, at: Date.now() });
      this.#emit({ type: 'partitionState', partitionId, state: 'released', since: Date.now() });
      this.#emit({ type: 'partitionClosed', partitionId, reason, error: end.error });
      const fields = {
        partitionId,
        reason,
        lastSequenceNumber: pump.lastSequenceNumber,
        checkpoint: checkpointer.writtenSequenceNumber(),
      };
      if (end.reason === 'stopped') this.#logger.info('partition closed', fields);
      else
        this.#logger.warn('partition reader ended by itself; handing the partition back', {
          ...fields,
          error: end.error ? redactError(end.error) : undefined,
        });
      return end;
    });
    return {
      ended,
      stop: (reason) => {
        stopReason ??= reason;
        void (reason === 'lost' ? pump.kill() : pump.stop(this.#config.shutdown_timeout));
        return ended;
      },
    };
  }

  #noteRetentionGap(partitionId: string, checkpoint: Checkpoint | undefined, props: PartitionProperties): void {
    // Sequence number -1 (offset "-1") is the "before the first event" marker that `earliest` and resets write: not a gap.
    if (
      !checkpoint ||
      checkpoint.sequenceNumber < 0 ||
      props.isEmpty ||
      props.beginningSequenceNumber <= checkpoint.sequenceNumber + 1
    )
      return;
    const lost = props.beginningSequenceNumber - checkpoint.sequenceNumber - 1;
    this.#counters.eventsLostToRetention += lost;
    this.#emit({
      type: 'retentionGap',
      partitionId,
      eventsLost: lost,
      checkpointSequenceNumber: checkpoint.sequenceNumber,
      firstRetainedSequenceNumber: props.beginningSequenceNumber,
    });
    this.#logger.error(
      'checkpoint is older than the first retained event: events were lost to retention before they were read',
      {
        partitionId,
        eventsLost: lost,
        checkpoint: checkpoint.sequenceNumber,
        firstRetained: props.beginningSequenceNumber,
      },
    );
  }

  #dropRefused(): boolean {
    return this.#config.dead_letter?.drop === true;
  }

  /** Ownership events of either coordinator, as logs and status: the one place they are told. */
  #onOwnershipEvent(event: OwnershipEvent): void {
    switch (event.type) {
      case 'startFailed':
        this.#counters.restarts.startFailed++;
        this.#emit({
          type: 'partitionStartFailed',
          partitionId: event.partitionId,
          error: event.error,
          retryInMs: event.retryInMs,
        });
        this.#logger.error('could not start reading the partition; retrying with backoff', {
          partitionId: event.partitionId,
          error: redactError(event.error),
          retryInMs: event.retryInMs,
          ...errorHints(event.error),
        });
        break;
      case 'ended':
        this.#logger.warn('partition handed back after its reader ended; it will be claimed again', {
          partitionId: event.partitionId,
          reason: event.end.reason,
          retryInMs: event.retryInMs,
        });
        break;
      case 'balanced':
        this.#emit({ type: 'storageRecovered' });
        if (event.owned.length === 0) this.#emit({ type: 'standby' });
        break;
      case 'storageError':
        this.#emit({ type: 'storageFailing', error: event.error });
        this.#logger.warn('checkpoint store unreachable', {
          error: redactError(event.error),
          ...errorHints(event.error),
        });
        break;
      case 'renewalFailed':
        this.#logger.warn('lease renewal failed; retrying until the lease could lapse', {
          partitionId: event.partitionId,
          error: redactError(event.error),
        });
        break;
      case 'claimed':
        this.#logger.info('partition claimed', { partitionId: event.partitionId, ownerLevel: event.ownerLevel });
        break;
      case 'released':
        if (event.reason === 'lost')
          this.#logger.error('partition ownership lost: reading stopped', { partitionId: event.partitionId });
        else this.#logger.info('partition lease released', { partitionId: event.partitionId, reason: event.reason });
        break;
    }
  }

  // ---- lifecycle ------------------------------------------------------------------------------------

  shutdown(): Promise<void> {
    this.#shutdown ??= (async () => {
      await this.#started?.catch(() => undefined);
      await this.#teardown();
      this.#logger.info('receiver stopped', { ...this.#counters });
    })();
    return this.#shutdown;
  }

  async #teardown(): Promise<void> {
    clearInterval(this.#keepAlive);
    this.#closing.abort(new Error('shutdown'));
    await this.#bringUp;
    await this.#hubLag?.stop();
    await this.#coordinator
      ?.shutdown()
      .catch((e: unknown) => this.#logger.warn('ownership shutdown failed', { error: redactError(e) }));
    // Anything still running (a coordinator that failed to stop it) is stopped gracefully here.
    await Promise.all([...this.#owned.values()].map((o) => o.pump.stop(this.#config.shutdown_timeout)));
    const closing = this.#hub
      ?.close()
      .catch((e: unknown) => this.#logger.warn('backend close failed', { error: redactError(e) }));
    if (closing && !(await settleWithin(closing, HUB_CLOSE_TIMEOUT_MS)))
      this.#logger.warn('backend did not close in time; abandoning the connection');
    await this.#deadLetter?.close?.().catch(() => undefined);
  }

  // ---- observation ----------------------------------------------------------------------------------

  /** Lag of every partition of the hub with its owner, refreshed every `hub_lag_interval`. */
  hubLag(): readonly HubPartitionLag[] {
    return this.#hubLag?.snapshot() ?? [];
  }

  ownedPartitions(): readonly string[] {
    return [...this.#owned.keys()].sort((a, b) => Number(a) - Number(b) || a.localeCompare(b));
  }

  onStatus(listener: (status: ReceiverStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  #emit(status: ReceiverStatus): void {
    for (const listener of this.#listeners) {
      try {
        listener(status);
      } catch (error) {
        this.#logger.warn('status listener threw', { error: String(error) });
      }
    }
  }

  stats(): ReceiverStats {
    const now = Date.now();
    const retentionS = this.#config.retention ? this.#config.retention / 1000 : undefined;
    const partitions: PartitionStats[] = [];
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
      });
    }
    const { restarts, ...counters } = this.#counters;
    const released = [...this.#released].map(([partitionId, r]) => ({
      partitionId,
      reason: r.reason,
      seconds: (now - r.at) / 1000,
    }));
    return { counters, partitions, restarts: { ...restarts }, released };
  }
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
