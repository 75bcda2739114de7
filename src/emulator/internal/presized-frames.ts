/**
 * rhea encodes every outgoing frame into a fresh zero-filled 1 KiB buffer and, for a frame carrying a
 * 1 KiB event, grows it to 2 KiB by allocating and copying again (frames.js `write_frame`, types.js
 * `Writer`). At tens of thousands of deliveries per second that allocation is the largest single cost of
 * the emulator. This replaces `write_frame` with the same encoding into a buffer sized for the frame up
 * front. The bytes written are identical; the performative and payload are written exactly as before.
 * rhea is one module instance per process, so clients in the same process (the SDK in tests) use it too.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
/** Room for the frame header and a transfer/flow/disposition performative. */
const PERFORMATIVE_ALLOWANCE_BYTES = 256;

let installed = false;

export function installPresizedFrames(): void {
  if (installed) return;
  installed = true;
  const frames = require('rhea/lib/frames.js');
  const types = require('rhea/lib/types.js');
  const errors = require('rhea/lib/errors.js');
  frames.write_frame = function writePresizedFrame(frame: any): Buffer {
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
      if (frame.payload) writer.write_bytes(frame.payload);
    }
    const buffer: Buffer = writer.toBuffer();
    buffer.writeUInt32BE(buffer.length, 0);
    return buffer;
  };
}
