import type { TokenCredential } from '@azure/core-auth';
import type { AmqpTransport, ProxyEnvironment } from '../component/network-proxy.ts';
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
  readonly retry?: {
    readonly maxRetries?: number;
    readonly retryDelayMs?: number;
    readonly maxRetryDelayMs?: number;
    readonly timeoutMs?: number;
  };
  /**
   * `amqp` (AMQP over TCP: TLS on 5671, or plain TCP with `UseDevelopmentEmulator=true`) or `amqp_websockets`
   * (AMQP over `wss://<host>:443/$servicebus/websocket`; a port in the endpoint wins). Default `amqp`.
   */
  readonly transport?: AmqpTransport;
  /**
   * HTTP(S) CONNECT proxy for `amqp_websockets`, `http://[user:password@]host:port`. Default: the
   * environment (`HTTPS_PROXY`, `ALL_PROXY`, `HTTP_PROXY`, minus `NO_PROXY`), as the Azure SDKs read it.
   * With `transport: amqp` a proxy is refused (AMQP over TCP cannot use an HTTP proxy).
   */
  readonly proxyUrl?: string;
  /** Where the proxy environment variables are read. Default `process.env`; for tests. */
  readonly proxyEnvironment?: ProxyEnvironment;
  /**
   * Lifetime of the SAS tokens signed from a connection string's key, in ms; at least 10000. Default
   * 3_600_000 (the Azure SDKs' hour). For tests and soaks that need many renewals (docs/benchmarks.md, token
   * soak); not a configuration key. Each token is renewed 2 min before it expires, or at three quarters of
   * its life if it lives less than 8 min. A connection string carrying a SharedAccessSignature is used as is.
   */
  readonly sasTokenLifetimeMs?: number;
  /** Called on disconnects and recoveries. */
  readonly onStatus?: (status: BackendStatus) => void;
}
