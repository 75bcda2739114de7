/**
 * How long the tokens our clients put on `$cbs` live and when they are renewed, shared by both backends.
 * A claim holds until its token expires; the service then detaches the links that rely on it
 * (docs/EVENT-HUBS-PROTOCOL.md, "Claims-based security"), so every claim is renewed ahead of expiry.
 */
import { createHmac } from 'node:crypto';

/** SAS tokens signed from a key live an hour, as the Azure SDKs sign them (core-amqp 4.4.2 tokenProvider.ts). */
export const DEFAULT_SAS_TOKEN_LIFETIME_MS = 3_600_000;
/** The shortest `sasTokenLifetimeMs` accepted: renewals then come every 7.5 s. */
export const MIN_SAS_TOKEN_LIFETIME_MS = 10_000;
/** A token is renewed this long before it expires (the SDKs' margin), or a quarter of its life if that is shorter. */
export const TOKEN_RENEWAL_MARGIN_MS = 2 * 60_000;

/** How long before expiry a token with `lifetimeMs` left is renewed. */
export function renewalMarginMs(lifetimeMs: number): number {
  return Math.min(TOKEN_RENEWAL_MARGIN_MS, Math.max(0, lifetimeMs) / 4);
}

/** Checks a `sasTokenLifetimeMs` option; returns the lifetime to use. */
export function resolveSasTokenLifetimeMs(lifetimeMs: number | undefined): number {
  if (lifetimeMs === undefined) return DEFAULT_SAS_TOKEN_LIFETIME_MS;
  if (!Number.isFinite(lifetimeMs) || lifetimeMs < MIN_SAS_TOKEN_LIFETIME_MS) {
    throw new RangeError(
      `sasTokenLifetimeMs (${lifetimeMs}) must be at least ${MIN_SAS_TOKEN_LIFETIME_MS} ms; omit it for the default ` +
        `hour`,
    );
  }
  return Math.floor(lifetimeMs);
}

/**
 * A Shared Access Signature for `resource`, valid until `expiresAtS` (s since the epoch):
 * `SharedAccessSignature sr=<url-encoded resource>&sig=<url-encoded base64 HMAC-SHA256 of "<sr>\n<se>">&se=..&skn=..`
 * (learn.microsoft.com, "Authenticate access to Event Hubs resources using shared access signatures").
 */
export function signSasToken(keyName: string, key: string, resource: string, expiresAtS: number): string {
  const sr = encodeURIComponent(resource);
  const sig = encodeURIComponent(createHmac('sha256', key).update(`${sr}\n${expiresAtS}`).digest('base64'));
  return `SharedAccessSignature sr=${sr}&sig=${sig}&se=${expiresAtS}&skn=${encodeURIComponent(keyName)}`;
}
