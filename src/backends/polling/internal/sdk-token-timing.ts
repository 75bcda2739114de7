/**
 * When @azure/event-hubs renews the claims it puts, and the credentials that make it renew short-lived
 * tokens in time. Written for @azure/event-hubs 6.0.4 (withAuth.ts; test/unit/backends/polling/
 * sdk-token-timing.test.ts fails when the installed version or these constants change):
 * - a SasTokenProvider (what the SDK makes of a connection string's key) signs hour-long tokens
 *   (core-amqp tokenProvider.ts) renewed every 45 min, whatever the token's expiry;
 * - any other credential is treated as Entra ID: its claims are typed `jwt` and renewed every
 *   `expiresOnTimestamp - now - 2 min` of the FIRST token, a fixed interval. A token living 2 min or less
 *   would make that interval 0 or negative, and the SDK would put claims in a loop without pause.
 * So credentials here report to the SDK the expiry that makes its interval our renewal time
 * (token-lifetime.ts: 2 min before expiry, or at three quarters of a shorter life). The SDK does not send
 * the expiry to the service; the token itself carries it (SAS `se`, JWT `exp`).
 */
import type { AccessToken, TokenCredential } from '@azure/core-auth';
import { renewalMarginMs, signSasToken } from '../../internal/token-lifetime.ts';

/** How long before a jwt-typed token's expiry the SDK renews it (withAuth.ts getAadToken). */
export const SDK_JWT_RENEWAL_MARGIN_MS = 2 * 60_000;
/** The SDK's renewal interval for SasTokenProviders (withAuth.ts getSharedKeyBasedToken). */
export const SDK_SAS_RENEWAL_INTERVAL_MS = 45 * 60_000;

/** The expiry to report to the SDK so that it renews a token expiring at `expiresAtMs` in time. */
export function expiryForSdkMs(expiresAtMs: number, nowMs: number): number {
  const left = expiresAtMs - nowMs;
  return nowMs + left - renewalMarginMs(left) + SDK_JWT_RENEWAL_MARGIN_MS;
}

/**
 * Wraps a TokenCredential so that the SDK renews its tokens in time however short they live. For tokens
 * living 8 min or more (Entra ID's are 60-90 min) the reported expiry is the real one.
 */
export function withTimelyRenewal(credential: TokenCredential): TokenCredential {
  return {
    async getToken(scopes, options) {
      const token = await credential.getToken(scopes, options);
      if (!token) return token;
      return { ...token, expiresOnTimestamp: expiryForSdkMs(token.expiresOnTimestamp, Date.now()) };
    },
  };
}

/**
 * A credential signing SAS tokens from a key that live `lifetimeMs`, for the SDK's jwt path (the only one
 * whose renewal follows the token; the service checks a SAS token as one whatever type the claim names, as
 * the Python SDK relies on). The SDK asks a TokenCredential for a scope, not an audience, so each token is
 * signed for `resource` (the hub: it covers the hub's partitions and `$management`).
 */
export function sasKeyCredential(keyName: string, key: string, resource: string, lifetimeMs: number): TokenCredential {
  return {
    async getToken(): Promise<AccessToken> {
      const nowMs = Date.now();
      const expiresAtS = Math.floor((nowMs + lifetimeMs) / 1000);
      return {
        token: signSasToken(keyName, key, resource, expiresAtS),
        expiresOnTimestamp: expiryForSdkMs(expiresAtS * 1000, nowMs),
      };
    },
  };
}
