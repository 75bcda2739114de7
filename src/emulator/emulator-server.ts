/**
 * The emulator: a rhea AMQP 1.0 listener (generic server) routing links to Event Hubs semantics
 * (claims, management, producers, consumers with epochs) over in-memory partition logs.
 */
import { createServer as createTcpServer, type Server, type Socket } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import rhea from 'rhea';
import type { Emulator, EmulatorEventInput, EmulatorHubConfig, EmulatorOptions, ReceiverLinkRecord } from './types.ts';
import { parseAddress } from './internal/addresses.ts';
import {
  ARGUMENT_ERROR,
  ARGUMENT_OUT_OF_RANGE,
  LINK_DETACH_FORCED,
  LINK_STOLEN,
  NOT_FOUND,
  UNAUTHORIZED,
  claimExpired,
  entityNotFound,
  stolenByEpoch,
} from './internal/conditions.ts';
import { ClaimAuditLog } from './internal/claim-audit.ts';
import { ConnectionRegistry, abortConnection, type ConnectionState } from './internal/connection-registry.ts';
import { ConsumerLink } from './internal/consumer-link.ts';
import { FaultController, type FaultHost } from './internal/fault-controller.ts';
import { Namespace, type Hub } from './internal/namespace.ts';
import { tierQuotas } from './tier-quotas.ts';
import { partitionIndexForKey } from './internal/partition-key-hash.ts';
import { PartitionReaders } from './internal/partition-readers.ts';
import { MAX_MESSAGE_SIZE_BYTES, readTransfer } from './internal/producer-transfer.ts';
import { IDEMPOTENT_PRODUCER_CAPABILITY, IdempotentProducers } from './internal/idempotent-producers.ts';
import type { PartitionLog } from './internal/partition-log.ts';
import { ReceiverAuditLog, preciseNowMs } from './internal/receiver-audit.ts';
import { usePresizedFrames } from './internal/rhea-server-output.ts';
import { handleManagement, handlePutToken } from './internal/request-handlers.ts';
import { keepRawTransfers } from './internal/raw-transfers.ts';
import { tolerateLateFrames } from './internal/late-frames.ts';
import { plainTerminus } from './internal/plain-terminus.ts';
import { offerServiceMechanisms } from './internal/sasl-mechanisms.ts';
import { serveLikeTheService } from './internal/service-frames.ts';
import { NUMERIC_OFFSETS, OPAQUE_OFFSETS } from './internal/offset-format.ts';
import {
  parseStartFilter,
  pastEndRefusal,
  resolveStartSequenceNumber,
  selectorExpression,
} from './internal/start-position.ts';
import { WebSocketListener } from './internal/websocket-listener.ts';
import { CaptureWriter } from './internal/capture-writer.ts';

export { MAX_MESSAGE_SIZE_BYTES };
export const DEFAULT_PORT = 5672;
export const DEFAULT_HOST = '127.0.0.1';
export const DEFAULT_RETENTION_MS = 3_600_000;
/** The official emulator's well-known key name and key (not secret: they are in Microsoft's docs). */
export const DEFAULT_KEY_NAME = 'RootManageSharedAccessKey';
export const DEFAULT_KEY = 'SAS_KEY_VALUE';
/** Idle timeout announced to clients; they send heartbeats at half of it. */
const IDLE_TIMEOUT_MS = 120_000;
/**
 * The service's Open: frames of at most 64 KiB and channels 0-4999 (seen in the Open frames the service
 * sends to the Python and Go SDKs, whose network traces print them). Clients split larger transfers.
 */
const MAX_FRAME_SIZE_BYTES = 65_536;
const CHANNEL_MAX = 4_999;
/** How long stop() waits for clients to end their connections after the AMQP close. */
const STOP_GRACE_MS = 500;
const EPOCH_PROPERTY = 'com.microsoft:epoch';
const RUNTIME_METRIC_CAPABILITY = 'com.microsoft:enable-receiver-runtime-metric';

const { message: amqpMessage } = rhea as any;

export class EmulatorServer implements Emulator, FaultHost {
  readonly audit = new ReceiverAuditLog();
  readonly claims = new ClaimAuditLog();
  readonly faults: FaultController;
  private readonly namespace: Namespace;
  private readonly readers = new PartitionReaders();
  private readonly idempotentProducers = new IdempotentProducers();
  private readonly connections = new ConnectionRegistry((link) => this.readers.remove(link));
  private readonly retentionMs: number;
  private readonly container: any;
  private server: Server | undefined;
  /** Every accepted socket, including those whose AMQP connection never opened or was already dropped. */
  private readonly sockets = new Set<Socket>();
  private retentionTimer: NodeJS.Timeout | undefined;
  private stopping: Promise<void> | undefined;
  private boundPort = 0;
  private websocket: WebSocketListener | undefined;
  /** Capture writers by lower-cased hub name (hubs with `capture`). */
  private readonly captures = new Map<string, CaptureWriter>();

  constructor(private readonly options: EmulatorOptions = {}) {
    this.retentionMs = options.retentionMs ?? DEFAULT_RETENTION_MS;
    if (!Number.isFinite(this.retentionMs) || this.retentionMs <= 0)
      throw new RangeError(`retentionMs must be positive, got ${this.retentionMs}`);
    this.namespace = new Namespace(
      options.consumerGroups ?? [],
      tierQuotas(options.tier, options.capacityUnits),
      options.opaqueOffsets ? OPAQUE_OFFSETS : NUMERIC_OFFSETS,
    );
    for (const hub of options.hubs ?? []) this.addHub(hub);
    this.faults = new FaultController(this);
    this.container = (rhea as any).create_container({
      id: 'eventhubs-emulator',
      // Links the server creates in answer to a client's attach: producers' links get manual
      // settlement (accept or reject each batch); deliveries to consumers go pre-settled.
      receiver_options: { autoaccept: false },
      sender_options: { snd_settle_mode: 1 },
    });
    offerServiceMechanisms(this.container, options.sasKeys);
    this.wire();
  }

  get host(): string {
    return this.options.host ?? DEFAULT_HOST;
  }

  get port(): number {
    return this.boundPort;
  }

  get websocketPort(): number | undefined {
    return this.websocket?.port;
  }

  async start(): Promise<void> {
    const connectionOptions: Record<string, unknown> = {
      idle_time_out: IDLE_TIMEOUT_MS,
      container_id: 'eventhubs-emulator',
      max_frame_size: MAX_FRAME_SIZE_BYTES,
      channel_max: CHANNEL_MAX,
      // rhea leaves Nagle on for accepted sockets; with small credit windows every flow/transfer round
      // trip would then wait for the delayed-ACK timer (~40 ms).
      tcp_no_delay: true,
    };
    // Our own listener rather than rhea's `listen`, so that each connection gets the service's framing
    // before rhea writes its first frame (internal/service-frames.ts).
    const tls = this.options.tls;
    const server: Server = tls ? createTlsServer({ cert: tls.cert, key: tls.key }) : createTcpServer();
    server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => this.accept(socket, connectionOptions));
    this.server = server;
    // Every accepted socket, before TLS completes too, so stop() can cut the ones still handshaking.
    server.on('connection', (socket: Socket) => {
      this.sockets.add(socket);
      socket.once('close', () => this.sockets.delete(socket));
    });
    // A client that resets the connection during the TLS handshake must not crash the server.
    server.on('tlsClientError', () => undefined);
    await new Promise<void>((resolve, reject) => {
      server.once('listening', resolve);
      server.once('error', reject);
      server.listen({ host: this.host, port: this.options.port ?? DEFAULT_PORT });
    });
    const address = server.address();
    this.boundPort = typeof address === 'object' && address ? address.port : 0;
    if (this.options.websocketPort !== undefined)
      await this.startWebSocket(connectionOptions, this.options.websocketPort);
    const sweepMs = Math.min(1_000, Math.max(50, Math.floor(this.retentionMs / 4)));
    this.retentionTimer = setInterval(() => this.expire(), sweepMs);
    this.retentionTimer.unref();
  }

  /** One client connection (a TCP or TLS socket, or a WebSocket stream) of the AMQP container. */
  private accept(socket: any, connectionOptions: Record<string, unknown>): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    const connection = this.container.create_connection(connectionOptions);
    connection.accept(socket);
    // Only this server's connections get the workarounds: clients in the same process keep stock rhea.
    usePresizedFrames(connection);
    serveLikeTheService(connection, { maxMessageSizeBytes: MAX_MESSAGE_SIZE_BYTES });
    tolerateLateFrames(connection);
  }

  /** The same AMQP server over WebSockets: each upgraded socket is one AMQP connection of the container. */
  private async startWebSocket(connectionOptions: Record<string, unknown>, port: number): Promise<void> {
    this.websocket = new WebSocketListener({
      host: this.host,
      port,
      ...(this.options.tls ? { tls: this.options.tls } : {}),
      onStream: (stream) => this.accept(stream, connectionOptions),
    });
    try {
      await this.websocket.start();
    } catch (error) {
      // A start that fails half-way cleans up what it started (the AMQP listener).
      this.server?.close();
      throw error;
    }
  }

  connectionString(hubName?: string, options: { websockets?: boolean } = {}): string {
    const keys = this.options.sasKeys;
    const [keyName, key] =
      keys && Object.keys(keys).length > 0 ? Object.entries(keys)[0]! : [DEFAULT_KEY_NAME, DEFAULT_KEY];
    const host = this.host === '0.0.0.0' || this.host === '::' ? '127.0.0.1' : this.host;
    const port = options.websockets ? this.websocketPort : this.port;
    if (port === undefined) throw new Error('the emulator serves no WebSockets; start it with websocketPort');
    const hostPort = host.includes(':') ? `[${host}]:${port}` : `${host}:${port}`;
    let cs = `Endpoint=sb://${hostPort};SharedAccessKeyName=${keyName};SharedAccessKey=${key}`;
    if (!this.options.tls) cs += ';UseDevelopmentEmulator=true';
    if (hubName !== undefined) cs += `;EntityPath=${hubName}`;
    return cs;
  }

  append(hubName: string, partitionId: string, events: EmulatorEventInput[]): void {
    const log = this.requireLog(hubName, partitionId);
    // Consecutive events with the same key are appended together; the input order is kept.
    let run: Buffer[] = [];
    let runKey: string | undefined;
    for (const e of events) {
      if (run.length > 0 && e.partitionKey !== runKey) {
        log.append(run, runKey);
        run = [];
      }
      runKey = e.partitionKey;
      const msg: Record<string, unknown> = {
        body: amqpMessage.data_section(typeof e.body === 'string' ? Buffer.from(e.body, 'utf8') : e.body),
      };
      if (e.properties) msg.application_properties = e.properties;
      if (e.partitionKey !== undefined) msg.message_annotations = { 'x-opt-partition-key': e.partitionKey };
      run.push(amqpMessage.encode(msg));
    }
    if (run.length > 0) log.append(run, runKey);
  }

  addHub(config: EmulatorHubConfig): void {
    const hub = this.namespace.add(config);
    if (config.capture) {
      const writer = new CaptureWriter(hub.name, hub.logs, config.capture, this.options.onCaptureError);
      this.captures.set(hub.name.toLowerCase(), writer);
    }
  }

  async flushCapture(hubName?: string): Promise<void> {
    const writers = hubName === undefined ? [...this.captures.values()] : [this.captures.get(hubName.toLowerCase())];
    await Promise.all(writers.map((w) => w?.flush()));
  }

  removeHub(name: string): void {
    const hub = this.namespace.remove(name);
    if (!hub) return;
    void this.captures.get(hub.name.toLowerCase())?.stop();
    this.captures.delete(hub.name.toLowerCase());
    const description = entityNotFound(`${this.endpoint()}${hub.name}`);
    this.connections.detachReceivers({ hub: hub.name }, NOT_FOUND, description);
    this.connections.closeProducers(hub.name, NOT_FOUND, description);
  }

  stop(): Promise<void> {
    this.stopping ??= (async () => {
      if (this.retentionTimer) clearInterval(this.retentionTimer);
      const captures = Promise.all([...this.captures.values()].map((w) => w.stop()));
      const server = this.server;
      const closed = server ? new Promise<void>((resolve) => server.close(() => resolve())) : Promise.resolve();
      // Close politely first (clients see a clean AMQP close and stop reconnecting), then make sure.
      const connections = this.connections.closeAll();
      await Promise.race([closed, new Promise((r) => setTimeout(r, STOP_GRACE_MS).unref())]);
      for (const connection of connections) abortConnection(connection);
      // server.close() waits for every accepted socket: also cut those of clients that are still
      // reconnecting (accepted, AMQP open not yet seen) or whose connection was dropped by a fault.
      for (const socket of this.sockets) socket.destroy();
      await Promise.all([closed, this.websocket?.stop(), captures]);
    })();
    return this.stopping;
  }

  // ---- FaultHost ----

  dropConnections(options: { containerId?: string; condition?: string; description?: string } = {}): number {
    return this.connections.drop(options);
  }

  detachReceivers(options: {
    hub: string;
    partitionId: string;
    consumerGroup?: string;
    condition: string;
    description?: string;
  }): number {
    const { condition, description, ...filter } = options;
    return this.connections.detachReceivers(filter, condition, description ?? `Injected fault: ${condition}`);
  }

  pumpPartition(hub: string, partitionId: string): void {
    this.connections.wakeReceivers({ hub, partitionId });
  }

  pumpAll(): void {
    this.connections.wakeReceivers();
  }

  // ---- internals ----

  private endpoint(): string {
    return `sb://${this.host}:${this.port}/`;
  }

  private requireLog(hubName: string, partitionId: string): PartitionLog {
    const hub = this.namespace.get(hubName);
    if (!hub) throw new Error(`hub '${hubName}' does not exist`);
    const log = hub.log(String(partitionId));
    if (!log) throw new Error(`hub '${hubName}' has no partition '${partitionId}'`);
    return log;
  }

  private expire(): void {
    for (const hub of this.namespace.all()) for (const log of hub.logs) log.expire(this.retentionMs);
    this.expireClaims();
  }

  /** Detaches the links whose claim expired with no new token, as the service does (conditions.ts claimExpired). */
  private expireClaims(): void {
    const detached = this.connections.detachExpiredClaims(Date.now(), ({ link, entityPath, role }) => ({
      condition: LINK_DETACH_FORCED,
      description: claimExpired(
        String(link.name),
        role === 'consumer' ? 'Listen' : 'Send',
        `${this.endpoint()}${entityPath.toLowerCase()}`,
      ),
    }));
    for (const { state, link, entityPath, role } of detached) {
      this.claims.expiredLinks.push({
        linkName: String(link.name),
        role,
        entityPath,
        connectionId: state.containerId,
        at: Date.now(),
      });
    }
  }

  private refuse(link: any, condition: string, description: string): void {
    link.close({ condition, description });
  }

  private wire(): void {
    const c = this.container;
    c.on('connection_open', (ctx: any) => {
      if (this.stopping) return ctx.connection.close();
      const state = this.connections.ensure(ctx.connection);
      state.containerId = String(ctx.connection.remote?.open?.container_id ?? '');
    });
    const onConnectionGone = (ctx: any) => this.connections.forget(ctx.connection);
    c.on('connection_close', onConnectionGone);
    c.on('disconnected', onConnectionGone);
    c.on('connection_error', () => undefined);
    // A client frame that breaks the protocol: rhea closes that connection either way; without a listener
    // it also prints the frame with console.error, noise in every program that embeds the emulator.
    c.on('protocol_error', (ctx: any) => this.options.onProtocolError?.(String(ctx.error ?? ctx)));
    c.on('session_error', () => undefined);
    c.on('sender_error', () => undefined);
    c.on('receiver_error', () => undefined);
    // rhea raises 'error' on the container for unhandled link/connection errors; never crash on them.
    c.on('error', () => undefined);
    c.on('sender_open', (ctx: any) => this.onClientReceiverAttach(ctx));
    c.on('receiver_open', (ctx: any) => this.onClientSenderAttach(ctx));
    c.on('sendable', (ctx: any) => this.consumerOf(ctx)?.pump());
    c.on('sender_draining', (ctx: any) => this.consumerOf(ctx)?.pump());
    c.on('sender_close', (ctx: any) => {
      const link = this.consumerOf(ctx);
      if (link) this.connections.consumerClosed(ctx.connection, link, ctx.sender?.remote?.detach?.error?.condition);
    });
    c.on('receiver_close', (ctx: any) => {
      const state = this.connections.get(ctx.connection);
      if (!state) return;
      for (const p of state.producers) if (p.receiver === ctx.receiver) state.producers.delete(p);
    });
    c.on('message', (ctx: any) => this.onMessage(ctx));
  }

  private consumerOf(ctx: any): ConsumerLink | undefined {
    return ctx.sender?.__consumer as ConsumerLink | undefined;
  }

  /** A client receiver attached: a reply link for $cbs / $management, or a partition consumer. */
  private onClientReceiverAttach(ctx: any): void {
    const sender = ctx.sender;
    const state = this.connections.ensure(ctx.connection);
    const remote = sender.remote.attach ?? {};
    const address = parseAddress(remote.source?.address);
    if (address.kind === 'cbs' || address.kind === 'management') {
      sender.set_source({ address: remote.source.address });
      sender.set_target(plainTerminus(remote.target));
      state.addReplyLink(sender, address.kind);
      if (remote.target?.address) state.replyLinks.set(String(remote.target.address), sender);
      return;
    }
    if (address.kind !== 'consumer')
      return this.refuse(sender, NOT_FOUND, entityNotFound(String(remote.source?.address ?? '')));
    const { hub: hubName, consumerGroup, partitionId } = address;
    if (
      this.options.sasKeys &&
      !state.isAuthorized(`${hubName}/ConsumerGroups/${consumerGroup}/Partitions/${partitionId}`)
    ) {
      return this.refuse(
        sender,
        UNAUTHORIZED,
        `Unauthorized access. No valid claim was put for '${hubName}/ConsumerGroups/${consumerGroup}/Partitions/` +
          `${partitionId}'.`,
      );
    }
    const hub = this.namespace.get(hubName);
    if (!hub) return this.refuse(sender, NOT_FOUND, entityNotFound(`${this.endpoint()}${hubName}`));
    if (!hub.hasConsumerGroup(consumerGroup)) {
      return this.refuse(
        sender,
        NOT_FOUND,
        entityNotFound(`${this.endpoint()}${hubName}/ConsumerGroups/${consumerGroup}`),
      );
    }
    const log = hub.log(partitionId);
    if (!log) return this.refuse(sender, ARGUMENT_OUT_OF_RANGE, partitionOutOfRange(hub));
    let start;
    try {
      start = parseStartFilter(selectorExpression(remote.source?.filter));
    } catch (err) {
      return this.refuse(sender, ARGUMENT_ERROR, (err as Error).message);
    }
    // Like the service: a position beyond the last event is refused, not waited at.
    const pastEnd = pastEndRefusal(start, log);
    if (pastEnd) return this.refuse(sender, ARGUMENT_ERROR, pastEnd);
    const rawEpoch = remote.properties?.[EPOCH_PROPERTY];
    const epoch = rawEpoch === undefined || rawEpoch === null ? undefined : Number(rawEpoch);
    // Detach the readers this one takes over from first, then complete the attach, so the audit never
    // shows two readers of one partition at once.
    const admission = this.readers.admit(hub.name, consumerGroup, partitionId, epoch);
    if (!admission.ok) return this.refuse(sender, admission.condition, admission.description);
    for (const old of admission.stolen) {
      this.connections.unlinkConsumer(old);
      old.detach(LINK_STOLEN, stolenByEpoch(epoch, old.epoch));
    }
    sender.set_source(plainTerminus(remote.source));
    sender.set_target(plainTerminus(remote.target));
    const capabilities: unknown[] = Array.isArray(remote.desired_capabilities)
      ? remote.desired_capabilities
      : remote.desired_capabilities
        ? [remote.desired_capabilities]
        : [];
    const runtimeMetrics = capabilities.map(String).includes(RUNTIME_METRIC_CAPABILITY);
    if (runtimeMetrics) sender.local.attach.offered_capabilities = [RUNTIME_METRIC_CAPABILITY];
    const record: ReceiverLinkRecord = this.audit.add({
      hub: hub.name,
      consumerGroup: hub.consumerGroups.get(consumerGroup.toLowerCase()) ?? consumerGroup,
      partitionId,
      ...(epoch !== undefined ? { epoch } : {}),
      linkName: String(sender.name),
      connectionId: state.containerId,
      attachedAt: preciseNowMs(),
    });
    const link = new ConsumerLink(
      sender,
      log,
      consumerGroup,
      epoch,
      runtimeMetrics,
      resolveStartSequenceNumber(start, log),
      record,
      this.faults,
    );
    sender.__consumer = link;
    state.attachedUnderClaim(sender, `${hubName}/ConsumerGroups/${consumerGroup}/Partitions/${partitionId}`);
    this.readers.add(link);
    state.consumers.add(link);
  }

  /** A client sender attached: a request link to $cbs / $management, or a producer. */
  private onClientSenderAttach(ctx: any): void {
    const receiver = ctx.receiver;
    const state = this.connections.ensure(ctx.connection);
    const remote = receiver.remote.attach ?? {};
    const address = parseAddress(remote.target?.address);
    if (address.kind === 'cbs' || address.kind === 'management') {
      receiver.set_target({ address: remote.target.address });
      receiver.set_source(plainTerminus(remote.source));
      return;
    }
    if (address.kind !== 'producer')
      return this.refuse(receiver, NOT_FOUND, entityNotFound(String(remote.target?.address ?? '')));
    const entityPath =
      address.partitionId === undefined ? address.hub : `${address.hub}/Partitions/${address.partitionId}`;
    if (this.options.sasKeys && !state.isAuthorized(entityPath)) {
      return this.refuse(receiver, UNAUTHORIZED, `Unauthorized access. No valid claim was put for '${entityPath}'.`);
    }
    const hub = this.namespace.get(address.hub);
    if (!hub) return this.refuse(receiver, NOT_FOUND, entityNotFound(`${this.endpoint()}${address.hub}`));
    if (address.partitionId !== undefined && !hub.log(address.partitionId))
      return this.refuse(receiver, ARGUMENT_OUT_OF_RANGE, partitionOutOfRange(hub));
    if (address.partitionId !== undefined && IdempotentProducers.requested(remote.desired_capabilities)) {
      const idempotent = this.idempotentProducers.attach(hub.name, address.partitionId, remote.properties);
      if (!idempotent.ok) return this.refuse(receiver, idempotent.error.condition, idempotent.error.description);
      receiver.local.attach.properties = idempotent.properties;
      receiver.local.attach.offered_capabilities = [IDEMPOTENT_PRODUCER_CAPABILITY];
    }
    receiver.set_target({ address: remote.target.address });
    receiver.set_source(plainTerminus(remote.source));
    keepRawTransfers(receiver.session);
    // The SDK sizes its batches from this value (eventHubSender.ts getMaxMessageSize).
    receiver.local.attach.max_message_size = MAX_MESSAGE_SIZE_BYTES;
    state.producers.add({
      receiver,
      hub: hub.name,
      ...(address.partitionId !== undefined ? { partitionId: address.partitionId } : {}),
    });
    state.attachedUnderClaim(receiver, entityPath);
  }

  private onMessage(ctx: any): void {
    const receiver = ctx.receiver;
    const delivery = ctx.delivery;
    const state = this.connections.ensure(ctx.connection);
    const address = parseAddress(receiver.remote.attach?.target?.address);
    if (address.kind === 'cbs' || address.kind === 'management') {
      delivery.accept();
      const request = ctx.message;
      const reply =
        address.kind === 'cbs'
          ? this.onPutToken(state, request)
          : handleManagement(request, this.namespace, this.endpoint(), this.faults.takeRequestFailure('management'));
      // The reply goes to the link named by reply_to; without one, to the requester's receiver on the same
      // node (the Python SDK sends put-token and management requests without reply_to and reads the reply
      // on its `$cbs` / `$management` receiver). Correlated by the request's message id.
      const replyTo = request?.reply_to;
      const link =
        replyTo === undefined || replyTo === null
          ? state.replyLinkOnNode(address.kind, receiver.session)
          : state.replyLinks.get(String(replyTo));
      // The service settles a request before it answers. rhea writes a session's pending transfers before
      // its pending dispositions, so the reply waits one turn of the event loop; azure-uamqp-c fails an
      // operation whose reply arrives before the request's disposition.
      const message = {
        ...reply,
        correlation_id: request.message_id,
        ...(replyTo === undefined || replyTo === null ? {} : { to: replyTo }),
      };
      setImmediate(() => {
        if (link && link.is_open()) link.send(message);
      });
      return;
    }
    if (address.kind !== 'producer') return delivery.reject({ condition: NOT_FOUND, description: 'Unknown link.' });
    this.onProducerTransfer(address.hub, address.partitionId, ctx);
  }

  private onPutToken(state: ConnectionState, request: any) {
    const { reply, granted } = handlePutToken(request, this.options.sasKeys, this.faults.takeRequestFailure('cbs'));
    if (granted) state.grant(granted);
    const audience = String(request.application_properties?.name ?? '');
    // The status code is wrapped as an AMQP int (request-handlers.ts status()).
    const statusCode = Number((reply.application_properties['status-code'] as { value?: unknown } | undefined)?.value);
    this.claims.puts.push({
      audience,
      connectionId: state.containerId,
      at: Date.now(),
      statusCode,
      ...(granted && Number.isFinite(granted.expiresAtMs) ? { expiresAt: granted.expiresAtMs } : {}),
    });
    return reply;
  }

  private onProducerTransfer(hubName: string, partitionId: string | undefined, ctx: any): void {
    const delivery = ctx.delivery;
    const hub = this.namespace.get(hubName);
    if (!hub)
      return delivery.reject({ condition: NOT_FOUND, description: entityNotFound(`${this.endpoint()}${hubName}`) });
    const contents = readTransfer(ctx);
    if (!contents.ok) return delivery.reject(contents.error);
    const { events, partitionKey } = contents;
    let log: PartitionLog | undefined;
    if (partitionId !== undefined) log = hub.log(partitionId);
    else if (partitionKey !== undefined) log = hub.logs[partitionIndexForKey(partitionKey, hub.logs.length)];
    else log = hub.nextRoundRobin();
    if (!log) return delivery.reject({ condition: ARGUMENT_OUT_OF_RANGE, description: partitionOutOfRange(hub) });
    const { producerAnnotations } = contents;
    const admission = this.idempotentProducers.admit(hub.name, log.partitionId, producerAnnotations, events.length);
    if (!admission.ok) return delivery.reject(admission.error);
    if (!admission.duplicate) {
      log.append(events, partitionKey);
      admission.commit();
    }
    const delayMs = this.options.ackDelayMs ?? 0;
    if (delayMs <= 0) return delivery.accept();
    // Stored now, acknowledged later: a disconnect in between loses the acknowledgement, as on Azure.
    setTimeout(() => {
      if (delivery.link?.is_open?.() && delivery.link.connection?.is_open?.()) delivery.accept();
    }, delayMs).unref();
  }
}

function partitionOutOfRange(hub: Hub): string {
  return (
    `The specified partition is invalid for an EventHub partition sender or receiver. It should be between 0 ` +
    `and ${hub.partitionIds.length - 1}.`
  );
}
