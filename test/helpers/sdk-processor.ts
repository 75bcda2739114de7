/**
 * An Azure SDK event processor (`EventHubConsumerClient` + `@azure/eventhubs-checkpointstore-blob`), as a
 * user migrating to or from this receiver runs it: balancing by ETag claims on the same container and
 * consumer group, checkpointing after every batch. For mixed-fleet tests.
 */
import { BlobCheckpointStore } from '@azure/eventhubs-checkpointstore-blob';
import {
  EventHubConsumerClient,
  earliestEventPosition,
  type PartitionOwnership,
  type Subscription,
} from '@azure/event-hubs';
import type { ContainerClient } from '@azure/storage-blob';
import { siblingModule } from './sibling-module.ts';
import { spawn, type ChildProcess } from 'node:child_process';

const PROCESS_RUNNER = siblingModule(import.meta.url, 'sdk-processor-process');

/**
 * Azure keeps a metadata key whose value is empty; Azurite drops it. The SDK releases a partition by
 * writing `ownerid = ""` (and so do we), and its `listOwnership` throws on an ownership blob without
 * `ownerid`: on Azurite, one release would stop every SDK processor's balancing for good. This view of the
 * container restores the empty key in ownership listings, as Azure returns them; nothing else changes.
 */
export function azureLikeOwnershipListings(container: ContainerClient): ContainerClient {
  return new Proxy(container, {
    get(target, prop, receiver) {
      if (prop !== 'listBlobsFlat') {
        const value = Reflect.get(target, prop, receiver) as unknown;
        return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
      }
      return (options: Parameters<ContainerClient['listBlobsFlat']>[0]) => {
        const inner = target.listBlobsFlat(options);
        return (async function* () {
          for await (const item of inner) {
            if (item.name.includes('/ownership/') && item.metadata?.ownerid === undefined) {
              yield { ...item, metadata: { ...item.metadata, ownerid: '' } };
            } else yield item;
          }
        })();
      };
    },
  });
}

type ClaimOptions = Parameters<BlobCheckpointStore['claimOwnership']>[1];

/** The real store, with the claims it was refused recorded (nothing about its behaviour changes). */
class ObservedCheckpointStore extends BlobCheckpointStore {
  readonly refused: string[] = [];
  override async claimOwnership(requests: PartitionOwnership[], options?: ClaimOptions) {
    const claimed = await super.claimOwnership(requests, options);
    for (const r of requests) {
      if (r.ownerId !== '' && !claimed.some((c) => c.partitionId === r.partitionId)) this.refused.push(r.partitionId);
    }
    return claimed;
  }
}

/** What a processor does, as it happens (for a processor in a child process, see sdk-processor-process.ts). */
export type SdkProcessorEvent =
  | { readonly type: 'read'; readonly partitionId: string; readonly sequenceNumber: number }
  | { readonly type: 'opened' | 'closed'; readonly partitionId: string };

export interface SdkProcessorOptions {
  /** The SDK's load-balancing loop interval, in ms. */
  readonly updateIntervalInMs: number;
  /** The SDK's ownership expiry, in ms. */
  readonly ownershipExpiryInMs: number;
  readonly maxBatchSize?: number;
  readonly onEvent?: (event: SdkProcessorEvent) => void;
}

export class SdkProcessor {
  readonly name: string;
  readonly client: EventHubConsumerClient;
  readonly store: ObservedCheckpointStore;
  /** Every processed event: [partition, sequence number]. */
  readonly records: [string, number][] = [];
  readonly owned = new Set<string>();
  readonly errors: Error[] = [];
  /** Highest checkpoint written per partition. */
  readonly checkpoints = new Map<string, number>();
  readonly #subscription: Subscription;
  #stopped: Promise<void> | undefined;

  constructor(name: string, connectionString: string, container: ContainerClient, options: SdkProcessorOptions) {
    this.name = name;
    this.store = new ObservedCheckpointStore(azureLikeOwnershipListings(container));
    this.client = new EventHubConsumerClient('$Default', connectionString, this.store, {
      retryOptions: { maxRetries: 2, retryDelayInMs: 100, maxRetryDelayInMs: 500, timeoutInMs: 5_000 },
      loadBalancingOptions: {
        strategy: 'balanced',
        updateIntervalInMs: options.updateIntervalInMs,
        partitionOwnershipExpirationIntervalInMs: options.ownershipExpiryInMs,
      },
    });
    this.#subscription = this.client.subscribe(
      {
        processInitialize: async (ctx) => {
          this.owned.add(ctx.partitionId);
          options.onEvent?.({ type: 'opened', partitionId: ctx.partitionId });
        },
        processClose: async (_reason, ctx) => {
          this.owned.delete(ctx.partitionId);
          options.onEvent?.({ type: 'closed', partitionId: ctx.partitionId });
        },
        processEvents: async (events, ctx) => {
          for (const e of events) {
            this.records.push([ctx.partitionId, e.sequenceNumber]);
            options.onEvent?.({ type: 'read', partitionId: ctx.partitionId, sequenceNumber: e.sequenceNumber });
          }
          const last = events[events.length - 1];
          if (!last) return;
          // Checkpoint after every batch, as the SDK samples do: one batch is the checkpoint interval.
          await ctx.updateCheckpoint(last);
          const previous = this.checkpoints.get(ctx.partitionId) ?? -1;
          this.checkpoints.set(ctx.partitionId, Math.max(previous, last.sequenceNumber));
        },
        processError: async (err) => void this.errors.push(err),
      },
      { startPosition: earliestEventPosition, maxBatchSize: options.maxBatchSize ?? 50, maxWaitTimeInSeconds: 0.5 },
    );
  }

  /** Graceful stop: the pumps finish, then the SDK relinquishes its partitions (`ownerid = ""`). Idempotent. */
  stop(): Promise<void> {
    this.#stopped ??= (async () => {
      await this.#subscription.close();
      await this.client.close();
    })();
    return this.#stopped;
  }
}

/** Where a processor in a child process reads and keeps its state. */
export interface SdkProcessorPlace {
  readonly connectionString: string;
  readonly storageConnectionString: string;
  readonly container: string;
}

/** The parent's view of an SDK processor in a child process (sdk-processor-process.ts). */
export class SdkProcessorProcess {
  readonly name: string;
  readonly records: [string, number][] = [];
  readonly owned = new Set<string>();
  readonly #child: ChildProcess;
  readonly #exited: Promise<void>;
  #buffer = '';

  constructor(name: string, config: SdkProcessorPlace & SdkProcessorOptions) {
    this.name = name;
    this.#child = spawn(process.execPath, [...PROCESS_RUNNER.execArgv, PROCESS_RUNNER.path], {
      env: { ...process.env, SDK_PROCESSOR_CONFIG: JSON.stringify({ ...config, name }) },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.#exited = new Promise((resolve) => this.#child.once('exit', () => resolve()));
    this.#child.stdout!.on('data', (chunk: Buffer) => {
      this.#buffer += chunk.toString();
      let nl: number;
      while ((nl = this.#buffer.indexOf('\n')) >= 0) {
        const [kind, pid, seq] = this.#buffer.slice(0, nl).split(' ');
        this.#buffer = this.#buffer.slice(nl + 1);
        if (kind === 'R') this.records.push([pid!, Number(seq)]);
        else if (kind === 'O') this.owned.add(pid!);
        else if (kind === 'C') this.owned.delete(pid!);
      }
    });
  }

  /** SIGKILL: nothing released, claims left to expire. */
  async crash(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGKILL');
    await this.#exited;
    this.owned.clear();
  }

  async stop(): Promise<void> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill('SIGTERM');
    await this.#exited;
  }
}
