import type { LogAttributes } from '@opentelemetry/api-logs';
import { goUrlHostname, goUrlPort, GoUrlError, parseGoUrlParts, type GoUrlParts } from '../go-url.ts';
import { putStr } from './attributes.ts';

/*
 * The extension's AttrPutURLParsed: the URL read by Go's net/url (../go-url.ts, shared with the azurelogs
 * translator, which parses with the same Go function) and written back with its credentials redacted.
 */

/**
 * `url.full` (credentials replaced by REDACTED), `url.port`, `url.scheme`, `url.domain`, `url.path`,
 * `url.query`, `url.fragment`; a URL that does not parse becomes `url.original`.
 */
export function putUrl(attrs: LogAttributes, raw: string): void {
  if (raw === '') return;
  let u: GoUrlParts;
  try {
    u = parseGoUrlParts(raw);
  } catch (error) {
    if (!(error instanceof GoUrlError)) throw error;
    attrs['url.original'] = raw;
    return;
  }
  attrs['url.full'] = formatUrl(u);
  const port = goUrlPort(u.host);
  if (port !== '') attrs['url.port'] = Number(port);
  putStr(attrs, 'url.scheme', u.scheme);
  putStr(attrs, 'url.domain', goUrlHostname(u.host));
  putStr(attrs, 'url.path', u.path);
  putStr(attrs, 'url.query', u.rawQuery);
  putStr(attrs, 'url.fragment', u.fragment);
}

/** URL.String() of Go, with any user information written as `REDACTED:REDACTED`. */
function formatUrl(u: GoUrlParts): string {
  let out = u.scheme === '' ? '' : `${u.scheme}:`;
  if (u.opaque !== '') {
    out += u.opaque;
  } else {
    if (
      (u.scheme !== '' || u.host !== '' || u.userinfo !== undefined) &&
      !(u.omitHost && u.host === '' && u.userinfo === undefined)
    ) {
      if (u.host !== '' || u.path !== '' || u.userinfo !== undefined) out += '//';
      if (u.userinfo !== undefined && u.userinfo !== '') out += 'REDACTED:REDACTED@';
      out += u.host;
    }
    out += u.rawPath;
  }
  if (u.forceQuery || u.rawQuery !== '') out += `?${u.rawQuery}`;
  if (u.fragment !== '') out += `#${u.rawFragment}`;
  return out;
}
