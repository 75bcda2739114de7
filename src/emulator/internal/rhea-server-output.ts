/**
 * Workarounds for rhea's output path, written for rhea 3.0.5 (lib/transport.js, lib/frames.js,
 * lib/types.js, lib/connection.js), applied to the emulator's own server connections only.
 *
 * 1. Presized frames. rhea encodes every outgoing frame into a fresh zero-filled 1 KiB buffer and, for a
 *    frame carrying a 1 KiB event, grows it to 2 KiB by allocating and copying again (frames.js
 *    `write_frame`, types.js `Writer`). At tens of thousands of deliveries per second that allocation is
 *    the largest single cost of the emulator. `usePresizedFrames(connection)` gives one connection's AMQP
 *    transport its own `write` that encodes the same bytes into a buffer sized for the frame up front.
 *    It is an own property of that transport object: rhea's module functions and prototypes are left
 *    alone, so clients in the same process (the SDK in tests, the streaming backend through rhea-promise,
 *    `npm start`) keep rhea's stock writer.
 *    A delivery whose bytes come in pieces (an event's stored bytes with the runtime-metrics section
 *    spliced in) can be handed to rhea as a `SplicedPayload`, which this writer copies piece by piece
 *    into the frame, so the delivery is not first joined into a buffer of its own.
 * 2. Corking. rhea writes each frame with its own `socket.write` (connection.js `output` → transport
 *    `write`), so a burst of thousands of small deliveries means thousands of writes. Corking the socket
 *    for the rest of the event-loop turn lets Node hand the whole burst to the kernel in one writev.
 *
 * When the installed rhea is not the version this was written for, or its internals no longer have the
 * shape relied on here, `usePresizedFrames` does nothing (stock rhea: slower, still correct) and
 * test/unit/emulator/rhea-server-output.test.ts fails, so whoever upgrades rhea reviews this file.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);

/** The rhea version these workarounds were written and checked for. */
export const RHEA_VERSION_WRITTEN_FOR = '3.0.5';
/** Room for the frame header and a transfer/flow/disposition performative. */
const PERFORMATIVE_ALLOWANCE_BYTES = 256;

interface RheaFrame {
  type: number;
  channel: number;
  performative?: unknown;
  payload?: Buffer | SplicedPayload;
}

/**
 * A delivery's bytes as pieces, for connections that write presized frames only: rhea passes a payload
 * through to the writer untouched, reading its `length` and, to split a payload larger than the peer's
 * frame size, calling `slice` (which joins the pieces then).
 */
export class SplicedPayload {
  readonly length: number;

  constructor(readonly parts: readonly Buffer[]) {
    let length = 0;
    for (const part of parts) length += part.length;
    this.length = length;
  }

  slice(start: number, end: number): Buffer {
    return Buffer.concat(this.parts as Buffer[], this.length).subarray(start, end);
  }
}

/** A delivery payload made of `parts`; send it only on a connection where `writesPresizedFrames` holds. */
export function splicedPayload(parts: readonly Buffer[]): SplicedPayload {
  return new SplicedPayload(parts);
}

interface RheaTransport {
  pending: RheaFrame[];
  header_sent: unknown;
  identifier: string;
  write(socket: { write(buffer: Buffer): unknown }): void;
}

const frames = require('rhea/lib/frames.js');
const types = require('rhea/lib/types.js');
const errors = require('rhea/lib/errors.js');
const log = require('rhea/lib/log.js');
const Transport = require('rhea/lib/transport.js');
const stockTransportWrite: RheaTransport['write'] = Transport.prototype.write;

/** The installed rhea's version (from its package.json). */
export function installedRheaVersion(): string {
  return String(require('rhea/package.json').version);
}

/** Why the workaround cannot be applied to the installed rhea, or undefined when it can. */
export function rheaMismatch(): string | undefined {
  const version = installedRheaVersion();
  if (version !== RHEA_VERSION_WRITTEN_FOR) return `rhea ${version} installed, written for ${RHEA_VERSION_WRITTEN_FOR}`;
  if (typeof frames.write_frame !== 'function' || frames.TYPE_AMQP !== 0 || frames.TYPE_SASL !== 1) {
    return 'rhea frames.js changed (write_frame, TYPE_AMQP, TYPE_SASL)';
  }
  if (typeof stockTransportWrite !== 'function' || !String(stockTransportWrite).includes('frames.write_frame(frame)')) {
    return 'rhea Transport.prototype.write no longer encodes through frames.write_frame';
  }
  const writer = new types.Writer(Buffer.alloc(8));
  for (const method of ['skip', 'write_uint', 'write', 'write_bytes', 'toBuffer']) {
    if (typeof writer[method] !== 'function') return `rhea types.Writer has no ${method}()`;
  }
  if (writer.buffer?.length !== 8 || writer.position !== 0) return 'rhea types.Writer ignores a given buffer';
  return undefined;
}

const applicable = rheaMismatch() === undefined;

/** rhea's `frames.write_frame`, encoding into a buffer sized for the frame instead of a growing one. */
export function encodePresizedFrame(frame: RheaFrame): Buffer {
  const payloadLength = frame.payload ? frame.payload.length : 0;
  const writer = new types.Writer(Buffer.allocUnsafe(PERFORMATIVE_ALLOWANCE_BYTES + payloadLength));
  writer.skip(4); // the size, filled in below
  writer.write_uint(2, 1); // data offset, in 4-byte words
  writer.write_uint(frame.type, 1);
  if (frame.type === frames.TYPE_AMQP) writer.write_uint(frame.channel, 2);
  else if (frame.type === frames.TYPE_SASL) writer.write_uint(0, 2);
  else throw new errors.ProtocolError(`Unknown frame type ${frame.type}`);
  if (frame.performative) {
    writer.write(frame.performative);
    const payload = frame.payload;
    if (payload instanceof SplicedPayload) {
      for (const part of payload.parts) writer.write_bytes(part);
    } else if (payload) {
      writer.write_bytes(payload);
    }
  }
  const buffer: Buffer = writer.toBuffer();
  buffer.writeUInt32BE(buffer.length, 0);
  return buffer;
}

/** Transport.prototype.write of rhea 3.0.5 with the presized encoder; the header goes the stock way. */
function writePresized(this: RheaTransport, socket: { write(buffer: Buffer): unknown }): void {
  if (!this.header_sent) return stockTransportWrite.call(this, socket);
  const pending = this.pending;
  for (let i = 0; i < pending.length; i++) {
    const frame = pending[i]!;
    const buffer = encodePresizedFrame(frame);
    socket.write(buffer);
    // The stock writer's debug lines (DEBUG=rhea:frames,rhea:raw), formatted only when enabled.
    if (log.frames.enabled) {
      if (frame.performative) {
        const name = (frame.performative as { constructor: unknown }).constructor;
        log.frames('[%s]:%s -> %s %j', this.identifier, frame.channel, name, frame.performative, frame.payload || '');
      } else {
        log.frames('[%s]:%s -> empty', this.identifier, frame.channel);
      }
    }
    if (log.raw.enabled) log.raw('[%s] SENT: %d %h', this.identifier, buffer.length, buffer);
  }
  this.pending = [];
}

/**
 * Gives one server connection's AMQP transport the presized writer. Returns whether it did (false when
 * the installed rhea does not match, or the connection has no AMQP transport of the expected shape).
 */
export function usePresizedFrames(connection: any): boolean {
  const transport = connection?.amqp_transport;
  if (!applicable || !(transport instanceof Transport) || !Array.isArray(transport.pending)) return false;
  transport.write = writePresized;
  return true;
}

/** Whether a connection's AMQP transport writes presized frames (for tests). */
export function writesPresizedFrames(connection: any): boolean {
  return connection?.amqp_transport?.write === writePresized;
}

/**
 * Corks a server connection's socket until the next turn of the event loop. rhea's own processing (on
 * process.nextTick) runs before the setImmediate that uncorks. Frame order is untouched.
 */
export function corkForThisTurn(connection: any): void {
  const socket = connection?.socket;
  if (!socket || socket.destroyed || socket.writableCorked > 0 || typeof socket.cork !== 'function') return;
  socket.cork();
  setImmediate(() => {
    if (!socket.destroyed) socket.uncork();
  });
}
