/**
 * rhea writes each frame with its own `socket.write` (connection.js `_write_frame` → `output`), so a
 * burst of thousands of small deliveries means thousands of writes. Corking the socket for the rest of
 * the event-loop turn lets Node hand the whole burst to the kernel in one writev; rhea's own processing
 * (on process.nextTick) runs before the setImmediate that uncorks. Frame order is untouched.
 */
export function corkForThisTurn(connection: any): void {
  const socket = connection?.socket;
  if (!socket || socket.destroyed || socket.writableCorked > 0 || typeof socket.cork !== 'function') return;
  socket.cork();
  setImmediate(() => {
    if (!socket.destroyed) socket.uncork();
  });
}
