import type { HubClient } from '../backends/consumer.ts';
import type { TokenCredential } from '@azure/core-auth';
import type { CreateSettings, ReceiverComponent } from '../pipeline/factory.ts';
import type { FeatureGateRegistry } from '../component/feature-gates.ts';
import type { PartitionOwnershipInfo } from '../ownership/admin.ts';
import type { HubPartitionLag, ReceiverStats, ReceiverStatus } from './receiver-status.ts';
import type { Signal } from '../pipeline/signals.ts';

/** The Azure Event Hubs receiver, as embedders and the service see it. */
export interface AzureEventHubReceiver extends ReceiverComponent {
  /** Counters and per-partition gauges (lag, checkpoint age), cheap enough to read at every scrape. */
  stats(): ReceiverStats;
  /** Partitions this instance reads now. */
  ownedPartitions(): readonly string[];
  /** Subscribes to status events; returns the unsubscribe function. */
  onStatus(listener: (status: ReceiverStatus) => void): () => void;
  /**
   * Lag of every partition of the hub, whoever owns it, from the checkpoint store and the hub (refreshed in
   * the background; cheap to call at every scrape). Optional: absent or [] when the receiver does not monitor it.
   */
  hubLag?(): readonly HubPartitionLag[];
  /** This instance's owner id once started (the `ownerid` its leases carry). Optional. */
  ownerId?(): string | undefined;
  /**
   * The consumer group's ownership blobs (owner, epoch, lease state), read from the checkpoint store now: one
   * listing per call, for on-demand pages, not for scrapes. [] without leases (static ownership, memory store).
   */
  fleetOwnership?(): Promise<readonly PartitionOwnershipInfo[]>;
}

/** Settings the service (or an embedder) passes to the receiver factory. */
export interface ReceiverCreateSettings extends CreateSettings {
  /** Gates in force; default: a fresh registry with OTELCOL_FEATURE_GATES applied. */
  readonly featureGates?: FeatureGateRegistry;
  /** Resolves an `auth: <extension id>` reference (Go receiver style) to a credential. */
  readonly resolveAuth?: (extensionId: string) => TokenCredential | undefined;
  /** A credential to use when `auth` is set inline or for `storage_account_url` (overrides `auth`). */
  readonly credential?: TokenCredential;
  /**
   * The signals the receiver feeds: the types of the pipelines that list it (the service passes them).
   * Records of Azure metrics become metric points only with `metrics`, Application Insights requests and
   * dependencies spans only with `traces`; otherwise they stay log records (docs/signals.md). Default logs.
   */
  readonly signals?: ReadonlySet<Signal>;
  /**
   * What `memory.limit_mib` is compared with, bytes. Default the V8 heap in use plus Buffers of the
   * receiver's thread (`heapUsed + external`). For tests, or to count something else.
   */
  readonly readMemoryUsage?: () => number;
  /**
   * Replaces the hub the receiver reads with a wrapper of it (the `replay` command reads Capture files
   * through the same pumps this way). Default: the hub itself.
   */
  readonly wrapHub?: (hub: HubClient) => HubClient;
}
