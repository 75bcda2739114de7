/**
 * Verifies Shared Access Signature tokens as Event Hubs does:
 * `SharedAccessSignature sr=<url-encoded resource URI>&sig=<url-encoded base64 HMAC-SHA256>&se=<expiry, s
 * since the epoch>&skn=<key name>`, the signature computed with the named key over `<sr as sent>\n<se>`
 * (learn.microsoft.com "Authenticate access to Event Hubs resources using shared access signatures").
 * Error texts never include the token, the signature or the key.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export type SasVerdict = { ok: true; resource: string; expiresAtMs: number } | { ok: false; reason: string };

function resourcePath(uri: string): string {
  // Compare scopes by path only: hosts differ between 127.0.0.1, localhost and the SDK's audience forms.
  const noScheme = uri.replace(/^[a-z]+:\/\//i, '');
  const slash = noScheme.indexOf('/');
  const path = slash < 0 ? '' : noScheme.slice(slash + 1);
  return path.replace(/\/+$/, '').toLowerCase();
}

/** True when a token for `scope` grants access to `audience` (prefix match on path segments). */
export function scopeCovers(scope: string, audience: string): boolean {
  const s = resourcePath(scope);
  const a = resourcePath(audience);
  return s === '' || a === s || a.startsWith(`${s}/`);
}

/** The refusal text for a token past its expiry (SAS `se` or JWT `exp`). */
export function expiredTokenReason(expiresAtMs: number): string {
  return `ExpiredToken: the token expired at ${new Date(expiresAtMs).toISOString()}.`;
}

/** A SharedAccessSignature's expiry (`se`, s since the epoch) in ms, unverified; undefined if it has none. */
export function sasTokenExpiryMs(token: string): number | undefined {
  const se = /(?:^SharedAccessSignature |&)se=([^&]*)/.exec(token)?.[1];
  const ms = se === undefined ? NaN : Number(se) * 1000;
  return Number.isFinite(ms) ? ms : undefined;
}

export function verifySasToken(
  token: string,
  keys: Record<string, string>,
  audience: string,
  nowMs = Date.now(),
): SasVerdict {
  const prefix = 'SharedAccessSignature ';
  if (!token.startsWith(prefix)) return { ok: false, reason: 'The token is not a SharedAccessSignature.' };
  const fields = new Map<string, string>();
  for (const part of token.slice(prefix.length).split('&')) {
    const eq = part.indexOf('=');
    if (eq > 0) fields.set(part.slice(0, eq), part.slice(eq + 1));
  }
  const sr = fields.get('sr');
  const sig = fields.get('sig');
  const se = fields.get('se');
  const skn = fields.get('skn');
  if (!sr || !sig || !se || !skn) return { ok: false, reason: 'The token is missing sr, sig, se or skn.' };
  let keyName: string;
  let resource: string;
  let signature: Buffer;
  try {
    keyName = decodeURIComponent(skn);
    resource = decodeURIComponent(sr);
    signature = Buffer.from(decodeURIComponent(sig), 'base64');
  } catch {
    return { ok: false, reason: 'The token is not URL-encoded correctly.' };
  }
  const key = Object.hasOwn(keys, keyName) ? keys[keyName] : undefined;
  if (key === undefined) return { ok: false, reason: `InvalidSignature: the key name '${keyName}' is not known.` };
  const expected = createHmac('sha256', key).update(`${sr}\n${se}`).digest();
  if (expected.length !== signature.length || !timingSafeEqual(expected, signature)) {
    return { ok: false, reason: 'InvalidSignature: the token signature is not valid.' };
  }
  const expiresAtMs = Number(se) * 1000;
  if (!Number.isFinite(expiresAtMs)) return { ok: false, reason: 'The token expiry is not a number.' };
  if (expiresAtMs <= nowMs) return { ok: false, reason: expiredTokenReason(expiresAtMs) };
  if (!scopeCovers(resource, audience))
    return { ok: false, reason: `InvalidAudience: the token does not grant access to '${audience}'.` };
  return { ok: true, resource, expiresAtMs };
}
