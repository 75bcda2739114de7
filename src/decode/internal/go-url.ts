/*
 * Go's net/url.Parse and net.SplitHostPort, which both Go components read URLs with (the azurelogs
 * translator's request URIs, the azure_encoding extension's AttrPutURLParsed). The WHATWG URL parser is not
 * used on purpose: it drops default ports (`:443`), normalises paths and accepts what Go refuses.
 */

/** A URL Go refuses; the message is Go's (`parse "…": …`). */
export class GoUrlError extends Error {
  override readonly name = 'GoUrlError';
}

/** The decoded parts of a URL the azurelogs translator reads, as Go's net/url gives them. */
export interface GoUrl {
  readonly scheme: string;
  /** Host with its port, as written (Go's URL.Host). */
  readonly host: string;
  /** Decoded path. */
  readonly path: string;
  readonly rawQuery: string;
  /** Decoded fragment. */
  readonly fragment: string;
}

/** The other fields of Go's URL, for writing the URL back as URL.String() does. */
export interface GoUrlParts extends GoUrl {
  /** Lower-cased scheme (as in GoUrl). */
  readonly opaque: string;
  /** The user information before `@`, as written; undefined when there is no `@`. */
  readonly userinfo: string | undefined;
  /** Path as written (escaped). */
  readonly rawPath: string;
  /** A `?` with nothing after it. */
  readonly forceQuery: boolean;
  /** Fragment as written (escaped). */
  readonly rawFragment: string;
  /** A scheme followed by `/path` with no authority (`http:/x`): String() writes no `//`. */
  readonly omitHost: boolean;
}

const HEX = /^[0-9A-Fa-f]{2}$/;
const UTF8 = new TextDecoder('utf-8');

/**
 * net/url.Parse, for what the translator reads. Unlike WHATWG URL it keeps default ports (`:443` stays
 * `443`), does not normalise the path, and refuses bad `%` escapes, control characters and bad ports.
 * Throws GoUrlError.
 */
export function parseGoUrl(raw: string): GoUrl {
  const { scheme, host, path, rawQuery, fragment } = parseGoUrlParts(raw);
  return { scheme, host, path, rawQuery, fragment };
}

/** parseGoUrl with every field of Go's URL; throws GoUrlError. */
export function parseGoUrlParts(raw: string): GoUrlParts {
  const hash = raw.indexOf('#');
  const beforeFragment = hash === -1 ? raw : raw.slice(0, hash);
  // Go checks only what comes before the fragment; a fragment may hold control characters.
  for (let i = 0; i < beforeFragment.length; i++) {
    const c = beforeFragment.charCodeAt(i);
    if (c < 0x20 || c === 0x7f) throw new GoUrlError(`parse "${raw}": net/url: invalid control character in URL`);
  }
  const rawFragment = hash === -1 ? '' : raw.slice(hash + 1);
  const fragment = urlUnescape(rawFragment, raw);
  // Every return below writes its object whole, fields in one order: spreading a shared object and
  // overriding some of its fields made V8 build each result in dictionary mode, 20 times slower (16 µs).
  if (beforeFragment === '*') {
    return {
      scheme: '',
      opaque: '',
      userinfo: undefined,
      host: '',
      path: '*',
      rawPath: '*',
      rawQuery: '',
      forceQuery: false,
      fragment,
      rawFragment,
      omitHost: false,
    };
  }

  let scheme = '';
  let rest = beforeFragment;
  for (let i = 0; i < beforeFragment.length; i++) {
    const c = beforeFragment.charCodeAt(i);
    if ((c >= 65 && c <= 90) || (c >= 97 && c <= 122)) continue; // A-Z a-z
    if ((c >= 48 && c <= 57) || c === 43 || c === 45 || c === 46) {
      // 0-9 + - .
      if (i === 0) break;
      continue;
    }
    if (c === 58) {
      // :
      if (i === 0) throw new GoUrlError(`parse "${raw}": missing protocol scheme`);
      scheme = beforeFragment.slice(0, i).toLowerCase();
      rest = beforeFragment.slice(i + 1);
    }
    break;
  }

  let rawQuery = '';
  let forceQuery = false;
  if (rest.endsWith('?') && rest.indexOf('?') === rest.length - 1) {
    rest = rest.slice(0, -1);
    forceQuery = true;
  } else {
    const q = rest.indexOf('?');
    if (q !== -1) {
      rawQuery = rest.slice(q + 1);
      rest = rest.slice(0, q);
    }
  }

  if (!rest.startsWith('/')) {
    if (scheme !== '') {
      return {
        scheme,
        opaque: rest,
        userinfo: undefined,
        host: '',
        path: '',
        rawPath: '',
        rawQuery,
        forceQuery,
        fragment,
        rawFragment,
        omitHost: false,
      };
    }
    const segment = rest.split('/', 1)[0]!;
    if (segment.includes(':')) throw new GoUrlError(`parse "${raw}": first path segment in URL cannot contain colon`);
  }

  let host = '';
  let userinfo: string | undefined;
  let omitHost = false;
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const slash = rest.indexOf('/', 2);
    const authority = slash === -1 ? rest.slice(2) : rest.slice(2, slash);
    rest = slash === -1 ? '' : rest.slice(slash);
    const at = authority.lastIndexOf('@');
    if (at !== -1) userinfo = authority.slice(0, at);
    host = checkHost(at === -1 ? authority : authority.slice(at + 1), raw);
  } else if (scheme !== '' && rest.startsWith('/')) {
    omitHost = true;
  }
  const path = urlUnescape(rest, raw);
  return {
    scheme,
    opaque: '',
    userinfo,
    host,
    path,
    rawPath: rest,
    rawQuery,
    forceQuery,
    fragment,
    rawFragment,
    omitHost,
  };
}

function checkHost(host: string, raw: string): string {
  if (host.startsWith('[')) {
    const end = host.indexOf(']');
    if (end === -1) throw new GoUrlError(`parse "${raw}": missing ']' in host`);
    const colonPort = host.slice(end + 1);
    if (!validOptionalPort(colonPort)) throw new GoUrlError(`parse "${raw}": invalid port "${colonPort}" after host`);
    return host;
  }
  const colon = host.lastIndexOf(':');
  if (colon !== -1 && !validOptionalPort(host.slice(colon))) {
    throw new GoUrlError(`parse "${raw}": invalid port "${host.slice(colon)}" after host`);
  }
  if (/[%\s<>"{}|\\^`]/.test(host)) throw new GoUrlError(`parse "${raw}": invalid character in host name`);
  return host;
}

function validOptionalPort(port: string): boolean {
  if (port === '') return true;
  return port[0] === ':' && /^[0-9]*$/.test(port.slice(1));
}

/** URL.Hostname(): the host without port and IPv6 brackets. */
export function goUrlHostname(host: string): string {
  if (host.startsWith('[')) return host.slice(1, host.indexOf(']'));
  const colon = host.lastIndexOf(':');
  return colon === -1 ? host : host.slice(0, colon);
}

/** URL.Port(): the port of a host[:port], empty when none. */
export function goUrlPort(host: string): string {
  const colon = host.lastIndexOf(':');
  if (colon === -1) return '';
  const bracket = host.indexOf(']:');
  if (bracket !== -1) return host.slice(bracket + 2);
  if (host.includes(']')) return '';
  return host.slice(colon + 1);
}

const UTF8_ENCODER = new TextEncoder();

function urlUnescape(s: string, raw: string): string {
  if (!s.includes('%')) return s;
  const bytes: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x25) {
      const hex = s.slice(i + 1, i + 3);
      if (!HEX.test(hex)) throw new GoUrlError(`parse "${raw}": invalid URL escape "%${hex}"`);
      bytes.push(Number.parseInt(hex, 16));
      i += 2;
    } else if (c < 0x80) {
      bytes.push(c);
    } else {
      // A character beyond U+FFFF is two UTF-16 units: encoded whole, not as two lone surrogates (which
      // would become U+FFFD twice); a lone surrogate becomes U+FFFD, as Go's JSON decoding makes it.
      const codePoint = s.codePointAt(i)!;
      for (const b of UTF8_ENCODER.encode(String.fromCodePoint(codePoint))) bytes.push(b);
      if (codePoint > 0xffff) i++;
    }
  }
  return UTF8.decode(new Uint8Array(bytes));
}

/** net.SplitHostPort's outcome: host and port, or Go's error reason. */
export type HostPort =
  | { host: string; port: string; error?: undefined }
  | { error: string; host?: undefined; port?: undefined };

/** Go's reason when an address has no port, which callers treat as "the whole address is the host". */
export const MISSING_PORT = 'missing port in address';

/** net.SplitHostPort, returning Go's error reason instead of throwing (a missing port is common). */
export function splitHostPort(hostport: string): HostPort {
  const i = hostport.lastIndexOf(':');
  if (i < 0) return { error: MISSING_PORT };
  let host: string;
  let j = 0;
  let k = 0;
  if (hostport[0] === '[') {
    const end = hostport.indexOf(']');
    if (end < 0) return { error: "missing ']' in address" };
    if (end + 1 === hostport.length) return { error: MISSING_PORT };
    if (end + 1 !== i) return { error: hostport[end + 1] === ':' ? 'too many colons in address' : MISSING_PORT };
    host = hostport.slice(1, end);
    j = 1;
    k = end + 1;
  } else {
    host = hostport.slice(0, i);
    if (host.includes(':')) return { error: 'too many colons in address' };
  }
  if (hostport.slice(j).includes('[')) return { error: "unexpected '[' in address" };
  if (hostport.slice(k).includes(']')) return { error: "unexpected ']' in address" };
  return { host, port: hostport.slice(i + 1) };
}
