import type { AnyValueMap } from '@opentelemetry/api-logs';
import { GoUrlError, parseGoUrl, type GoUrl } from '../go-url.ts';
import type { TraceFields } from './trace-fields.ts';
import { markDoubleKey } from '../../../pipeline/double-values.ts';

/*
 * Span attributes with the names and values the Go receiver's traces translator writes (pkg/translator/azure,
 * resources_to_traces.go, the semconv v1.39 version). Like Go, every attribute of the record's table is
 * written even when its field is missing: strings as "" and the two body sizes as 0.0.
 */

/** `Properties` keys Go maps to attributes of their own and so does not copy (dependencies). */
const MAPPED_PROPERTIES = new Set(['HTTP Method', 'Backend Method', 'Request-User-Agent']);

/** Go's unicode.IsSpace, which bytes.Fields splits on (not JS `\s`: it has U+0085 and lacks U+FEFF). */
const GO_SPACES = /[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+/;

const EMPTY_URL: GoUrl = { scheme: '', host: '', path: '', rawQuery: '', fragment: '' };

/** The attributes of a request (`AppRequests`, a server span) or dependency (`AppDependencies`, a client span). */
export function spanAttributes(f: TraceFields): AnyValueMap {
  const a: AnyValueMap = {
    'operation.name': f.operationName,
    'cloud.app.name': f.appRoleName,
    'cloud.app.instance': f.appRoleInstance,
    'cloud.span.type': f.type,
    'azure.client.sdk.version': f.sdkVersion,
    'user_agent.original': f.properties['Request-User-Agent'] ?? '',
  };
  if (f.type === 'AppRequests') {
    const url = goUrl(f.url);
    a['http.request.method'] = f.properties['HTTP Method'] ?? '';
    a['server.address'] = url.host;
    a['url.path'] = url.path;
    a['url.scheme'] = url.scheme;
    a['client.address'] = f.clientIp;
    a['client.geo.locality.name'] = f.clientCity;
    a['client.type'] = f.clientType;
    a['client.geo.region.iso_code'] = f.clientStateOrProvince;
    a['client.geo.country.iso_code'] = f.clientCountryOrRegion;
    // A string, as Go writes it (semconv has an int); an int here would break queries built on Go's output.
    a['http.response.status_code'] = f.resultCode;
    // Go writes doubles; a whole number leaves our exporters as an int (a JS number has no int/double flag).
    // float64 in Go's record struct: doubles on the wire (pipeline/double-values.ts).
    a['http.response.body.size'] = f.measurements['Response Size'] ?? 0;
    a['http.request.body.size'] = f.measurements['Request Size'] ?? 0;
    markDoubleKey(a, 'http.response.body.size');
    markDoubleKey(a, 'http.request.body.size');
    a['http.route'] = url.path;
    a['url.full'] = f.url;
    return a;
  }
  // AppDependencies
  if (f.dependencyType === 'Backend') a['http.request.method'] = f.properties['Backend Method'] ?? '';
  else if (f.dependencyType === 'HTTP') a['http.request.method'] = f.properties['HTTP Method'] ?? '';
  const target = goUrl(f.target);
  a['server.address'] = target.host;
  a['url.scheme'] = target.scheme;
  a['url.full'] = f.target;
  // `Name` is "<verb> <path>" for HTTP dependencies: Go takes its second word as the path.
  a['url.path'] = f.name.split(GO_SPACES).filter((w) => w !== '')[1] ?? '';
  for (const key in f.properties) {
    if (!MAPPED_PROPERTIES.has(key)) a[key] = f.properties[key]!;
  }
  return a;
}

/**
 * The common `scheme://host[:port][/path][?query][#fragment]` with nothing Go would decode or refuse (no `%`,
 * no control characters, no user info or brackets, a plain host): its parts are the text itself. Five times
 * faster than the full parser, which takes every other URL.
 */
const PLAIN_URL =
  /^([A-Za-z][A-Za-z0-9+.-]*):\/\/([A-Za-z0-9._~-]+(?::[0-9]*)?)(\/[^?#%\p{Cc}]*)?(?:\?[^#%\p{Cc}]*)?(?:#[^%]*)?$/u;

/**
 * Go's url.Parse. Go ignores the error and reads the nil result, which panics (the collector stops);
 * a URL Go cannot parse gives empty parts here instead.
 */
export function goUrl(raw: string): GoUrl {
  if (raw === '') return EMPTY_URL;
  const plain = PLAIN_URL.exec(raw);
  if (plain !== null) {
    return { scheme: plain[1]!.toLowerCase(), host: plain[2]!, path: plain[3] ?? '', rawQuery: '', fragment: '' };
  }
  try {
    return parseGoUrl(raw);
  } catch (error) {
    if (error instanceof GoUrlError) return EMPTY_URL;
    throw error;
  }
}
