/**
 * AMQP over WebSockets for both backends. `@azure/event-hubs` (its `webSocketOptions`) and
 * `@azure/core-amqp` (ConnectionConfig `webSocket`, `webSocketEndpointPath`, `webSocketConstructorOptions`)
 * take the same two things: a WebSocket class (Node has none the SDK uses, so `ws`) and the options of its
 * constructor, where a proxy goes in as an `agent` that opens a CONNECT tunnel. The SDK then connects to
 * `wss://<host>:<port, default 443>/$servicebus/websocket` with subprotocol `AMQPWSB10` (always TLS).
 */
import { HttpsProxyAgent } from 'https-proxy-agent';
import WebSocket, { type ClientOptions } from 'ws';
import { BackendError } from '../consumer.ts';
import type { HubClientOptions } from '../hub-client-options.ts';
import { redact } from '../../component/redact.ts';
import { DEFAULT_AMQP_TRANSPORT, redactProxyUrl, resolveProxy } from '../../component/network-proxy.ts';

/** What both libraries take for AMQP over WebSockets. */
export interface WebSocketSettings {
  readonly webSocket: typeof WebSocket;
  readonly webSocketConstructorOptions: ClientOptions;
  /** The proxy in use, credentials redacted (for logs); undefined for a direct connection. */
  readonly proxy: string | undefined;
}

/** The namespace host (no scheme, no port) the options point at, for NO_PROXY. */
export function namespaceHost(options: HubClientOptions): string | undefined {
  const endpoint = options.connectionString
    ? /(?:^|;)\s*Endpoint\s*=\s*([^;]+)/i.exec(options.connectionString)?.[1]
    : options.fullyQualifiedNamespace;
  if (!endpoint) return undefined;
  const withScheme = /^[a-z][a-z0-9+.-]*:\/\//i.test(endpoint.trim()) ? endpoint.trim() : `sb://${endpoint.trim()}`;
  try {
    return new URL(withScheme).hostname.replace(/^\[|\]$/g, '');
  } catch {
    return undefined;
  }
}

function proxyError(backend: string, message: string, configKey: string): BackendError {
  return new BackendError(`${backend} backend: ${redact(message)} (check ${configKey})`, {
    retryable: false,
    permanent: true,
    configKey,
    code: 'InvalidConfiguration',
  });
}

/**
 * The WebSocket settings for `options`, or undefined for AMQP over TCP. Throws a permanent BackendError
 * (naming `proxy_url` or `transport`, never quoting the proxy's credentials) for settings that cannot work.
 */
export function webSocketSettings(backend: string, options: HubClientOptions): WebSocketSettings | undefined {
  const transport = options.transport ?? DEFAULT_AMQP_TRANSPORT;
  if (transport === 'amqp') {
    if (options.proxyUrl) {
      const message = 'a proxy needs transport amqp_websockets: AMQP over TCP cannot go through an HTTP proxy';
      throw proxyError(backend, message, 'transport');
    }
    return undefined;
  }
  if (transport !== 'amqp_websockets') {
    throw proxyError(backend, `unknown transport '${String(transport)}'; use amqp or amqp_websockets`, 'transport');
  }
  let proxy: URL | undefined;
  try {
    proxy = resolveProxy(namespaceHost(options) ?? '', options.proxyUrl, options.proxyEnvironment ?? process.env);
  } catch (error) {
    throw proxyError(backend, (error as Error).message, options.proxyUrl ? 'proxy_url' : 'HTTPS_PROXY');
  }
  return {
    webSocket: WebSocket,
    webSocketConstructorOptions: proxy ? { agent: new HttpsProxyAgent(proxy) } : {},
    proxy: proxy ? redactProxyUrl(proxy) : undefined,
  };
}
