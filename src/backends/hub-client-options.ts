import type { TokenCredential } from '@azure/core-auth';
import type { BackendStatus } from './consumer.ts';

/** What a backend needs to reach a hub. Exactly one of `connectionString` or `credential`+`fullyQualifiedNamespace`. */
export interface HubClientOptions {
  /** Event Hubs connection string; may carry `EntityPath` and `UseDevelopmentEmulator=true`. */
  readonly connectionString?: string;
  /** Entra ID credential, used with `fullyQualifiedNamespace`. */
  readonly credential?: TokenCredential;
  readonly fullyQualifiedNamespace?: string;
  /** Hub name; required unless the connection string has `EntityPath`. */
  readonly eventHubName?: string;
  /** Consumer group. Default `$Default`. */
  readonly consumerGroup?: string;
  /** Retry of transient backend failures. Defaults: 3 retries, 1000 ms to 30000 ms exponential. */
  readonly retry?: { readonly maxRetries?: number; readonly retryDelayMs?: number; readonly maxRetryDelayMs?: number; readonly timeoutMs?: number };
  /** Called on disconnects and recoveries. */
  readonly onStatus?: (status: BackendStatus) => void;
}
