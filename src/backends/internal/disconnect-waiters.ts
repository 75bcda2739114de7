/**
 * Waiting for a connection's 'disconnected' event without one listener per waiter: many partitions
 * closing at once on one connection would otherwise pass the EventEmitter's default limit of ten
 * listeners (a MaxListenersExceededWarning). One listener per connection serves every waiter.
 */

/** The part of an AMQP connection object (rhea-promise's Connection, also under the SDK) used here. */
export interface DisconnectEmitter {
  on(event: 'disconnected', listener: () => void): unknown;
}

const waiters = new WeakMap<DisconnectEmitter, Set<() => void>>();

/** Calls `listener` at the connection's next 'disconnected' event; returns the function that cancels it. */
export function onNextDisconnect(connection: DisconnectEmitter, listener: () => void): () => void {
  let set = waiters.get(connection);
  if (!set) {
    const own = new Set<() => void>();
    waiters.set(connection, own);
    connection.on('disconnected', () => {
      const now = [...own];
      own.clear();
      for (const waiter of now) waiter();
    });
    set = own;
  }
  const entry = (): void => listener();
  set.add(entry);
  return () => void set.delete(entry);
}

/**
 * `closing`, settled also when the connection is disconnected first. Resolves true when the disconnect
 * came first, false when `closing` settled (a rejection counts as settled: closing is best effort).
 */
export async function settleOnDisconnect(connection: DisconnectEmitter, closing: Promise<unknown>): Promise<boolean> {
  let cancel: (() => void) | undefined;
  const disconnected = new Promise<boolean>((resolve) => {
    cancel = onNextDisconnect(connection, () => resolve(true));
  });
  try {
    return await Promise.race([
      closing.then(
        () => false,
        () => false,
      ),
      disconnected,
    ]);
  } finally {
    cancel?.();
  }
}
