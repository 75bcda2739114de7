/** Public types of the emulator; see docs/emulator.md. */
import type { EmulatorTier } from './tier-quotas.ts';

export interface EmulatorHubConfig {
  /** Hub (entity) name. */
  name: string;
  /** Number of partitions, 1 to 32 (up to 1024 with `tier`); partition ids are "0" … "n-1". */
  partitions: number;
  /** Consumer groups besides `$Default`, which always exists. */
  consumerGroups?: string[];
  /** Event Hubs Capture: this hub's events also go to Avro files in Blob Storage. Default off. */
  capture?: EmulatorCaptureConfig;
}

/**
 * Capture settings of one hub, named after the service's (`captureDescription` of the management API).
 * The service allows windows of 60–900 s and 10–500 MiB; the emulator allows any positive values, so tests
 * can use short windows.
 */
export interface EmulatorCaptureConfig {
  /** Blob Storage connection string (Azurite's, for local use) the files are written with. */
  storageConnectionString: string;
  /** Container of the files; created when missing. */
  blobContainer: string;
  /**
   * Blob name format; must hold every token: `{Namespace}`, `{EventHub}`, `{PartitionId}`, `{Year}`, `{Month}`,
   * `{Day}`, `{Hour}`, `{Minute}`, `{Second}`. `.avro` is appended. Default
   * `{Namespace}/{EventHub}/{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}`.
   */
  archiveNameFormat?: string;
  /** Namespace name in blob names (`{Namespace}`). Default `emulatorNs1` (the Docker emulator's sample name). */
  namespace?: string;
  /** Time window in milliseconds. Default 300_000 (5 min, the service's default). */
  intervalMs?: number;
  /** Size window in bytes of event messages. Default 314_572_800 (300 MiB, the service's default). */
  sizeLimitBytes?: number;
  /** Write no file for a window without events. Default false (empty files are written, as on the service). */
  skipEmptyArchives?: boolean;
  /** `Avro` (Avro codec `null`, the default) or `AvroDeflate` (codec `deflate`). */
  encoding?: 'Avro' | 'AvroDeflate';
}

export interface EmulatorOptions {
  /** Interface to listen on. Default "127.0.0.1". */
  host?: string;
  /** TCP port. Default 5672; 0 picks a free port. */
  port?: number;
  /** Hubs to serve. Default none (add them later with `addHub`). */
  hubs?: EmulatorHubConfig[];
  /** Consumer groups added to every hub. Default none (only `$Default`). */
  consumerGroups?: string[];
  /**
   * Namespace quotas to apply: `emulator` (the Docker emulator's 1–32 partitions per hub, nothing else),
   * `basic`, `standard` (32), `premium` (100 per hub, 200 per PU over the namespace) or `dedicated` (1024
   * per hub, 2000 per CU), each with its tier's limits on hubs and consumer groups. Default `emulator`.
   */
  tier?: EmulatorTier;
  /** Processing units (premium) or capacity units (dedicated) the namespace quotas scale with. Default 1. */
  capacityUnits?: number;
  /**
   * Serve offsets as opaque strings, as geo-replicated namespaces do (`g1:…:r`: not a number, not ordered),
   * instead of decimal byte positions. Filters by offset accept only offsets this emulator wrote (and
   * `-1`, `@latest`). Default false.
   */
  opaqueOffsets?: boolean;
  /** Event retention in milliseconds. Default 3_600_000 (1 h), as the official emulator. */
  retentionMs?: number;
  /**
   * Delay before a producer's transfer is acknowledged, in milliseconds (the events are stored at once):
   * a service's network round trip, so a client can lose an acknowledgement to a disconnect as it can
   * against Azure. Default 0 (acknowledged at once).
   */
  ackDelayMs?: number;
  /** Key name → key. When set, SAS signatures, expiry and scope are verified. Default: not verified. */
  sasKeys?: Record<string, string>;
  /**
   * Also serve AMQP over WebSockets on this port (0 picks a free one), path `/$servicebus/websocket`,
   * subprotocol `AMQPWSB10`. With `tls` the port speaks `wss` (the Azure SDKs always use `wss`), without
   * it plain `ws`. Default: no WebSockets.
   */
  websocketPort?: number;
  /**
   * PEM certificate and key: serve AMQPS (TLS) instead of plain TCP, and `wss` on `websocketPort`. Default plain TCP.
   */
  tls?: { cert: string | Buffer; key: string | Buffer };
  /**
   * Called when a client breaks the AMQP framing rules (for example a flow frame for a session that
   * already ended); the emulator then closes that client's connection. Default: nothing is printed
   * (rhea's own handler would print the frame to the console).
   */
  onProtocolError?: (message: string) => void;
  /** Called when Capture cannot write a file (storage unreachable). Default: nothing is printed. */
  onCaptureError?: (message: string) => void;
}

export interface EmulatorEventInput {
  body: Buffer | string;
  /** Application properties. */
  properties?: Record<string, unknown>;
  partitionKey?: string;
}

/** AMQP error conditions the fault API is typically used with (any condition string is accepted). */
export type FaultCondition =
  | 'com.microsoft:server-busy'
  | 'amqp:link:detach-forced'
  | 'amqp:link:stolen'
  | 'com.microsoft:timeout'
  | 'amqp:connection:forced'
  | 'amqp:internal-error'
  | 'amqp:not-found'
  | 'amqp:unauthorized-access'
  | 'amqp:resource-limit-exceeded'
  | (string & {});

export interface EmulatorFaults {
  /**
   * Drops client connections: all of them, or those whose AMQP container id is `containerId`. Without
   * `condition` the socket is destroyed (an abrupt network failure); with it, the connection is closed
   * with that AMQP error. Returns how many were dropped.
   */
  dropConnections(options?: { containerId?: string; condition?: FaultCondition; description?: string }): number;
  /** Detaches the matching receivers with this error condition. Returns how many were detached. */
  detachReceivers(options: {
    hub: string;
    partitionId: string;
    consumerGroup?: string;
    condition: FaultCondition;
    description?: string;
  }): number;
  /** Delays each delivered event by `delayMs` (0 removes the delay), for one partition or all. */
  slowDelivery(delayMs: number, target?: { hub: string; partitionId: string }): void;
  /** Stops delivering a partition's events (links stay attached, credit accumulates). */
  pausePartition(hub: string, partitionId: string): void;
  resumePartition(hub: string, partitionId: string): void;
  /** Makes the next `count` requests of this kind fail with `condition` (status code derived from it). */
  failNextRequests(kind: 'management' | 'cbs', count: number, condition: FaultCondition, description?: string): void;
  /** Removes every delay, pause and pending request failure. */
  reset(): void;
}

export interface ReceiverLinkRecord {
  hub: string;
  consumerGroup: string;
  partitionId: string;
  /** Owner level, when the receiver set one. */
  epoch?: number;
  linkName: string;
  /** The client's AMQP container id. */
  connectionId: string;
  /** When the attach was accepted, in ms since the epoch (sub-millisecond precision). */
  attachedAt: number;
  detachedAt?: number;
  /** The error condition the link was detached with, if any. */
  detachCondition?: string;
}

export interface ReceiverAudit {
  /** Every accepted receiver link, in attach order. */
  readonly records: readonly ReceiverLinkRecord[];
  /** Pairs of records of one hub/consumer group/partition whose [attachedAt, detachedAt) intervals overlap. */
  overlaps(): Array<[ReceiverLinkRecord, ReceiverLinkRecord]>;
  clear(): void;
}

/** One `put-token` request the emulator answered on `$cbs`. */
export interface PutTokenRecord {
  /** The audience the claim was put for (the request's `name`). */
  audience: string;
  /** The client's AMQP container id. */
  connectionId: string;
  /** When the request was answered, ms since the epoch. */
  at: number;
  /** 202 when the claim was granted, else the refusal's status code (401 for an expired or invalid token). */
  statusCode: number;
  /** When the granted claim expires, ms since the epoch; absent for a refusal or a token without expiry. */
  expiresAt?: number;
}

/** A link the emulator detached because the claim that covered it expired and no new token came. */
export interface ExpiredLinkRecord {
  linkName: string;
  /** `consumer` for a partition receiver, `producer` for a sender. */
  role: 'consumer' | 'producer';
  /** The entity path, e.g. `hub/ConsumerGroups/$Default/Partitions/0`. */
  entityPath: string;
  connectionId: string;
  /** When the link was detached, ms since the epoch. */
  at: number;
}

export interface ClaimAudit {
  /** Every `put-token` answered, in order. */
  readonly puts: readonly PutTokenRecord[];
  /** Every link detached for an expired claim (`amqp:link:detach-forced`, `Code: RenewToken`). */
  readonly expiredLinks: readonly ExpiredLinkRecord[];
  /** The puts for one audience. */
  putsFor(audience: string): PutTokenRecord[];
  clear(): void;
}

export interface Emulator {
  readonly host: string;
  readonly port: number;
  /** The WebSocket port, when started with `websocketPort`. */
  readonly websocketPort: number | undefined;
  /**
   * Connection string; EntityPath set when `hubName` is given; UseDevelopmentEmulator=true unless TLS.
   * With `websockets: true` the endpoint names the WebSocket port (for clients using AMQP over WebSockets).
   */
  connectionString(hubName?: string, options?: { websockets?: boolean }): string;
  /** Appends events directly to a partition's log, bypassing AMQP. */
  append(hubName: string, partitionId: string, events: EmulatorEventInput[]): void;
  readonly faults: EmulatorFaults;
  readonly audit: ReceiverAudit;
  /** Claims put on `$cbs` and links detached because their claim expired. */
  readonly claims: ClaimAudit;
  addHub(config: EmulatorHubConfig): void;
  /** Removes a hub: its links are detached with amqp:not-found and later requests get not-found errors. */
  removeHub(name: string): void;
  /**
   * Closes the open Capture windows of one hub (or of every hub) now, as if their time was up, and resolves
   * once their files are written. For tests that need a file without waiting out a window.
   */
  flushCapture(hubName?: string): Promise<void>;
  /** Closes every connection and the listener; idempotent. */
  stop(): Promise<void>;
}
