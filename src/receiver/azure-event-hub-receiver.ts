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
import type { CheckpointScope, CheckpointStore } from '../ownership/checkpoint.ts';
import { BlobCheckpointStore } from '../ownership/blob-checkpoint-store.ts';
import { MemoryCheckpointStore } from '../ownership/memory-checkpoint-store.ts';
import { checkpointContainerClient } from '../ownership/checkpoint-container.ts';
import type { OwnershipCoordinator, PartitionClaim, PartitionLifecycle, StopReason } from '../ownership/coordinator.ts';
import { createLeaseCoordinator } from './internal/create-lease-coordinator.ts';
import { StaticOwnership } from './static-ownership.ts';
import { Checkpointer } from './checkpointer.ts';
import { chooseStartPosition } from './start-position.ts';
import { PartitionPump } from './partition-pump.ts';
import { createPumpCounters, type PumpCounters } from './internal/pump-counters.ts';
import { settleWithin } from '../component/abort.ts';
import type { AzureEventHubReceiver, ReceiverCreateSettings } from './receiver.ts';
import type { PartitionStats, ReceiverStats, ReceiverStatus } from './receiver-status.ts';

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
    this.#logger = settings.logger ?? noopLogger;
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
    this.#scope = { fullyQualifiedNamespace: this.#hub.fullyQualifiedNamespace, eventHubName: this.#hub.eventHubName, consumerGroup: c.group };
    const container = await this.#container(credential);
    this.#store = container ? new BlobCheckpointStore(container) : new MemoryCheckpointStore();
    this.#decoder = createDecoder({
      format: c.format,
      applySemanticConventions: c.apply_semantic_conventions,
      timeFormats: c.time_formats.logs,
      sanitizers: c.sanitizers,
    });
    this.#consumer = c.retry_on_failure.enabled ? withRetry(this.#next, retryOptionsFromConfig(c.retry_on_failure, { logger: this.#logger })) : this.#next;
    this.#deadLetter = c.dead_letter ? await createDeadLetterStore(c.dead_letter, { fallback: c.blob_checkpoint_store, credential }) : undefined;
    const ownerId = c.ownership.owner_id ?? randomUUID();
    const hub = this.#hub;
    const getPartitionIds = async () => {
      const props = await hub.getHubProperties();
      return props.partitionIds;
    };
    this.#coordinator =
      container && !c.partition
        ? createLeaseCoordinator({ container, scope: this.#scope, ownerId, ownership: c.ownership, getPartitionIds, logger: this.#logger, emit: (s) => this.#emit(s) })
        : new StaticOwnership({
            ownerId,
            partition: c.partition || undefined,
            logger: this.#logger,
            restartDelayMs: c.ownership.update_interval,
            getPartitionIds,
            onHubReached: (ids) => this.#emit({ type: 'hubReached', partitionIds: ids }),
            onHubError: (error) => {
              this.#logger.warn('event hub unreachable; retrying', { error: redactError(error) });
              this.#emit({ type: 'hubUnreachable', error });
            },
          });
    this.#logger.info('receiver starting', { backend: kind, eventHub: this.#scope.eventHubName, consumerGroup: c.group, ownership: container && !c.partition ? 'leases' : 'static', ownerId });
    await this.#coordinator.start(this);
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
    if (!parsed.success) throw new ConfigError(parsed.error.issues.map((i) => `auth.${i.path.join('.')}: ${i.message}`));
    return createTokenCredential(parsed.data);
  }

  async #container(credential: TokenCredential | undefined): Promise<ContainerClient | undefined> {
    const b = this.#config.blob_checkpoint_store;
    if (!b) return undefined;
    const container = checkpointContainerClient(b, credential);
    if (!container) throw new ConfigError(['blob_checkpoint_store.storage_account_url: needs auth (an Entra ID credential)']);
    if (b.create_container) await container.createIfNotExists();
    return container;
  }

  // ---- PartitionLifecycle -------------------------------------------------------------------------

  async startPartition(claim: PartitionClaim): Promise<void> {
    const { partitionId } = claim;
    if (this.#owned.has(partitionId) || this.#shutdown) return;
    const hub = this.#hub!;
    const store = this.#store!;
    const scope = this.#scope!;
    const c = this.#config;
    const [checkpoint, props] = await Promise.all([store.read(scope, partitionId), hub.getPartitionProperties(partitionId)]);
    // Sequence number -1 (offset "-1") is the "before the first event" marker that `earliest` and resets write: not a gap.
    if (checkpoint && checkpoint.sequenceNumber >= 0 && props.beginningSequenceNumber > checkpoint.sequenceNumber + 1 && !props.isEmpty) {
      const lost = props.beginningSequenceNumber - checkpoint.sequenceNumber - 1;
      this.#counters.eventsLostToRetention += lost;
      this.#emit({ type: 'retentionGap', partitionId, eventsLost: lost, checkpointSequenceNumber: checkpoint.sequenceNumber, firstRetainedSequenceNumber: props.beginningSequenceNumber });
      this.#logger.error('checkpoint is older than the first retained event: events were lost to retention before they were read', { partitionId, eventsLost: lost, checkpoint: checkpoint.sequenceNumber, firstRetained: props.beginningSequenceNumber });
    }
    let { position, source } = chooseStartPosition(partitionId, checkpoint, { startPosition: c.start_position, partitionStart: c.partition_start, partition: c.partition, offset: c.offset });
    let initial = checkpoint;
    if (!checkpoint && position.kind === 'latest') {
      // Resolve `latest` to a concrete position and checkpoint it at once: a successor after a crash must
      // resume here, not at a later `latest` that would skip what arrived in between (ARCHITECTURE.md).
      const resolved = { partitionId, sequenceNumber: props.lastEnqueuedSequenceNumber, offset: props.isEmpty ? '-1' : props.lastEnqueuedOffset };
      await store.write(scope, resolved, claim.fence);
      initial = resolved;
      position = { kind: 'sequenceNumber', sequenceNumber: resolved.sequenceNumber, inclusive: false } satisfies StartPosition;
      source = 'start_position';
    }
    const checkpointer = new Checkpointer({ store, scope, partitionId, fence: claim.fence, intervalMs: c.checkpoint.interval, everyNEvents: c.checkpoint.every_n_events, initial });
    const prefetch = c.prefetch_count === 0 ? DEFAULT_PREFETCH_COUNT : Math.max(0, c.prefetch_count);
    const pump = new PartitionPump({
      hub,
      partitionId,
      start: position,
      ownerLevel: claim.ownerLevel,
      prefetchCount: Math.max(prefetch, c.max_poll_events),
      maxBatchSize: c.max_poll_events,
      maxWaitMs: Math.max(1, c.poll_rate * 1000),
      decode: this.#decoder!,
      context: { namespace: scope.fullyQualifiedNamespace, eventHubName: scope.eventHubName, consumerGroup: scope.consumerGroup, partitionId },
      consumer: this.#consumer!,
      checkpointer,
      deadLetter: this.#deadLetter,
      counters: this.#counters,
      logger: this.#logger.child({ partitionId }),
      emit: (s) => this.#emit(s),
    });
    this.#owned.set(partitionId, { pump, checkpointer, startProps: props, startedFrom: initial?.sequenceNumber ?? -1 });
    claim.lost.addEventListener('abort', () => void this.stopPartition(partitionId, 'lost'), { once: true });
    this.#emit({ type: 'partitionOpened', partitionId, startSequenceNumber: position.kind === 'sequenceNumber' ? position.sequenceNumber : undefined, ownerLevel: claim.ownerLevel });
    this.#logger.info('partition opened', { partitionId, start: describe(position), source, ownerLevel: claim.ownerLevel });
    void pump.run().then((end) => {
      if (this.#owned.get(partitionId)?.pump !== pump) return;
      this.#owned.delete(partitionId);
      if (end.reason !== 'stopped') {
        this.#emit({ type: 'partitionClosed', partitionId, reason: end.reason === 'ownershipLost' ? 'ownershipLost' : end.reason === 'lost' ? 'lost' : 'error', error: end.error });
        this.#logger.warn('partition reader ended', { partitionId, reason: end.reason, error: end.error ? redactError(end.error) : undefined });
        if (this.#coordinator instanceof StaticOwnership) this.#coordinator.partitionEnded(partitionId);
      }
    });
  }

  async stopPartition(partitionId: string, reason: StopReason): Promise<void> {
    const owned = this.#owned.get(partitionId);
    if (!owned) return;
    const end = reason === 'lost' ? await owned.pump.kill() : await owned.pump.stop(this.#config.shutdown_timeout);
    if (this.#owned.get(partitionId)?.pump === owned.pump) this.#owned.delete(partitionId);
    this.#emit({ type: 'partitionClosed', partitionId, reason, error: end.error });
    this.#logger.info('partition closed', { partitionId, reason, lastSequenceNumber: owned.pump.lastSequenceNumber, checkpoint: owned.checkpointer.writtenSequenceNumber() });
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
    await this.#coordinator?.shutdown().catch((e: unknown) => this.#logger.warn('ownership shutdown failed', { error: redactError(e) }));
    // Anything still running (a coordinator that failed to stop it) is stopped gracefully here.
    await Promise.all([...this.#owned.keys()].map((id) => this.stopPartition(id, 'shutdown')));
    const closing = this.#hub?.close().catch((e: unknown) => this.#logger.warn('backend close failed', { error: redactError(e) }));
    if (closing && !(await settleWithin(closing, HUB_CLOSE_TIMEOUT_MS))) this.#logger.warn('backend did not close in time; abandoning the connection');
    await this.#deadLetter?.close?.().catch(() => undefined);
  }

  // ---- observation ----------------------------------------------------------------------------------

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
      });
    }
    return { counters: { ...this.#counters }, partitions };
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
