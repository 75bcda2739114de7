import type { AnyValue, LogAttributes } from '@opentelemetry/api-logs';
import { markAllDoubles, markDoubleKey } from '../../../pipeline/double-values.ts';

/*
 * The Go extension's attribute setters (unmarshaler/helpers.go), with their rules: strings are set only
 * when non-empty and not "-" (Azure's "unknown"), numbers only when they parse, maps only when non-empty.
 */

/** Azure writes "-" for a field that was unknown or not applicable. */
const UNKNOWN = '-';

/** Sets a string attribute unless the value is empty or "-". */
export function putStr(attrs: LogAttributes, key: string, value: string | undefined): void {
  if (value !== undefined && value !== '' && value !== UNKNOWN) attrs[key] = value;
}

const INT_TEXT = /^[+-]?\d+$/;
const INT64_MAX = 9223372036854775807n;
const INT64_MIN = -9223372036854775808n;

/** Go's json.Number.Int64(): the integer, or undefined when the text is not a base-10 int64. */
export function int64Of(text: string | undefined): number | undefined {
  if (text === undefined || !INT_TEXT.test(text)) return undefined;
  const big = BigInt(text);
  if (big > INT64_MAX || big < INT64_MIN) return undefined;
  return Number(big);
}

const FLOAT_TEXT = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

/** Go's json.Number.Float64() for the decimal forms JSON carries; undefined otherwise. */
export function float64Of(text: string | undefined): number | undefined {
  if (text === undefined || !FLOAT_TEXT.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

/** Sets an int attribute when the number text is an int64. */
export function putInt(attrs: LogAttributes, key: string, text: string | undefined): void {
  const n = int64Of(text);
  if (n !== undefined) attrs[key] = n;
}

/**
 * Sets a double attribute when the number text parses (a Go float64 field): marked so that the encoders write
 * a whole one (`azure.request.duration` of 5 ms) as a double, as Go does (pipeline/double-values.ts).
 */
export function putFloat(attrs: LogAttributes, key: string, text: string | undefined): void {
  putDouble(attrs, key, float64Of(text));
}

/** Sets a double attribute (a Go float64) unless the number is undefined. */
export function putDouble(attrs: LogAttributes, key: string, value: number | undefined): void {
  if (value === undefined) return;
  attrs[key] = value;
  markDoubleKey(attrs, key);
}

/**
 * Sets a map attribute unless the map is absent or empty. The map comes from the JSON as Go's map[string]any,
 * whose numbers are all float64: marked so.
 */
export function putMap(attrs: LogAttributes, key: string, value: Record<string, unknown> | undefined): void {
  if (value !== undefined && Object.keys(value).length > 0) attrs[key] = markAllDoubles(value) as AnyValue;
}

/** Fallback attribute for a value that is not `host:port`, as helpers.go names them. */
const ORIGINAL_ADDRESS: Readonly<Record<string, string>> = {
  'destination.address': 'destination.original_address',
  'client.address': 'client.original_address',
  'server.address': 'server.original_address',
  'network.peer.address': 'network.peer.original_address',
  'network.local.address': 'network.local.original_address',
};

/**
 * `host:port` into an address and a port attribute; a value without a port (or a bare IPv6 address) sets
 * the address only; a malformed one goes to the `*.original_address` attribute (Go's AttrPutHostPortIf).
 */
export function putHostPort(attrs: LogAttributes, addrKey: string, portKey: string, value: string): void {
  if (value === '') return;
  const colons = value.split(':').length - 1;
  if (colons === 0 || (colons > 1 && !value.includes(']:'))) {
    attrs[addrKey] = value;
    return;
  }
  const fallback = ORIGINAL_ADDRESS[addrKey] ?? `${addrKey}_original`;
  const split = splitHostPort(value);
  const port = split === undefined ? undefined : int64Of(split[1]);
  if (split === undefined || port === undefined) {
    attrs[fallback] = value;
    return;
  }
  attrs[addrKey] = split[0];
  attrs[portKey] = port;
}

/** Go's net.SplitHostPort: `host:port` or `[host]:port`; undefined when malformed. */
function splitHostPort(value: string): [string, string] | undefined {
  const last = value.lastIndexOf(':');
  let host: string;
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    if (end < 0 || end + 1 !== last) return undefined;
    host = value.slice(1, end);
  } else {
    host = value.slice(0, last);
    if (host.includes(':') || host.includes('[') || host.includes(']')) return undefined;
  }
  const port = value.slice(last + 1);
  if (port.includes('[') || port.includes(']')) return undefined;
  return [host, port];
}

/** Go's tls.VersionName values (and "SSLv3") → `tls.protocol.name` + `tls.protocol.version`. */
const TLS_VERSIONS: Readonly<Record<string, readonly [string, string]>> = {
  SSLv3: ['SSL', '3'],
  'TLS 1.0': ['TLS', '1.0'],
  'TLS 1.1': ['TLS', '1.1'],
  'TLS 1.2': ['TLS', '1.2'],
  'TLS 1.3': ['TLS', '1.3'],
};

/** A security protocol ("TLS 1.2") as name and version; anything else as `tls.protocol.original`. */
export function putTlsProtocol(attrs: LogAttributes, value: string): void {
  if (value === '') return;
  const known = Object.hasOwn(TLS_VERSIONS, value) ? TLS_VERSIONS[value] : undefined;
  if (known === undefined) {
    putStr(attrs, 'tls.protocol.original', value);
    return;
  }
  attrs['tls.protocol.name'] = known[0];
  attrs['tls.protocol.version'] = known[1];
}

const HTTP_VERSIONS: Readonly<Record<string, string>> = {
  'HTTP/0.9': '0.9',
  'HTTP/1.0': '1.0',
  'HTTP/1.1': '1.1',
  'HTTP/2.0': '2.0',
  'HTTP/3.0': '3.0',
};

/** "HTTP/1.1" → `network.protocol.name` http + version; anything else as `network.protocol.original`. */
export function putHttpProtocol(attrs: LogAttributes, value: string): void {
  if (value === '') return;
  const version = Object.hasOwn(HTTP_VERSIONS, value) ? HTTP_VERSIONS[value] : undefined;
  if (version === undefined) {
    putStr(attrs, 'network.protocol.original', value);
    return;
  }
  attrs['network.protocol.name'] = 'http';
  attrs['network.protocol.version'] = version;
}
