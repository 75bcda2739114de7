/**
 * Claims-based security: before a link attaches, a token for its audience is put on `$cbs`
 * (`put-token`, type `servicebus.windows.net:sastoken` or `jwt`), and renewed before it expires.
 * SAS tokens are signed locally from the key (or used as given); Entra ID tokens come from the
 * TokenCredential with the Event Hubs scope.
 */
import type { TokenCredential } from '@azure/core-auth';
import type { SasTokenProvider } from '@azure/core-amqp';
import { Constants, TokenType, defaultCancellableLock } from '@azure/core-amqp';
import type { AmqpConnection } from './amqp-connection.ts';
import type { TokenTiming } from './token-refresh.ts';
import { MIN_TOKEN_REFRESH_DELAY_MS, tokenRefreshDelayMs } from './token-refresh.ts';

export type TokenSource =
  | { readonly kind: 'sas'; readonly provider: SasTokenProvider }
  | { readonly kind: 'jwt'; readonly credential: TokenCredential };

interface Token extends TokenTiming {
  readonly token: string;
}

/** A running renewal; `stop()` ends it. */
export interface ClaimRenewal {
  stop(): void;
}

export class CbsAuthorizer {
  readonly #source: TokenSource;
  readonly #timeoutMs: number;

  constructor(source: TokenSource, timeoutMs: number) {
    this.#source = source;
    this.#timeoutMs = timeoutMs;
  }

  /**
   * A token for `audience` (SAS) or the Event Hubs scope (Entra ID), e.g. for a management request's `security_token`.
   */
  async getToken(audience: string): Promise<Token> {
    if (this.#source.kind === 'sas') {
      const t = await this.#source.provider.getToken(audience);
      return { type: 'sas', token: t.token, expiresOnTimestamp: t.expiresOnTimestamp * 1000 };
    }
    const t = await this.#source.credential.getToken(Constants.aadEventHubsScope);
    if (!t)
      throw Object.assign(new Error('the TokenCredential returned no token'), {
        code: 'UnauthorizedError',
        retryable: false,
      });
    return {
      type: 'jwt',
      token: t.token,
      expiresOnTimestamp: t.expiresOnTimestamp,
      refreshAfterTimestamp: t.refreshAfterTimestamp,
    };
  }

  /** Puts a claim for `audience` on the connection's `$cbs` node. Rejects with the service's refusal. */
  async authorize(connection: AmqpConnection, audience: string, signal?: AbortSignal): Promise<TokenTiming> {
    const token = await this.getToken(audience);
    await connection.open();
    const lockOptions = { abortSignal: signal, timeoutInMs: this.#timeoutMs };
    await defaultCancellableLock.acquire(connection.cbsLock, () => connection.cbs.init(lockOptions), lockOptions);
    const type = token.type === 'sas' ? TokenType.CbsTokenTypeSas : TokenType.CbsTokenTypeJwt;
    await defaultCancellableLock.acquire(
      connection.negotiateClaimLock,
      () => connection.cbs.negotiateClaim(audience, token.token, type, lockOptions),
      lockOptions,
    );
    return token;
  }

  /**
   * Renews the claim for `audience` ahead of each expiry until stopped. A failed renewal is tried
   * again soon; if the token lapses anyway the service detaches the link and the reader reconnects.
   */
  keepRenewed(connection: AmqpConnection, audience: string, first: TokenTiming): ClaimRenewal {
    let timer: NodeJS.Timeout | undefined;
    let stopped = false;
    const schedule = (delayMs: number): void => {
      if (stopped) return;
      timer = setTimeout(() => {
        this.authorize(connection, audience).then(
          (timing) => schedule(tokenRefreshDelayMs(timing, Date.now())),
          () => schedule(MIN_TOKEN_REFRESH_DELAY_MS),
        );
      }, delayMs);
      timer.unref();
    };
    schedule(tokenRefreshDelayMs(first, Date.now()));
    return {
      stop() {
        stopped = true;
        if (timer) clearTimeout(timer);
      },
    };
  }
}
