/**
 * rhea decodes every format-0 transfer with its generic `message.decode` before any listener sees it
 * (session.js `Incoming.prototype.on_transfer`); transfers of another format it hands over as bytes.
 * `deliverSessionUndecoded` marks one session's format-0 transfers with `UNDECODED_FORMAT` on their way in,
 * so the bytes reach its links' listeners and the backends decode them in one pass (streaming's
 * message-decoder.ts): the streaming backend on its own links, the polling backend under the SDK
 * (event-hubs-internals.ts). The mark is set on that session object only: rhea's prototypes and module
 * functions stay as they are for every other session in the process. Written for rhea 3.0.5;
 * test/unit/backends/streaming/rhea-promise-internals.test.ts fails when it changes.
 */
import { createRequire } from 'node:module';
import { readTransfersInOnePass, type RheaTransport } from './rhea-transfer-frames.ts';

/** The rhea version this file was written for. */
export const RHEA_VERSION_WRITTEN_FOR = '3.0.5';

/** A message format no Event Hubs delivery carries: marks a format-0 transfer to hand over undecoded. */
export const UNDECODED_FORMAT = 0x00fe_0000;

export interface RheaTransferFrame {
  performative?: {
    message_format?: number;
    handle?: number;
    delivery_id?: number;
    settled?: boolean;
    more?: boolean;
  };
  payload?: Buffer;
}

/** The parts of a rhea receiver link that direct delivery reads and keeps up to date. */
export interface RheaReceiverLink {
  credit: number;
  delivery_count: number;
  _incomplete?: unknown;
  is_remote_open(): boolean;
}

export interface RheaSession {
  on_transfer(frame: RheaTransferFrame): void;
  incoming?: { on_transfer?: unknown; next_transfer_id?: number; next_delivery_id?: number };
  remote?: { handles?: Record<number, unknown> };
  connection?: { _register?: () => void; amqp_transport?: RheaTransport };
}

/**
 * Which receiver links of a session take their pre-settled messages straight (see `deliverSessionUndecoded`):
 * given a rhea receiver link (not rhea-promise's wrapper), the function to call with the bytes of each of its
 * pre-settled, single-frame format-0 messages, in order; undefined for a link that takes rhea's way.
 */
export type DirectDelivery = (link: RheaReceiverLink) => ((bytes: Buffer) => void) | undefined;

const require = createRequire(import.meta.url);
const rheaSessionOnTransfer = (require('rhea/lib/session.js') as { prototype: RheaSession }).prototype.on_transfer;

/** Why `deliverSessionUndecoded` cannot be used with the installed rhea, or undefined when it can. */
export function undecodedDeliveryMismatch(): string | undefined {
  const version = String((require('rhea/package.json') as { version: unknown }).version);
  if (version !== RHEA_VERSION_WRITTEN_FOR) return `rhea ${version} installed, written for ${RHEA_VERSION_WRITTEN_FOR}`;
  const delegates = String(rheaSessionOnTransfer).includes('this.incoming.on_transfer(frame');
  if (typeof rheaSessionOnTransfer !== 'function' || !delegates) {
    return 'rhea Session.prototype.on_transfer no longer hands transfers to incoming.on_transfer';
  }
  return undefined;
}

const undecodedApplicable = undecodedDeliveryMismatch() === undefined;
/** The part of rhea 3.0.5's Incoming.on_transfer that decodes format 0 only. */
const DECODES_FORMAT_ZERO_ONLY = "current.format === 0 ? {'message':message.decode(data)";
/**
 * What rhea 3.0.5's Incoming.on_transfer keeps count of for a transfer, which `deliverDirectly` does in its
 * place: direct delivery is used only while that code still reads so.
 */
const TRANSFER_BOOKKEEPING = [
  'this.next_transfer_id++;',
  'this.next_delivery_id = frame.performative.delivery_id;',
  'this.next_delivery_id === frame.performative.delivery_id',
  'this.next_delivery_id++;',
  'if (receiver.credit > 0) receiver.credit--;',
  'receiver.delivery_count++;',
];
const EMPTY = Buffer.alloc(0);

/**
 * Hands one pre-settled, single-frame format-0 transfer to the function `direct` gives for its link, keeping
 * the counts rhea would keep (the session's next transfer and delivery ids, the link's credit and delivery count)
 * and scheduling rhea's processing of the session (its incoming window and flow), as settling a delivery
 * does. Returns false, changing nothing, for anything else (rhea then handles the transfer, and raises
 * what it raises for a transfer out of sequence or after a detach).
 */
function deliverDirectly(session: RheaSession, frame: RheaTransferFrame, direct: DirectDelivery): boolean {
  const performative = frame.performative!;
  if (performative.settled !== true || performative.more === true) return false;
  const link = session.remote?.handles?.[performative.handle!] as RheaReceiverLink | undefined;
  if (link === undefined || link._incomplete || !link.is_remote_open()) return false;
  const deliver = direct(link);
  if (deliver === undefined) return false;
  const incoming = session.incoming!;
  if (incoming.next_delivery_id !== undefined && incoming.next_delivery_id !== performative.delivery_id) return false;
  incoming.next_transfer_id = incoming.next_transfer_id! + 1;
  incoming.next_delivery_id = performative.delivery_id! + 1;
  if (link.credit > 0) link.credit--;
  link.delivery_count++;
  session.connection!._register!();
  deliver(frame.payload ?? EMPTY);
  return true;
}

/**
 * Makes rhea hand this session's format-0 messages over as bytes: its links' `message` events then carry a
 * Buffer in `message` and `UNDECODED_FORMAT` in `format`. `beforeMarked` sees each format-0 transfer first
 * (with the session as `this`). Returns false, changing nothing, when the installed rhea or the session does
 * not have the expected shape: rhea then decodes as usual.
 *
 * With `direct`, the pre-settled single-frame messages (what Event Hubs sends a receiver) of the links it
 * names skip rhea's delivery handling as well and go straight to their function: rhea builds a delivery object
 * with six closures for each of them, then a context object, which rhea-promise translates into another
 * before its `message` event, and auto-accept builds a disposition state, all for a delivery that is already
 * settled: a third of what the streaming pipeline thread allocated per event. Anything else on the session
 * (a message in several frames, an unsettled one, other links') takes rhea's way. Direct delivery is used
 * only while rhea's transfer handling still keeps the counts `deliverDirectly` keeps in its place.
 */
export function deliverSessionUndecoded<S extends RheaSession>(
  session: S | undefined,
  beforeMarked?: (this: S, frame: RheaTransferFrame) => void,
  direct?: DirectDelivery,
): boolean {
  if (!undecodedApplicable || !session || session.on_transfer !== rheaSessionOnTransfer) return false;
  const incomingOnTransfer = String(session.incoming?.on_transfer);
  if (!incomingOnTransfer.includes(DECODES_FORMAT_ZERO_ONLY)) return false;
  const directly =
    direct !== undefined &&
    typeof session.connection?._register === 'function' &&
    TRANSFER_BOOKKEEPING.every((line) => incomingOnTransfer.includes(line))
      ? direct
      : undefined;
  // The session's connection reads its transfer frames in one pass too (rhea-transfer-frames.ts).
  readTransfersInOnePass(session.connection?.amqp_transport);
  session.on_transfer = function onTransfer(this: S, frame: RheaTransferFrame): void {
    const performative = frame.performative;
    if (performative && performative.message_format === 0) {
      if (directly && deliverDirectly(this, frame, directly)) return;
      beforeMarked?.call(this, frame);
      performative.message_format = UNDECODED_FORMAT;
    }
    rheaSessionOnTransfer.call(this, frame);
  };
  return true;
}
