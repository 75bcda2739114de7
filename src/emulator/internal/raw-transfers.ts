/**
 * The bytes of a producer's plain (message-format 0) transfer, as the client sent them. Written for rhea
 * 3.0.5 (lib/session.js `Incoming.prototype.on_transfer`), applied to the emulator's producer sessions only.
 *
 * rhea hands a format-0 delivery to the 'message' handler decoded, not as bytes, and its decoding is lossy:
 * a boolean in its one-octet form (0x56 0x01, which the Python SDK writes in application properties) comes
 * back as the number 1, so re-encoding stored it as an int. `keepRawTransfers(session)` wraps that session's
 * transfer intake to collect the frames' payloads of each format-0 delivery and exposes the whole message on
 * the receiving link (`rawTransferOf(link)`) while rhea dispatches it; the emulator stores those bytes.
 * Batch envelopes (other formats) already arrive as bytes and are not collected twice.
 */
const RAW = Symbol('raw format-0 transfer');
const CHUNKS = Symbol('format-0 transfer frames so far');

interface TransferFrame {
  payload?: Buffer;
  performative?: { message_format?: number; more?: boolean; aborted?: boolean };
}

type Link = Record<symbol, unknown>;

const wrapped = new WeakSet<object>();

export function keepRawTransfers(session: any): boolean {
  const incoming = session?.incoming;
  if (!incoming || typeof incoming.on_transfer !== 'function') return false;
  if (wrapped.has(incoming)) return true;
  wrapped.add(incoming);
  const original = incoming.on_transfer as (frame: TransferFrame, receiver: Link) => unknown;
  incoming.on_transfer = function onTransfer(this: unknown, frame: TransferFrame, receiver: Link): unknown {
    const p = frame.performative ?? {};
    let chunks = receiver[CHUNKS] as Buffer[] | undefined;
    // The first frame of a delivery names its format; continuation frames carry none.
    if (chunks === undefined && (p.message_format ?? 0) === 0) chunks = receiver[CHUNKS] = [];
    if (chunks && frame.payload) chunks.push(frame.payload);
    const complete = !p.more || p.aborted;
    if (complete && chunks) {
      receiver[CHUNKS] = undefined;
      if (!p.aborted) receiver[RAW] = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    }
    try {
      return original.call(this, frame, receiver);
    } finally {
      if (complete) receiver[RAW] = undefined;
    }
  };
  return true;
}

/** The bytes of the format-0 delivery being dispatched on `link`, when its session keeps them. */
export function rawTransferOf(link: unknown): Buffer | undefined {
  return (link as Link | undefined)?.[RAW] as Buffer | undefined;
}
