/**
 * Every place the polling backend relies on `@azure/event-hubs` beyond its public API, in one file.
 * Written for @azure/event-hubs 6.0.4 (package.json pins it); test/unit/backends/polling/event-hubs-internals
 * .test.ts fails when the installed version or the private shape changes, so an upgrade starts here.
 */
import type { TokenCredential } from '@azure/core-auth';
import type { EventHubConsumerClient, Subscription } from '@azure/event-hubs';
import { Receiver } from 'rhea-promise';
import { decodeMessage } from '../../streaming/message-decoder.ts';
import { DATA_SECTION_TYPECODE, ownBodyBytes } from '../../internal/body-bytes.ts';
import {
  deliverSessionUndecoded,
  UNDECODED_FORMAT,
  undecodedDeliveryMismatch,
  type RheaReceiverLink,
  type RheaSession,
  type RheaTransferFrame,
} from '../../internal/rhea-undecoded.ts';
import { settleOnDisconnect, type DisconnectEmitter } from '../../internal/disconnect-waiters.ts';

/** The version of @azure/event-hubs this file was written for. */
export const EVENT_HUBS_VERSION_WRITTEN_FOR = '6.0.4';

/**
 * The id of the SDK's current AMQP connection, or undefined if this SDK version does not expose it.
 * Not public API: `EventHubConsumerClient._context.connectionId` (a ConnectionContext). The client
 * watches it to learn that the SDK replaced its connection (polling-hub-client.ts); without it the
 * partition pump's stall watchdog still reopens a stuck reader.
 */
export function sdkConnectionId(client: EventHubConsumerClient): string | undefined {
  const id = (client as unknown as { _context?: { connectionId?: unknown } })._context?.connectionId;
  return typeof id === 'string' ? id : undefined;
}

/** What settledByDisconnect needs of the SDK's connection (a rhea-promise Connection). */
interface SdkConnection extends DisconnectEmitter {
  isOpen(): boolean;
}

/** The SDK's current AMQP connection, when reachable. */
function sdkConnection(client: EventHubConsumerClient): SdkConnection | undefined {
  const connection = (
    client as unknown as { _context?: { connection?: Partial<Record<keyof SdkConnection, unknown>> } }
  )._context?.connection;
  const ok = ['on', 'isOpen'].every((m) => typeof connection?.[m as keyof SdkConnection] === 'function');
  return ok ? (connection as unknown as SdkConnection) : undefined;
}

/**
 * `closing` (a subscription's or the client's close), settled also when the SDK's connection is
 * disconnected meanwhile. Under the SDK, rhea-promise 3.0.3's close() methods stop listening on
 * 'disconnected' without resolving or rejecting, so a peer (or a proxy in between) that vanishes during
 * a close leaves it pending for ever, with no timer left to end it. Not public API:
 * `EventHubConsumerClient._context.connection`.
 */
export async function settledByDisconnect(client: EventHubConsumerClient, closing: Promise<unknown>): Promise<void> {
  const connection = sdkConnection(client);
  if (connection?.isOpen()) await settleOnDisconnect(connection, closing);
  else await closing.catch(() => undefined);
}

/**
 * Closes a subscription after letting the SDK's pump settle. Closing while its receiveBatch is between
 * `connect()` and `waitForEvents()` (microtasks apart, typically right after the last batch was taken)
 * registers the abort listener on an already aborted signal, and its 60 s wait timer then keeps the
 * process alive (partitionReceiver.ts). One turn of the event loop closes that window.
 */
export async function closeSubscriptionSettled(
  subscription: Subscription | undefined,
  client?: EventHubConsumerClient,
): Promise<void> {
  await new Promise((resolve) => setImmediate(resolve));
  if (!subscription) return;
  const closing = subscription.close();
  await (client ? settledByDisconnect(client, closing) : closing.catch(() => undefined));
}

/**
 * Replaces the credential a client's connection puts claims with. Not public API:
 * `EventHubConsumerClient._context.tokenCredential`, which withAuth.ts reads at every claim and renewal and
 * managementClient.ts for each request's security token. Returns false (and changes nothing) when the
 * field is not there. Used only for the `sasTokenLifetimeMs` test option (sdk-token-timing.ts).
 */
export function replaceSdkCredential(client: EventHubConsumerClient, credential: TokenCredential): boolean {
  const context = (client as unknown as { _context?: { tokenCredential?: unknown } })._context;
  if (!context || typeof (context.tokenCredential as { getToken?: unknown } | undefined)?.getToken !== 'function')
    return false;
  context.tokenCredential = credential;
  return true;
}

let linkAddressRepaired = false;

/**
 * Lets the SDK cancel a request on a link that is not attached yet. When a subscription closes while its
 * link's token is still being negotiated (a receiver shutting down, or a subscription replaced, right
 * after it started), @azure/core-amqp 4.x cancels the pending `$cbs` request by reading its response
 * link's `address`; rhea-promise 3.0.3 reads that from the peer's source, which a link still attaching
 * has not got, so the getter throws from inside the abort listener: an uncaught TypeError that ends the
 * process. Repaired once per process by answering `undefined` there (core-amqp then names the request's
 * address "address" in its log line and rejects the request as cancelled, as it means to). Other links
 * are unaffected: an attached link has a source. Skipped when the getter is not where 3.0.3 has it.
 */
export function repairUnattachedLinkAddress(): void {
  if (linkAddressRepaired) return;
  linkAddressRepaired = true;
  const link = Object.getPrototypeOf(Receiver.prototype) as object;
  const descriptor = Object.getOwnPropertyDescriptor(link, 'address');
  if (!descriptor?.get) return;
  Object.defineProperty(link, 'address', {
    ...descriptor,
    get(this: { source?: { address?: string } }) {
      return this.source?.address;
    },
  });
}

/** Set on a rhea receiver link whose deliveries our decoder has taken over (see decodeSdkDeliveries). */
const DECODES_ITSELF = Symbol('otelcol-azure-eventhub.decodes-itself');

/** On such a link: what its pre-settled messages are handed to straight from the session. */
const DELIVER = Symbol('otelcol-azure-eventhub.deliver');

interface RheaLink {
  dispatch(name: string, context?: { message?: unknown; format?: number; delivery?: unknown }): unknown;
  _context(context: object): object;
  [DECODES_ITSELF]?: true;
  [DELIVER]?: (bytes: Buffer) => void;
}

/**
 * The delivery of a message the service sent settled, as its `message` event carries it when it came straight
 * from the session: what rhea's auto-accept calls on a delivery (`update`, which has nothing to do for a
 * settled one), and nothing the SDK reads. One for all.
 */
const PRE_SETTLED_DELIVERY = Object.freeze({
  settled: true,
  remote_settled: true,
  update(): void {},
  accept(): void {},
  release(): void {},
  reject(): void {},
  modified(): void {},
});
interface SdkSession extends RheaSession {
  _get_link(frame: RheaTransferFrame): RheaLink | undefined;
}
interface RheaConnection {
  create_session(...args: unknown[]): SdkSession;
  [DECODES_ITSELF]?: true;
}

const undecodedApplicable = undecodedDeliveryMismatch() === undefined;

/**
 * Has the SDK's deliveries decoded by the streaming backend's one-pass decoder (message-decoder.ts) instead of
 * rhea's generic one, which builds a typed wrapper per value and unwraps it again: in the polling pipeline's
 * allocation profile rhea's decoding was half of every byte the thread allocated. The SDK gets the same
 * message object rhea would have given it (the decoder falls back to rhea's for anything outside what Event
 * Hubs sends; test/unit/backends/streaming/message-decoder.test.ts compares the two).
 *
 * How: on the SDK's current rhea connection (`_context.connection._connection`, not public API), every session
 * created from now on hands format-0 transfers over undecoded (backends/internal/rhea-undecoded.ts, as the
 * streaming backend's sessions do); the transfer's receiver link decodes them before its listeners
 * (rhea-promise, then the SDK) see the delivery, which then looks as rhea would have made it. Per
 * connection, once; a connection the SDK opens later is hooked at the next subscribe. Returns false, changing
 * nothing, when rhea or the SDK is not shaped as expected (rhea then decodes as before).
 */
export function decodeSdkDeliveries(client: EventHubConsumerClient): boolean {
  const connection = (client as unknown as { _context?: { connection?: { _connection?: unknown } } })._context
    ?.connection?._connection as RheaConnection | undefined;
  if (!undecodedApplicable || typeof connection?.create_session !== 'function') return false;
  if (connection[DECODES_ITSELF]) return true;
  connection[DECODES_ITSELF] = true;
  const createSession = connection.create_session;
  connection.create_session = function (this: RheaConnection, ...args: unknown[]): SdkSession {
    const session = createSession.apply(this, args);
    deliverSessionUndecoded(session, wrapLinkOf, deliverStraight);
    return session;
  };
  return true;
}

/**
 * A receiver link's pre-settled messages come straight from the session (rhea-undecoded.ts), without the
 * delivery object, its six closures and the context rhea builds for each: they are dispatched as rhea would
 * dispatch them, undecoded, and the link decodes them (below) before rhea-promise and the SDK see them.
 */
function deliverStraight(link: RheaReceiverLink): (bytes: Buffer) => void {
  const l = link as unknown as RheaLink;
  if (!l[DECODES_ITSELF]) decodeDeliveriesOf(l);
  l[DELIVER] ??= (bytes: Buffer) => {
    l.dispatch('message', l._context({ message: bytes, format: UNDECODED_FORMAT, delivery: PRE_SETTLED_DELIVERY }));
  };
  return l[DELIVER];
}

/** The transfer's receiver link decodes what the session hands over undecoded (once per link). */
function wrapLinkOf(this: SdkSession, frame: RheaTransferFrame): void {
  const link = this._get_link(frame);
  if (link && !link[DECODES_ITSELF]) decodeDeliveriesOf(link);
}

function decodeDeliveriesOf(link: RheaLink): void {
  link[DECODES_ITSELF] = true;
  const dispatch = link.dispatch;
  link.dispatch = function (this: RheaLink, name: string, context?: { message?: unknown; format?: number }) {
    if (name === 'message' && context?.format === UNDECODED_FORMAT && Buffer.isBuffer(context.message)) {
      const message = decodeMessage(context.message);
      // The SDK queues its events (up to the prefetch) before our reader takes them: a body left a view into
      // the socket read it arrived in would keep that whole read alive meanwhile (see ownBodyBytes).
      const section = message.body as { typecode?: number; content?: unknown } | undefined;
      if (section?.typecode === DATA_SECTION_TYPECODE && section.content instanceof Uint8Array) {
        section.content = ownBodyBytes(section.content);
      }
      context.message = message;
      // A format-0 delivery has no `format` (nothing downstream reads it); not deleted, which would turn the
      // context into a slow dictionary-mode object for everyone who copies or reads it next.
      context.format = undefined;
    }
    return dispatch.call(this, name, context);
  };
}
