/**
 * Which HTTP(S) proxy a connection goes through: `proxy_url` when configured, otherwise the environment
 * the way the Azure SDKs read it (@typespec/ts-http-runtime 0.3 proxyPolicy, which the storage SDK uses):
 * `HTTPS_PROXY`, `ALL_PROXY`, then `HTTP_PROXY` (each upper case first, then lower case), and `NO_PROXY`
 * (comma-separated; `.example.com` matches that domain and its subdomains, any other entry one exact
 * host). Reading it the same way for AMQP over WebSockets and for blob storage keeps both on one path.
 */
import { REDACTED } from './redact.ts';

/** How the backends reach Event Hubs: AMQP over TCP (TLS, 5671) or AMQP over WebSockets (wss, 443). */
export const AMQP_TRANSPORTS = ['amqp', 'amqp_websockets'] as const;
export type AmqpTransport = (typeof AMQP_TRANSPORTS)[number];
export const DEFAULT_AMQP_TRANSPORT: AmqpTransport = 'amqp';

/** Proxy schemes supported: a CONNECT proxy reached over plain HTTP or over TLS. */
const PROXY_SCHEMES = ['http:', 'https:'];

export type ProxyEnvironment = Readonly<Record<string, string | undefined>>;

/** A proxy URL's credentials replaced by `***` (`http://***@proxy:3128`), safe for logs and messages. */
export function redactProxyUrl(url: string | URL): string {
  let parsed: URL;
  try {
    parsed = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return 'an unparsable proxy URL';
  }
  const auth = parsed.username || parsed.password ? `${REDACTED}@` : '';
  return `${parsed.protocol}//${auth}${parsed.host}`;
}

/**
 * Checks a proxy URL. The message never quotes the URL (it may carry a password); it says what to write.
 * Returns the parsed URL or the problem.
 */
export function parseProxyUrl(text: string): { ok: true; url: URL } | { ok: false; message: string } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, message: 'is not a URL; write http://host:port (or http://user:password@host:port)' };
  }
  if (!PROXY_SCHEMES.includes(url.protocol)) {
    const message =
      `scheme '${url.protocol.replace(/:$/, '')}' is not supported; use an http:// or https:// ` + `(CONNECT) proxy`;
    return { ok: false, message };
  }
  if (!url.hostname) return { ok: false, message: 'has no host; write http://host:port' };
  if ((url.pathname !== '/' && url.pathname !== '') || url.search || url.hash) {
    return { ok: false, message: 'must be only scheme, host and port (and credentials), without a path or query' };
  }
  return { ok: true, url };
}

function envValue(env: ProxyEnvironment, name: string): string | undefined {
  return env[name] || env[name.toLowerCase()] || undefined;
}

/** The proxy URL the environment names, as the Azure SDKs pick it. */
export function environmentProxyUrl(env: ProxyEnvironment = process.env): string | undefined {
  return envValue(env, 'HTTPS_PROXY') ?? envValue(env, 'ALL_PROXY') ?? envValue(env, 'HTTP_PROXY');
}

/** Whether `NO_PROXY` exempts `host` (a host name or IP, without port). */
export function bypassesProxy(host: string, env: ProxyEnvironment = process.env): boolean {
  const list = (envValue(env, 'NO_PROXY') ?? '')
    .split(',')
    .map((e) => e.trim().toLowerCase())
    .filter(Boolean);
  const h = host.toLowerCase().replace(/^\[|\]$/g, '');
  return list.some((entry) => (entry.startsWith('.') ? h.endsWith(entry) || h === entry.slice(1) : h === entry));
}

/**
 * The proxy for connections to `host`, or undefined for a direct connection: `explicit` (the `proxy_url`
 * setting) first, then the environment; `NO_PROXY` exempts hosts from either, as in the Azure SDKs.
 * Throws a TypeError (without the URL) when the chosen URL is unusable.
 */
export function resolveProxy(
  host: string,
  explicit: string | undefined,
  env: ProxyEnvironment = process.env,
): URL | undefined {
  const source = explicit ? 'proxy_url' : 'the proxy environment variable (HTTPS_PROXY, ALL_PROXY or HTTP_PROXY)';
  const text = explicit || environmentProxyUrl(env);
  if (!text || bypassesProxy(host, env)) return undefined;
  const parsed = parseProxyUrl(text);
  if (!parsed.ok) throw new TypeError(`${source} ${parsed.message}`);
  return parsed.url;
}

/** The storage SDK's `proxyOptions` shape (@azure/core-rest-pipeline ProxySettings). */
export interface StorageProxySettings {
  host: string;
  port: number;
  username?: string;
  password?: string;
}

/**
 * `proxyOptions` for a storage client when `proxy_url` is configured; undefined otherwise, and the
 * storage SDK then reads the same environment variables itself (NO_PROXY is honoured either way).
 */
export function storageProxySettings(explicit: string | undefined): StorageProxySettings | undefined {
  if (!explicit) return undefined;
  const parsed = parseProxyUrl(explicit);
  if (!parsed.ok) throw new TypeError(`proxy_url ${parsed.message}`);
  const url = parsed.url;
  return {
    host: `${url.protocol}//${url.hostname}`,
    port: url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}
