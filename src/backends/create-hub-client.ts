import type { BackendKind, HubClient } from './consumer.ts';
import type { HubClientOptions } from './hub-client-options.ts';
import { PollingHubClient } from './polling/polling-hub-client.ts';
import { StreamingHubClient } from './streaming/streaming-hub-client.ts';

/**
 * The one place a backend is chosen. Nothing connects until the first call; a connection string or
 * option the backend cannot use throws a BackendError (retryable: false) whose message is redacted.
 */
export function createHubClient(kind: BackendKind, options: HubClientOptions): HubClient {
  switch (kind) {
    case 'polling':
      return new PollingHubClient(options);
    case 'streaming':
      return new StreamingHubClient(options);
    default:
      throw new TypeError(`unknown backend '${String(kind)}'; use 'polling' or 'streaming'`);
  }
}
