/**
 * When to renew a CBS token. A claim put on `$cbs` holds until the token expires; the service then
 * detaches the links that rely on it, so each claim is renewed ahead of expiry
 * (docs/EVENT-HUBS-PROTOCOL.md, "Claims-based security").
 */

import { renewalMarginMs } from '../internal/token-lifetime.ts';

/** A SAS claim is renewed after this, well inside the hour SAS tokens we sign live (the SDK's choice). */
export const SAS_REFRESH_INTERVAL_MS = 45 * 60_000;
/** Never renew more often than this (a token that is already about to expire, or a failing renewal). */
export const MIN_TOKEN_REFRESH_DELAY_MS = 5_000;
/** setTimeout's largest delay. */
const MAX_TIMER_DELAY_MS = 2 ** 31 - 1;

export interface TokenTiming {
  readonly type: 'sas' | 'jwt';
  /** Expiry of the token, ms since epoch; 0 when unknown (a SAS signature given as is). */
  readonly expiresOnTimestamp: number;
  /** When the issuer suggests renewing (Entra ID tokens carry it), ms since epoch. */
  readonly refreshAfterTimestamp?: number | undefined;
}

/**
 * The delay until a token is renewed: 2 min before it expires, or at three quarters of a shorter remaining
 * life (token-lifetime.ts renewalMarginMs); SAS tokens at least every 45 min.
 */
export function tokenRefreshDelayMs(token: TokenTiming, nowMs: number): number {
  const left = token.expiresOnTimestamp - nowMs;
  let delay: number;
  if (token.type === 'sas') {
    delay = SAS_REFRESH_INTERVAL_MS;
    if (token.expiresOnTimestamp > 0) delay = Math.min(delay, left - renewalMarginMs(left));
  } else {
    delay = left - renewalMarginMs(left);
    if (token.refreshAfterTimestamp !== undefined) delay = Math.min(delay, token.refreshAfterTimestamp - nowMs);
  }
  return Math.min(MAX_TIMER_DELAY_MS, Math.max(MIN_TOKEN_REFRESH_DELAY_MS, delay));
}
