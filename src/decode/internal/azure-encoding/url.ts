import type { LogAttributes } from '@opentelemetry/api-logs';
import { putStr } from './attributes.ts';

/*
 * URLs as Go's net/url reads them (the extension's AttrPutURLParsed). The WHATWG URL parser is not used on
 * purpose: it drops default ports (`https://h:443/` becomes `https://h/`) and normalises paths, where Go
 * keeps the text as written.
 */

interface GoUrl {
  readonly scheme: string;
  readonly userinfo: string | undefined;
  readonly host: string;
  readonly path: string;
  readonly rawPath: string;
  readonly query: string | undefined;
  readonly fragment: string | undefined;
}

/**
 * `url.full` (credentials replaced by REDACTED), `url.port`, `url.scheme`, `url.domain`, `url.path`,
 * `url.query`, `url.fragment`; a URL that does not parse becomes `url.original`.
 */
export function putUrl(attrs: LogAttributes, raw: string): void {
  if (raw === '') return;
  const u = parseGoUrl(raw);
  if (u === undefined) {
    attrs['url.original'] = raw;
    return;
  }
  attrs['url.full'] = formatUrl(u);
  const hostname = hostnameOf(u.host);
  const port = portOf(u.host);
  if (port !== '') attrs['url.port'] = Number(port);
  putStr(attrs, 'url.scheme', u.scheme);
  putStr(attrs, 'url.domain', hostname);
  putStr(attrs, 'url.path', u.path);
  putStr(attrs, 'url.query', u.query ?? '');
  putStr(attrs, 'url.fragment', u.fragment ?? '');
}

function parseGoUrl(raw: string): GoUrl | undefined {
  let rest = raw;
  let fragment: string | undefined;
  const hash = rest.indexOf('#');
  if (hash >= 0) {
    fragment = unescape(rest.slice(hash + 1));
    if (fragment === undefined) return undefined;
    rest = rest.slice(0, hash);
  }
  for (let i = 0; i < rest.length; i++) {
    const c = rest.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) return undefined;
  }
  let scheme = '';
  const schemeEnd = schemeLength(rest);
  if (schemeEnd === 0) return undefined; // ":..." is "missing protocol scheme"
  if (schemeEnd > 0) {
    scheme = rest.slice(0, schemeEnd).toLowerCase();
    rest = rest.slice(schemeEnd + 1);
  }
  let query: string | undefined;
  const q = rest.indexOf('?');
  if (q >= 0) {
    query = rest.slice(q + 1);
    rest = rest.slice(0, q);
  }
  let userinfo: string | undefined;
  let host = '';
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    let authority = slash < 0 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash < 0 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at >= 0) {
      userinfo = authority.slice(0, at);
      authority = authority.slice(at + 1);
    }
    if (!validHost(authority)) return undefined;
    host = authority;
  } else if (scheme === '') {
    const firstSegment = rest.split('/')[0] ?? '';
    if (firstSegment.includes(':')) return undefined;
  }
  const path = unescape(rest);
  if (path === undefined) return undefined;
  return { scheme, userinfo, host, path, rawPath: rest, query, fragment };
}

/** Length of a valid scheme before ':' (-1 when there is none, 0 when ':' comes first). */
function schemeLength(s: string): number {
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string;
    if (/[a-zA-Z]/.test(c)) continue;
    if (/[0-9+.-]/.test(c)) {
      if (i === 0) return -1;
      continue;
    }
    if (c === ':') return i;
    return -1;
  }
  return -1;
}

/** A host with an optional port of digits; brackets only around an IPv6 literal. */
function validHost(host: string): boolean {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end < 0) return false;
    const after = host.slice(end + 1);
    return after === '' || /^:\d*$/.test(after);
  }
  const colon = host.lastIndexOf(':');
  return colon < 0 || /^\d*$/.test(host.slice(colon + 1));
}

function hostnameOf(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon < 0 ? host : host.slice(0, colon);
}

function portOf(host: string): string {
  const colon = host.lastIndexOf(':');
  if (colon < 0 || (host.startsWith('[') && colon < host.indexOf(']'))) return '';
  return host.slice(colon + 1);
}

function formatUrl(u: GoUrl): string {
  let out = u.scheme === '' ? '' : `${u.scheme}:`;
  if (u.scheme !== '' || u.host !== '' || u.userinfo !== undefined) {
    out += '//';
    if (u.userinfo !== undefined && u.userinfo !== '') out += 'REDACTED:REDACTED@';
    out += u.host;
  }
  out += u.rawPath;
  if (u.query !== undefined && u.query !== '') out += `?${u.query}`;
  if (u.fragment !== undefined && u.fragment !== '') out += `#${u.fragment}`;
  return out;
}

/** Percent-decoding that fails on a malformed escape, as Go's does. */
function unescape(s: string): string | undefined {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
