/** A bare rhea client connection for tests that need frames the Azure SDK does not send. */
import rhea from 'rhea';

/**
 * Opens a rhea connection to 127.0.0.1:`port` (no reconnects); resolves once open, rejects on a
 * disconnect or after 5 s. With `username` rhea uses SASL (ANONYMOUS without a password); without it,
 * it sends the bare AMQP header.
 */
export function openRheaConnection(port: number, options: Record<string, unknown> = {}): Promise<any> {
  const container = (rhea as any).create_container();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('connection did not open within 5 s')), 5_000);
    container.once('connection_open', (ctx: any) => {
      clearTimeout(timer);
      resolve(ctx.connection);
    });
    container.once('disconnected', (ctx: any) => reject(ctx.error ?? new Error('disconnected')));
    // A refused SASL handshake is also raised as the container's 'error'; the rejection above reports it.
    container.on('error', () => undefined);
    container.connect({ host: '127.0.0.1', port, reconnect: false, ...options });
  });
}

/** A closeable for `track()`: closes the connection and waits for the server's close (or a disconnect). */
export function closeable(connection: any): { close(): Promise<void> } {
  return {
    close: () =>
      new Promise<void>((resolve) => {
        if (!connection.is_open()) return resolve();
        connection.once('connection_close', () => resolve());
        connection.once('disconnected', () => resolve());
        connection.close();
      }),
  };
}
