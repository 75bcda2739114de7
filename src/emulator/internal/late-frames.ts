/**
 * Late frames of a session the client itself ended. Written for rhea 3.0.5 (lib/connection.js: frames are
 * dispatched to `connection.on_<performative>`, which throws a ProtocolError, closing the connection, for a
 * channel without a session).
 *
 * The Azure SDK for Python (azure-eventhub 5.11, pyamqp) closes a management client by sending End for its
 * session and then Detach for the links it had not detached yet, on the channel it just ended. That breaks
 * AMQP 1.0 (part 2 §2.7.7: no frames on an ended session) but is harmless; rhea treated it as a framing error
 * and closed the connection, so every such close printed a protocol error and, on a shared connection,
 * would cut the other sessions. `tolerateLateFrames(connection)` drops Attach, Detach, Flow, Transfer and
 * Disposition frames that arrive on a channel whose session the client ended, until it begins a session on
 * that channel again. A frame on a channel that never had a session is still a protocol error.
 */
const LINK_FRAMES = ['attach', 'detach', 'flow', 'transfer', 'disposition'] as const;

type Handler = (this: any, frame: { channel: number }) => unknown;

export function tolerateLateFrames(connection: any): boolean {
  const handlers = ['on_begin', 'on_end', ...LINK_FRAMES.map((n) => `on_${n}`)].map((name) => connection?.[name]);
  if (handlers.some((h) => typeof h !== 'function')) return false;
  const ended = new Set<number>();
  const onBegin: Handler = connection.on_begin;
  const onEnd: Handler = connection.on_end;
  connection.on_begin = function (this: any, frame: { channel: number }) {
    ended.delete(frame.channel);
    return onBegin.call(this, frame);
  };
  connection.on_end = function (this: any, frame: { channel: number }) {
    ended.add(frame.channel);
    return onEnd.call(this, frame);
  };
  for (const name of LINK_FRAMES) {
    const original: Handler = connection[`on_${name}`];
    connection[`on_${name}`] = function (this: any, frame: { channel: number }) {
      if (ended.has(frame.channel) && !this.remote_channel_map?.[frame.channel]) return undefined;
      return original.call(this, frame);
    };
  }
  return true;
}
