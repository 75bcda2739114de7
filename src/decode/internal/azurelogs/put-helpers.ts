import { goUrlPort, MISSING_PORT, parseGoUrl, splitHostPort } from '../go-url.ts';
import { GoValueError, parseGoBool, requireGoInt, requireGoMillis } from './go-values.ts';

/** Record attributes being built by a category mapping. */
export type Attrs = Record<string, unknown>;

/*
 * The put helpers of pkg/translator/azurelogs category_logs.go, one for one: same skips, same errors.
 */

/** putStr: skipped when empty or "N/A". */
export function putStr(attrs: Attrs, field: string, value: string): void {
  if (value !== '' && value !== 'N/A') attrs[field] = value;
}

/** A string field Go writes only when set (addCommonSchema's checks): unlike putStr, `N/A` is kept. */
export function putIfSet(attrs: Attrs, key: string, value: string | undefined): void {
  if (value !== undefined && value !== '') attrs[key] = value;
}

/** putInt: throws when the text is not an int64 (an empty string included). */
export function putInt(attrs: Attrs, field: string, value: string): void {
  attrs[field] = requireGoInt(field, value);
}

/** putBool: skipped when strconv.ParseBool refuses the text. */
export function putBool(attrs: Attrs, field: string, value: string): void {
  const b = parseGoBool(value);
  if (b !== undefined) attrs[field] = b;
}

/** handleTime: seconds as text → integer milliseconds; throws when not a number. */
export function putMillis(attrs: Attrs, field: string, value: string): void {
  attrs[field] = requireGoMillis(field, value);
}

/** addRequestURIProperties: url.original and its parsed parts. */
export function putRequestUri(attrs: Attrs, uri: string): void {
  if (uri === '') return;
  let u;
  try {
    u = parseGoUrl(uri);
  } catch (error) {
    throw new GoValueError(
      `failed to handle "requestUri" field: failed to parse request URI "${uri}": ${(error as Error).message}`,
    );
  }
  attrs['url.original'] = uri;
  const port = goUrlPort(u.host);
  if (port !== '') putInt(attrs, 'url.port', port);
  putStr(attrs, 'url.scheme', u.scheme);
  putStr(attrs, 'url.path', u.path);
  putStr(attrs, 'url.query', u.rawQuery);
  putStr(attrs, 'url.fragment', u.fragment);
}

/** addSecurityProtocolProperties: "TLS 1.2" → tls.protocol.name/version; any other shape is an error. */
export function putSecurityProtocol(attrs: Attrs, securityProtocol: string): void {
  if (securityProtocol === '') return;
  const [name, remaining] = cut(securityProtocol, ' ');
  if (remaining === '')
    throw new GoValueError(
      `security protocol "${securityProtocol}" is missing version, expects format "<name> <version>"`,
    );
  const [version, extra] = cut(remaining, ' ');
  if (extra !== '')
    throw new GoValueError(`security protocol "${securityProtocol}" has invalid format, expects "<name> <version>"`);
  attrs['tls.protocol.name'] = name;
  attrs['tls.protocol.version'] = version;
}

/** addErrorInfoProperties over the `errorInfo` / `ErrorInfo` pair: exception.type unless "NoError". */
export function putErrorInfo(attrs: Attrs, errorInfo: string, errorInfoUpper: string): void {
  if (errorInfo !== errorInfoUpper && errorInfo !== '' && errorInfoUpper !== '') {
    throw new GoValueError('unexpected: "errorInfo" and "ErrorInfo" JSON fields have different values');
  }
  const value = errorInfoUpper !== '' ? errorInfoUpper : errorInfo;
  if (value !== '' && value !== 'NoError') attrs['exception.type'] = value;
}

/**
 * handleDestination: the backend host (or, without one, the endpoint) becomes destination.address/port;
 * an endpoint that differs from the backend host becomes network.peer.address/port.
 */
export function putDestination(attrs: Attrs, backendHostname: string, endpoint: string): void {
  if (backendHostname === '') {
    if (endpoint === '') return;
    addressFields(attrs, endpoint, 'destination.address', 'destination.port', 'endpoint');
    return;
  }
  addressFields(attrs, backendHostname, 'destination.address', 'destination.port', 'backend hostname');
  if (endpoint !== backendHostname && endpoint !== '') {
    addressFields(attrs, endpoint, 'network.peer.address', 'network.peer.port', 'endpoint');
  }
}

function addressFields(attrs: Attrs, full: string, addressField: string, portField: string, what: string): void {
  const split = splitHostPort(full);
  if (split.error !== undefined && split.error !== MISSING_PORT) {
    throw new GoValueError(`failed to parse ${what} "${full}": address ${full}: ${split.error}`);
  }
  // Without a port, Go keeps the whole value as the address.
  const host = split.error === undefined ? split.host : full;
  if (host !== '') attrs[addressField] = host;
  if (split.port !== undefined && split.port !== '') putInt(attrs, portField, split.port);
}

/** strings.Cut. */
export function cut(s: string, sep: string): [string, string] {
  const i = s.indexOf(sep);
  return i === -1 ? [s, ''] : [s.slice(0, i), s.slice(i + sep.length)];
}
