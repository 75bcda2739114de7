import { randomUUID } from 'node:crypto';
import type { ContainerClient } from '@azure/storage-blob';
import type { BackendKind, HubClient } from '../backends/consumer.ts';
import { createHubClient } from '../backends/create-hub-client.ts';
import type { ReceiverConfig } from '../config/receiver-config.ts';
import { createFeatureGates, STREAMING_GATE_ID } from '../component/feature-gates.ts';
import { noopLogger, type Logger } from '../component/logger.ts';
import { ConfigError } from '../component/errors.ts';
import { redactError } from '../component/redact.ts';
import { createDecoder } from '../decode/create-decoder.ts';
import { effectiveFormat, signalDecoderOptions, signalFormatProblem } from '../config/receiver-signals.ts';
import { SIGNALS, type Signal } from '../pipeline/signals.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import { withRetry, retryOptionsFromConfig } from '../pipeline/retry.ts';
import type { DeadLetterStore } from '../pipeline/dead-letter.ts';
import { createDeadLetterStore } from '../pipeline/create-dead-letter-store.ts';
import type { CheckpointScope, CheckpointStore } from '../ownership/checkpoint.ts';
import { BlobCheckpointStore } from '../ownership/blob-checkpoint-store.ts';
import { alternateNamespaces } from '../ownership/namespace-spellings.ts';
import { MemoryCheckpointStore } from '../ownership/memory-checkpoint-store.ts';
import type { StorageError } from '../ownership/storage-errors.ts';
import type { OwnershipCoordinator, OwnershipEvent } from '../ownership/coordinator.ts';
import {
  checkpointContainer,
  ensureCheckpointContainer,
  proxyForLog,
  receiverCredential,
  storageOptions,
} from './internal/receiver-connections.ts';
import { tellOwnershipEvent } from './internal/tell-ownership-event.ts';
import { PartitionStarter } from './partition-starter.ts';
import { createOwnership, usesLeases } from '../ownership/create-ownership.ts';
import { createPumpCounters, type PumpCounters } from './internal/pump-counters.ts';
import { settleWithin } from '../component/abort.ts';
import { rateLimitedLogger } from '../component/rate-limited-logger.ts';
import type { AzureEventHubReceiver, ReceiverCreateSettings } from './receiver.ts';
import type { ReceiverStats, ReceiverStatus } from './receiver-status.ts';
import { errorHints } from '../component/failure-hints.ts';
import { HubLagMonitor } from './internal/hub-lag-monitor.ts';
import { blobPartitionOwners } from '../ownership/partition-owners.ts';
import { listOwnership, type PartitionOwnershipInfo } from '../ownership/admin.ts';
import type { HubPartitionLag } from './receiver-status.ts';
import { MemoryGuard } from './memory-guard.ts';
import { DecodePool, decodeWorkerCount } from './internal/decode-pool.ts';
import type { DecoderOptions } from '../decode/decoder.ts';
import type { TokenCredential } from '@azure/core-auth';
import { BackfillProgress } from './capture/backfill-progress.ts';
import { withCaptureBackfill } from './capture/capture-backfill-reader.ts';
import { captureLocation, capturePartitions } from './capture/capture-source.ts';
import { inFlightBudgetFor } from './internal/in-flight-budget.ts';

/** What the connections phase of a start made, for the pipeline and ownership phases. */
interface Connections {
  readonly hub: HubClient;
  readonly scope: CheckpointScope;
  readonly store: CheckpointStore;
  /** The blob container of the checkpoint store; absent without blob_checkpoint_store. */
  readonly container: ContainerClient | undefined;
  readonly blobStore: BlobCheckpointStore | undefined;
}

/** Longest wait for the backend connection to close at shutdown. */
const HUB_CLOSE_TIMEOUT_MS = 5_000;

/**
 * The receiver: wiring only. It builds the backend, the checkpoint store, the decoder and the pipeline
 * (with retry and dead letters), hands them to a PartitionStarter (the coordinator's PartitionLifecycle),
 * and starts the ownership coordinator, which owns every partition's handle from then on. It tells status
 * to its listeners and reads stats from the starter.
 */
export class AzureEventHubReceiverImpl implements AzureEventHubReceiver {
  readonly #config: ReceiverConfig;
  readonly #next: SignalConsumer;
  readonly #settings: ReceiverCreateSettings;
  /** The signals this receiver feeds (settings.signals; default logs). */
  readonly #signals: ReadonlySet<Signal>;
  readonly #logger: Logger;
  readonly #listeners = new Set<(s: ReceiverStatus) => void>();
  readonly #counters: PumpCounters = createPumpCounters();
  /** Aborted at shutdown: the background bring-up gives up. */
  readonly #closing = new AbortController();
  #bringUp: Promise<void> | undefined;
  #hubLag: HubLagMonitor | undefined;
  #memory: MemoryGuard | undefined;
  /** Whether new claims wait for late lease renewals; undefined until the first pause. */
  #claimsPaused: boolean | undefined;
  #decodePool: DecodePool | undefined;
  #starter: PartitionStarter | undefined;
  #hub: HubClient | undefined;
  #scope: CheckpointScope | undefined;
  #coordinator: OwnershipCoordinator | undefined;
  #deadLetter: DeadLetterStore | undefined;
  #ownerId: string | undefined;
  /** The checkpoint container when partitions are claimed with leases (for `fleetOwnership`). */
  #leaseContainer: ContainerClient | undefined;
  #started: Promise<void> | undefined;
  #shutdown: Promise<void> | undefined;
  /** A started receiver keeps its process alive, as a listening server does; every other timer is unref'd. */
  #keepAlive: NodeJS.Timeout | undefined;

  constructor(config: ReceiverConfig, next: SignalConsumer, settings: ReceiverCreateSettings) {
    this.#config = config;
    this.#next = next;
    this.#settings = settings;
    this.#signals = settings.signals ?? new Set<Signal>(['logs']);
    // `validate` says this with the pipeline's path; an embedder hears it here, before anything connects.
    const problems = SIGNALS.filter((s) => this.#signals.has(s)).flatMap((s) => signalFormatProblem(config, s) ?? []);
    if (problems.length > 0) throw new ConfigError(problems);
    // A partition failing the same way on every backoff step, on every partition, is one line per window.
    this.#logger = rateLimitedLogger(settings.logger ?? noopLogger);
  }

  /** The backend in force: an explicit `backend:` wins over the feature gate. */
  backendKind(): BackendKind {
    if (this.#config.backend) return this.#config.backend;
    const gates = this.#settings.featureGates ?? createFeatureGates();
    return gates.isEnabled(STREAMING_GATE_ID) ? 'streaming' : 'polling';
  }

  /** With `capture`: the hub as pumps read it, filling retention gaps from Capture files. */
  #captureBackfill(
    credential: TokenCredential | undefined,
    live: HubClient,
  ): { hub: HubClient; progress: BackfillProgress } | undefined {
    const location = captureLocation(this.#config, live, credential, storageOptions(this.#config));
    if (!location) return undefined;
    const progress = new BackfillProgress();
    const hub = withCaptureBackfill(live, {
      capture: capturePartitions(location),
      progress,
      counters: this.#counters,
      logger: this.#logger,
      emit: (st) => this.#emit(st),
    });
    return { hub, progress };
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

  /** Start in the three phases a receiver has: connections, pipeline, ownership. */
  async #start(): Promise<void> {
    const credential = receiverCredential(this.#config, this.#settings);
    const connections = this.#connect(credential);
    const starter = await this.#buildPipeline(credential, connections);
    this.#buildOwnership(connections, starter);
  }

  /** Connections: the hub client (per backend), the checkpoint scope and the checkpoint store. */
  #connect(credential: TokenCredential | undefined): Connections {
    const c = this.#config;
    const created = createHubClient(this.backendKind(), {
      connectionString: c.connection,
      credential: c.connection ? undefined : credential,
      fullyQualifiedNamespace: c.event_hub.namespace,
      eventHubName: c.event_hub.name,
      consumerGroup: c.group,
      transport: c.transport,
      proxyUrl: c.proxy_url,
      onStatus: (s) => {
        if (s.type === 'disconnected') {
          this.#counters.backendReconnects++;
          this.#emit({ type: 'backendDisconnected', partitionId: s.partitionId, error: s.error });
        } else this.#emit({ type: 'backendRecovered', partitionId: s.partitionId });
      },
    });
    const hub = this.#settings.wrapHub ? this.#settings.wrapHub(created) : created;
    const scope: CheckpointScope = {
      fullyQualifiedNamespace: hub.fullyQualifiedNamespace,
      eventHubName: hub.eventHubName,
      consumerGroup: c.group,
      alternateNamespaces: alternateNamespaces(c.connection, hub.fullyQualifiedNamespace),
    };
    const container = checkpointContainer(c, credential);
    const blobStore = container ? new BlobCheckpointStore(container) : undefined;
    const store = blobStore ?? new MemoryCheckpointStore();
    this.#hub = hub;
    this.#scope = scope;
    return { hub, scope, store, container, blobStore };
  }

  /**
   * The pipeline: dead letters, the memory guard, the decoder (and its threads), retry around the next
   * consumer, and the PartitionStarter that runs one pump per partition it is given.
   */
  async #buildPipeline(
    credential: TokenCredential | undefined,
    { hub, store, scope }: Connections,
  ): Promise<PartitionStarter> {
    const c = this.#config;
    this.#deadLetter =
      c.dead_letter && !c.dead_letter.drop
        ? await createDeadLetterStore(c.dead_letter, {
            fallback: c.blob_checkpoint_store,
            credential,
            storageOptions: storageOptions(c),
          })
        : undefined;
    this.#memory = this.#memoryGuard();
    const memory = this.#memory;
    const decoderOptions: DecoderOptions = {
      // `encoding: azure_encoding[/name]` (validated by the schema) is the Go spelling of this format
      format: effectiveFormat(c),
      applySemanticConventions: c.apply_semantic_conventions,
      ...(c.event_metadata !== undefined ? { eventMetadata: c.event_metadata } : {}),
      recordUid: c.record_uid,
      timeFormats: c.time_formats.logs,
      includeCategories: c.include_categories,
      excludeCategories: c.exclude_categories,
      sanitizers: c.sanitizers,
      ...signalDecoderOptions(c, this.#signals),
    };
    const decoder = createDecoder(decoderOptions);
    this.#decodePool = this.#createDecodePool(decoderOptions);
    const pool = this.#decodePool;
    const backfill = this.#captureBackfill(credential, hub);
    this.#starter = new PartitionStarter({
      ...(backfill ? { backfill } : {}),
      hub,
      store,
      scope,
      config: c,
      decoder,
      ...(pool ? { offload: (events, context) => (pool.usable ? pool.run(events, context) : undefined) } : {}),
      consumer: c.retry_on_failure.enabled
        ? withRetry(this.#next, retryOptionsFromConfig(c.retry_on_failure, { logger: this.#logger }))
        : this.#next,
      deadLetter: this.#deadLetter,
      receiverId: this.#settings.id,
      signals: this.#signals,
      counters: this.#counters,
      logger: this.#logger,
      emit: (st) => this.#emit(st),
      isClosing: () => this.#shutdown !== undefined,
      readGate: memory ? (signal) => memory.whenReadable(signal) : undefined,
      inFlightBudget: inFlightBudgetFor(c.memory.limit_mib),
    });
    return this.#starter;
  }

  /**
   * Ownership: the coordinator (blob leases, or static), the hub-wide lag monitor, and the bring-up that
   * creates the checkpoint container (retried in the background) and then starts claiming partitions.
   */
  #buildOwnership({ hub, scope, store, container, blobStore }: Connections, starter: PartitionStarter): void {
    const c = this.#config;
    const ownerId = c.ownership.owner_id ?? randomUUID();
    const leases = usesLeases({ container, partition: c.partition });
    this.#ownerId = ownerId;
    this.#leaseContainer = leases ? container : undefined;
    const coordinator = createOwnership({
      container,
      partition: c.partition || undefined,
      scope,
      ownerId,
      leases: c.ownership,
      // The signal lets static ownership's shutdown end a read in flight (the lease coordinator passes none).
      getPartitionIds: async (signal) => (await hub.getHubProperties(signal)).partitionIds,
      onHubReached: (ids) => this.#emit({ type: 'hubReached', partitionIds: ids }),
      onHubError: (error) => {
        this.#logger.warn('event hub unreachable; retrying', { error: redactError(error), ...errorHints(error) });
        this.#emit({ type: 'hubUnreachable', error });
      },
      logger: this.#logger,
    });
    this.#coordinator = coordinator;
    coordinator.onEvent?.((e) => this.#onOwnershipEvent(e));
    if (c.hub_lag_interval > 0) {
      // Lag of every partition of the hub, whoever owns it: a partition stuck anywhere in the fleet shows here.
      this.#hubLag = new HubLagMonitor({
        hub,
        store,
        scope,
        // One listing of every checkpoint per refresh, not one read per partition.
        readCheckpoints: blobStore ? (signal) => blobStore.readAll(scope, signal) : undefined,
        // Partitions read here, with a recent delivery, need no management call.
        localProperties: (partitionId, maxAgeMs) => starter.freshProperties(partitionId, maxAgeMs),
        intervalMs: c.hub_lag_interval,
        logger: this.#logger,
        readOwners: leases
          ? blobPartitionOwners(container!, scope, c.ownership.foreign_ownership_expiry)
          : async () => new Map(coordinator.owned().map((p) => [p, ownerId])),
      });
    }
    this.#logger.info('receiver starting', {
      backend: this.backendKind(),
      eventHub: scope.eventHubName,
      consumerGroup: c.group,
      ownership: leases ? 'leases' : 'static',
      ownerId,
      signals: [...this.#signals].join(','),
      decodeWorkers: this.#decodePool?.size ?? 0,
      transport: c.transport,
      ...(c.transport === 'amqp_websockets' ? { proxy: proxyForLog(scope.fullyQualifiedNamespace, c.proxy_url) } : {}),
    });
    // Storage may be down or misconfigured at start: that is retried in the background (and reported),
    // so one receiver's bad storage never fails the others in the same process.
    const onContainerFailure = (error: StorageError): void => {
      this.#emit({ type: 'storageFailing', error });
      this.#logger.error('could not create the checkpoint container; retrying', {
        error: error.message,
        ...errorHints(error),
      });
    };
    this.#bringUp = ensureCheckpointContainer(container, c, this.#closing.signal, onContainerFailure).then(
      async (ready) => {
        if (!ready) return;
        // After the container exists: its first refresh would otherwise warn about a missing container.
        this.#hubLag?.start();
        await coordinator.start(starter);
      },
    );
  }

  /**
   * Decode threads when `decode_workers` asks for some and the pipeline takes log records encoded ahead
   * (`acceptsEncodedLogs`: every pipeline a logs pipeline of stages that pass batches through and OTLP
   * protobuf exporters); otherwise none, and decoding stays on this thread as before.
   */
  #createDecodePool(decoder: DecoderOptions): DecodePool | undefined {
    const size = decodeWorkerCount(this.#config.decode_workers);
    if (size === 0) return undefined;
    if (this.#next.acceptsEncodedLogs !== true) {
      if (this.#config.decode_workers !== 'auto') {
        this.#logger.info('decode_workers: not used; a pipeline of this receiver needs the log records as objects', {
          hint: 'decoding off-thread needs logs pipelines with only batch/memory_limiter and otlphttp (proto)/otlp',
        });
      }
      return undefined;
    }
    return new DecodePool({ size, decoder, logger: this.#logger });
  }

  /** The memory guard when `memory.limit_mib` is set, started (it must act before the first read). */
  #memoryGuard(): MemoryGuard | undefined {
    const { limit_mib: limitMib, check_interval: checkIntervalMs } = this.#config.memory;
    if (limitMib === 0) return undefined;
    const limitBytes = limitMib * 1024 * 1024;
    const guard = new MemoryGuard({
      limitBytes,
      checkIntervalMs,
      ...(this.#settings.readMemoryUsage ? { readUsage: this.#settings.readMemoryUsage } : {}),
      logger: this.#logger,
      onChange: (paused, usageBytes) =>
        this.#emit({ type: paused ? 'memoryPaused' : 'memoryResumed', usageBytes, limitBytes }),
    });
    guard.start();
    return guard;
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
    await this.#starter?.stopAll();
    const closing = this.#hub
      ?.close()
      .catch((e: unknown) => this.#logger.warn('backend close failed', { error: redactError(e) }));
    if (closing && !(await settleWithin(closing, HUB_CLOSE_TIMEOUT_MS)))
      this.#logger.warn('backend did not close in time; abandoning the connection');
    await this.#deadLetter?.close?.().catch(() => undefined);
    // After the pumps: a paused partition was let go by its stop signal; this restores V8's heap growth.
    this.#memory?.stop();
    await this.#decodePool?.close();
  }

  // ---- observation ----------------------------------------------------------------------------------

  /** Lag of every partition of the hub with its owner, refreshed every `hub_lag_interval`. */
  hubLag(): readonly HubPartitionLag[] {
    return this.#hubLag?.snapshot() ?? [];
  }

  ownerId(): string | undefined {
    return this.#ownerId;
  }

  async fleetOwnership(): Promise<readonly PartitionOwnershipInfo[]> {
    if (!this.#leaseContainer || !this.#scope) return [];
    return listOwnership(this.#leaseContainer, this.#scope);
  }

  ownedPartitions(): readonly string[] {
    return this.#starter?.owned() ?? [];
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

  /** Ownership events are told as logs and status; a claim pause is also kept for stats() and metrics. */
  #onOwnershipEvent(event: OwnershipEvent): void {
    if (event.type === 'claimsPaused') this.#claimsPaused = true;
    else if (event.type === 'claimsResumed') this.#claimsPaused = false;
    tellOwnershipEvent(event, { logger: this.#logger, emit: (st) => this.#emit(st), counters: this.#counters });
  }

  stats(): ReceiverStats {
    const stats = this.#starter?.stats() ?? emptyStats(this.#counters);
    const claims = this.#claimsPaused === undefined ? {} : { claimsPaused: this.#claimsPaused };
    return this.#memory ? { ...stats, memory: this.#memory.stats(), ...claims } : { ...stats, ...claims };
  }
}

function emptyStats(counters: PumpCounters): ReceiverStats {
  const { restarts, ...rest } = counters;
  return { counters: rest, partitions: [], restarts: { ...restarts }, released: [] };
}
