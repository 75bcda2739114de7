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

/** The rhea version this file was written for. */
export const RHEA_VERSION_WRITTEN_FOR = '3.0.5';

/** A message format no Event Hubs delivery carries: marks a format-0 transfer to hand over undecoded. */
export const UNDECODED_FORMAT = 0x00fe_0000;

export interface RheaTransferFrame {
  performative?: { message_format?: number };
}

export interface RheaSession {
  on_transfer(frame: RheaTransferFrame): void;
  incoming?: { on_transfer?: unknown };
}

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
 * Makes rhea hand this session's format-0 messages over as bytes: its links' `message` events then carry a
 * Buffer in `message` and `UNDECODED_FORMAT` in `format`. `beforeMarked` sees each format-0 transfer first
 * (with the session as `this`). Returns false, changing nothing, when the installed rhea or the session does
 * not have the expected shape: rhea then decodes as usual.
 */
export function deliverSessionUndecoded<S extends RheaSession>(
  session: S | undefined,
  beforeMarked?: (this: S, frame: RheaTransferFrame) => void,
): boolean {
  if (!undecodedApplicable || !session || session.on_transfer !== rheaSessionOnTransfer) return false;
  if (!String(session.incoming?.on_transfer).includes(DECODES_FORMAT_ZERO_ONLY)) return false;
  session.on_transfer = function onTransfer(this: S, frame: RheaTransferFrame): void {
    const performative = frame.performative;
    if (performative && performative.message_format === 0) {
      beforeMarked?.call(this, frame);
      performative.message_format = UNDECODED_FORMAT;
    }
    rheaSessionOnTransfer.call(this, frame);
  };
  return true;
}
