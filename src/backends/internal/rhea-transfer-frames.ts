/**
 * rhea reads every frame with its generic decoder (frames.js `read_frame`): each field of a performative
 * becomes a typed wrapper in a list, which the performative's getters unwrap again on every read, and the
 * delivery tag and the payload become Buffer views. A receiver gets one transfer frame per event, and this
 * was half of what the streaming pipeline thread still allocated per event once rhea's delivery handling was
 * bypassed (rhea-undecoded.ts). `readTransfersInOnePass` gives one rhea connection's AMQP transport a read
 * loop that decodes transfer frames in one pass into a performative with the same fields, values and
 * dispatch as rhea's Transfer; every other frame, and a transfer holding anything beyond the plain fields
 * Event Hubs sends (a delivery state, a type rhea would read otherwise), goes to rhea's `read_frame` as
 * before. Written for rhea 3.0.5 (`RHEA_VERSION_WRITTEN_FOR`): the loop is rhea's `Transport.read` for a
 * transport past its protocol header, without its debug logging (while rhea's frame logging is enabled,
 * rhea's own read runs). Only that transport object changes; a transport rhea creates anew (after a reset)
 * reads as rhea does until hooked again.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const frames = require('rhea/lib/frames.js') as { read_frame(buffer: Buffer): RheaFrame };
const errors = require('rhea/lib/errors.js') as { ProtocolError: new (message: string) => Error };
const rheaLog = require('rhea/lib/log.js') as Record<string, unknown>;
const Transport = require('rhea/lib/transport.js') as { prototype: RheaTransport };

export interface RheaFrame {
  size?: number;
  type: number;
  channel: number;
  performative?: { dispatch(target: unknown, frame: RheaFrame): void };
  payload?: Buffer;
}

export interface RheaTransport {
  read(buffer: Buffer): number;
  header_received?: unknown;
  read_complete: boolean;
  frame_type: number;
  handler: unknown;
}

/** rhea's Transport.read, as this file's loop stands in for it. */
const rheaRead = Transport.prototype.read;
/** The lines of rhea 3.0.5's Transport.read the loop below does the same as. */
const READ_LOOP = [
  'while (offset < (buffer.length - 4) && !this.read_complete) {',
  'var frame_size = buffer.readUInt32BE(offset);',
  'if (buffer.length < offset + frame_size) {',
  'var frame = frames.read_frame(slice);',
  'if (frame.type !== this.frame_type) {',
  'offset += frame_size;',
  'frame.performative.dispatch(this.handler, frame);',
];
const applicable = READ_LOOP.every((line) => String(rheaRead).includes(line));

const TRANSFER = 0x14;
const AMQP_FRAME = 0x00;

/** A transfer performative with the fields, values and dispatch of rhea 3.0.5's (frames.js `transfer`). */
class Transfer {
  handle: number | null | undefined = undefined;
  delivery_id: number | null | undefined = undefined;
  delivery_tag: Buffer | null | undefined = undefined;
  message_format: number | null | undefined = undefined;
  settled: boolean | null | undefined = undefined;
  more: boolean | null | undefined = undefined;
  rcv_settle_mode: number | null | undefined = undefined;
  state: null | undefined = undefined;
  resume: boolean | null | undefined = undefined;
  aborted: boolean | null | undefined = undefined;
  batchable: boolean | null | undefined = undefined;

  dispatch(target: { on_transfer(frame: RheaFrame): void }, frame: RheaFrame): void {
    target.on_transfer(frame);
  }
}

type FieldKind = 'uint' | 'binary' | 'boolean' | 'ubyte' | 'null';
/** The transfer's fields in wire order, each with what it may hold here: anything else is left to rhea. */
const FIELDS: readonly (readonly [keyof Transfer, FieldKind])[] = [
  ['handle', 'uint'],
  ['delivery_id', 'uint'],
  ['delivery_tag', 'binary'],
  ['message_format', 'uint'],
  ['settled', 'boolean'],
  ['more', 'boolean'],
  ['rcv_settle_mode', 'ubyte'],
  ['state', 'null'],
  ['resume', 'boolean'],
  ['aborted', 'boolean'],
  ['batchable', 'boolean'],
];

/** Sentinel: a value this reader does not take. */
const UNREAD = Symbol('unread');

/**
 * The transfer frame in `frame` (one whole frame: size, header, body) as rhea's `read_frame` would give it,
 * or undefined for any other frame or a transfer holding what only rhea reads.
 */
export function readTransferFrame(frame: Buffer): RheaFrame | undefined {
  try {
    return readTransfer(frame);
  } catch {
    return undefined; // read past the end: a malformed frame, for rhea to reject as it does
  }
}

function readTransfer(frame: Buffer): RheaFrame | undefined {
  const size = frame.readUInt32BE(0);
  const doff = frame[4]!;
  if (doff < 2 || frame[5] !== AMQP_FRAME || size !== frame.length) return undefined;
  let at = doff * 4;
  if (frame[at] !== 0x00) return undefined; // a described type
  at++;
  if (frame[at] === 0x53) {
    if (frame[at + 1] !== TRANSFER) return undefined;
    at += 2;
  } else if (frame[at] === 0x80) {
    if (frame.readUInt32BE(at + 1) !== 0 || frame.readUInt32BE(at + 5) !== TRANSFER) return undefined;
    at += 9;
  } else return undefined;
  let count: number;
  let end: number;
  const list = frame[at];
  // A transfer's handle is mandatory: its list is never empty (list0), and one that were is left to rhea.
  if (list === 0xc0) {
    end = at + 2 + frame[at + 1]!;
    count = frame[at + 2]!;
    at += 3;
  } else if (list === 0xd0) {
    end = at + 5 + frame.readUInt32BE(at + 1);
    count = frame.readUInt32BE(at + 5);
    at += 9;
  } else return undefined;
  if (count > FIELDS.length || end > frame.length) return undefined;
  const transfer = new Transfer();
  for (let i = 0; i < count; i++) {
    const [name, kind] = FIELDS[i]!;
    const code = frame[at++];
    let value: number | boolean | Buffer | null | typeof UNREAD = UNREAD;
    if (code === 0x40) value = null;
    else
      switch (kind) {
        case 'uint':
          if (code === 0x43) value = 0;
          else if (code === 0x52) value = frame[at++]!;
          else if (code === 0x70) {
            value = frame.readUInt32BE(at);
            at += 4;
          }
          break;
        case 'binary':
          if (code === 0xa0) {
            const n = frame[at]!;
            value = frame.subarray(at + 1, at + 1 + n);
            at += 1 + n;
          } else if (code === 0xb0) {
            const n = frame.readUInt32BE(at);
            value = frame.subarray(at + 4, at + 4 + n);
            at += 4 + n;
          }
          break;
        case 'boolean':
          if (code === 0x41) value = true;
          else if (code === 0x42) value = false;
          else if (code === 0x56) value = frame[at++] === 1;
          break;
        case 'ubyte':
          if (code === 0x50) value = frame[at++]!;
          break;
        default:
          break;
      }
    if (value === UNREAD || at > end) return undefined;
    (transfer as unknown as Record<string, unknown>)[name] = value;
  }
  if (at !== end) return undefined;
  const result: RheaFrame = { size, type: AMQP_FRAME, channel: frame.readUInt16BE(6), performative: transfer };
  if (end < frame.length) result.payload = frame.subarray(end);
  return result;
}

/** Whether rhea logs `name` (its logger may be wrapped by rhea-log-guard.ts, which keeps it as `guarded`). */
function logs(name: string): boolean {
  const logger = rheaLog[name] as { enabled?: boolean; guarded?: { enabled?: boolean } } | undefined;
  return Boolean((logger?.guarded ?? logger)?.enabled);
}

/** Whether rhea's frame logging is on (`DEBUG=rhea:frames` or the like): then rhea's own read logs them. */
function rheaLogsFrames(): boolean {
  return logs('frames') || logs('raw') || logs('io');
}

/** rhea's Transport.read past the protocol header, transfer frames read in one pass (see above). */
function onePassRead(this: RheaTransport, buffer: Buffer): number {
  if (!this.header_received || rheaLogsFrames()) return rheaRead.call(this, buffer);
  let offset = 0;
  while (offset < buffer.length - 4 && !this.read_complete) {
    const frameSize = buffer.readUInt32BE(offset);
    if (buffer.length < offset + frameSize) break;
    const slice = buffer.subarray(offset, offset + frameSize);
    const frame = readTransferFrame(slice) ?? frames.read_frame(slice);
    if (frame.type !== this.frame_type) throw new errors.ProtocolError(`Invalid frame type: ${frame.type}`);
    offset += frameSize;
    if (frame.performative) frame.performative.dispatch(this.handler, frame);
  }
  return offset;
}

/**
 * Gives `transport` (a rhea connection's `amqp_transport`) the one-pass read of transfer frames, once; changes
 * nothing when the installed rhea's read loop is not the one this was written for, or the transport's read is
 * not rhea's.
 */
export function readTransfersInOnePass(transport: RheaTransport | undefined): void {
  if (applicable && transport && transport.read === rheaRead) transport.read = onePassRead;
}
