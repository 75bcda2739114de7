/**
 * Where the streaming backend depends on how `rhea-promise` (and the `rhea` under it) behaves beyond
 * their documented API, in one file. Written for rhea-promise 3.0.3 with rhea 3.0.5 (package.json pins
 * both); test/unit/backends/streaming/rhea-promise-internals.test.ts fails when either changes.
 *
 * `Connection.createReceiver()` resolves on the peer's attach. A peer that refuses the link (Event Hubs:
 * unknown hub or consumer group, a start position it rejects, a missing claim) still answers the attach,
 * with a null source, and then detaches with the error (AMQP 1.0, 2.6.3). That detach often arrives in the
 * same read as the attach, so rhea has emitted the link's close before the caller's `await` resumes and
 * the caller, not yet knowing its link, cannot tell it from a later close: the reader would wait for
 * events on a dead link for ever. `createReceiverOrRefusal` looks at the attach instead.
 *
 * `deliverUndecoded` has rhea hand one receiver's format-0 transfers over as bytes, on that receiver's own
 * session (backends/internal/rhea-undecoded.ts, shared with the polling backend), so the backend decodes
 * them itself (message-decoder.ts); the pre-settled ones skip rhea's and rhea-promise's delivery handling.
 */
import type { Connection, Receiver, ReceiverOptions } from 'rhea-promise';
import { ReceiverEvents } from 'rhea-promise';
import { settleOnDisconnect, type DisconnectEmitter } from '../../internal/disconnect-waiters.ts';
import {
  deliverSessionUndecoded,
  RHEA_VERSION_WRITTEN_FOR,
  UNDECODED_FORMAT,
  undecodedDeliveryMismatch,
  type RheaReceiverLink,
  type RheaSession,
} from '../../internal/rhea-undecoded.ts';

/** The versions this file was written for (rhea's: backends/internal/rhea-undecoded.ts). */
export const RHEA_PROMISE_VERSION_WRITTEN_FOR = '3.0.3';

export { RHEA_VERSION_WRITTEN_FOR, UNDECODED_FORMAT, undecodedDeliveryMismatch };

/**
 * Makes rhea hand this receiver's format-0 messages over as bytes (backends/internal/rhea-undecoded.ts): its
 * `message` events then carry a Buffer in `message` and `UNDECODED_FORMAT` in `format`. With `deliver`, the
 * pre-settled single-frame ones (all that Event Hubs sends a receiver) go straight to it instead, without a
 * `message` event. Call it before granting the link credit (no transfer can arrive before). Returns false,
 * changing nothing, when the installed rhea or the link's session does not have the expected shape: rhea then
 * decodes as usual.
 */
export function deliverUndecoded(link: Receiver, deliver?: (bytes: Buffer) => void): boolean {
  const session = (link.session as unknown as { _session?: RheaSession } | undefined)?._session;
  const rheaLink = (link as unknown as { _link?: RheaReceiverLink })._link;
  const direct =
    deliver && rheaLink ? (link: RheaReceiverLink) => (link === rheaLink ? deliver : undefined) : undefined;
  return deliverSessionUndecoded(session, undefined, direct);
}

/** How long to wait for the detach that follows a refusing attach. 5000 ms. */
export const REFUSAL_DETACH_WAIT_MS = 5_000;

/** A link the peer ended during its attach without saying why: retryable, as a forced detach is. */
function refusedWithoutError(): Error {
  return Object.assign(new Error('the service refused the receiver link without an error'), {
    code: 'DetachForcedError',
    retryable: true,
  });
}

export interface CreatedReceiver {
  readonly link: Receiver;
  /** Set when the peer refused the link: the detach's error (an AMQP error or an Error). */
  readonly refusal?: unknown;
}

/**
 * Creates a receiver and tells whether the peer refused it. A refused link is returned too, so the caller
 * can release it (close its session); it never delivers.
 */
export async function createReceiverOrRefusal(
  connection: Connection,
  options: ReceiverOptions & { abortSignal?: AbortSignal },
): Promise<CreatedReceiver> {
  const link = await connection.createReceiver(options);
  if (!link.isRemoteOpen()) return { link, refusal: link.error ?? refusedWithoutError() };
  // `source` reads rhea's `remote.attach.source`: the peer echoes it when it accepts the link.
  if (link.source) return { link };
  const refusal = await new Promise<unknown>((resolve) => {
    const done = (): void => {
      clearTimeout(timer);
      link.removeListener(ReceiverEvents.receiverClose, done);
      link.removeListener(ReceiverEvents.receiverError, done);
      resolve(link.error ?? refusedWithoutError());
    };
    const timer = setTimeout(done, REFUSAL_DETACH_WAIT_MS);
    timer.unref();
    link.once(ReceiverEvents.receiverClose, done);
    link.once(ReceiverEvents.receiverError, done);
  });
  return { link, refusal };
}

/**
 * `closing` (a link's or the connection's `close()`), settled also when the connection is disconnected
 * meanwhile: rhea-promise 3.0.3's close() methods remove their listeners on 'disconnected' but neither
 * resolve nor reject (connection.ts `close`, link.ts `close`: "Connection got disconnected while
 * closing"), so a peer, or a proxy in between, that vanishes during the close leaves the promise pending
 * for ever, with no timer left to end it. Resolves true when the disconnect came first; a rejected close
 * counts as settled (false).
 */
export function settledByDisconnect(connection: Connection, closing: Promise<unknown>): Promise<boolean> {
  return settleOnDisconnect(connection as unknown as DisconnectEmitter, closing);
}
