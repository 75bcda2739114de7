/**
 * Reads on the hub's `$management` node: `operation=READ` with `type=com.microsoft:eventhub` (hub) or
 * `com.microsoft:partition` (+ `partition`), answered with an AMQP map (docs/EVENT-HUBS-PROTOCOL.md,
 * "Management"). The request-response link is `@azure/core-amqp`'s RequestResponseLink; each request
 * is one `retry()`ed operation that re-creates the link (and its claim) when the connection dropped.
 */
import type { RetryOptions } from '@azure/core-amqp';
import { RequestResponseLink, RetryMode, RetryOperationType, retry, translate } from '@azure/core-amqp';
import { generate_uuid } from 'rhea-promise';
import type { ResolvedRetry } from '../internal/defaults.ts';
import { classifyError } from '../internal/classify-error.ts';
import type { AmqpConnection } from './amqp-connection.ts';
import type { CbsAuthorizer, ClaimRenewal } from './cbs-authorizer.ts';

const MANAGEMENT_ADDRESS = '$management';

export function toCoreAmqpRetry(retry: ResolvedRetry): RetryOptions {
  return {
    maxRetries: retry.maxRetries,
    retryDelayInMs: retry.retryDelayMs,
    maxRetryDelayInMs: retry.maxRetryDelayMs,
    timeoutInMs: retry.timeoutMs,
    mode: RetryMode.Exponential,
  };
}

/**
 * Translates an error with `@azure/core-amqp` and stops `retry()` from retrying what cannot succeed:
 * core-amqp counts a refused credential as retryable (for key rotation), we do not; nor anything permanent.
 */
export function translateForRetry(error: unknown): Error {
  const translated = translate(error) as Error & { retryable?: boolean };
  const c = classifyError(translated);
  if (c.permanent || c.kind === 'ownershipLost') translated.retryable = false;
  return translated;
}

export class ManagementClient {
  readonly #connection: AmqpConnection;
  readonly #authorizer: CbsAuthorizer;
  readonly #hub: string;
  readonly #retry: ResolvedRetry;
  readonly #replyTo = `${MANAGEMENT_ADDRESS}-reply-${generate_uuid()}`;
  #link: RequestResponseLink | undefined;
  #linking: Promise<RequestResponseLink> | undefined;
  #renewal: ClaimRenewal | undefined;

  constructor(connection: AmqpConnection, authorizer: CbsAuthorizer, hub: string, retry: ResolvedRetry) {
    this.#connection = connection;
    this.#authorizer = authorizer;
    this.#hub = hub;
    this.#retry = retry;
  }

  get #audience(): string {
    return `${this.#connection.endpoint}${this.#hub}/${MANAGEMENT_ADDRESS}`;
  }

  /** One READ; resolves with the reply body (an AMQP map as a plain object). */
  async read(
    properties: Record<string, string>,
    requestName: string,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown>> {
    const operation = async (): Promise<Record<string, unknown>> => {
      try {
        const link = await this.#ensureLink(signal);
        const token = await this.#authorizer.getToken(this.#audience.slice(0, -`/${MANAGEMENT_ADDRESS}`.length));
        const reply = await link.sendRequest(
          {
            body: Buffer.from('[]'),
            message_id: generate_uuid(),
            reply_to: this.#replyTo,
            application_properties: { operation: 'READ', name: this.#hub, ...properties, security_token: token.token },
          },
          { abortSignal: signal, timeoutInMs: this.#retry.timeoutMs, requestName },
        );
        return (reply.body ?? {}) as Record<string, unknown>;
      } catch (error) {
        throw translateForRetry(error);
      }
    };
    return retry({
      operation,
      connectionId: this.#connection.connectionId,
      operationType: RetryOperationType.management,
      retryOptions: toCoreAmqpRetry(this.#retry),
      ...(signal ? { abortSignal: signal } : {}),
    });
  }

  close(): void {
    this.#renewal?.stop();
    this.#renewal = undefined;
    const link = this.#link;
    this.#link = undefined;
    try {
      link?.remove();
    } catch {
      // The connection is closing anyway.
    }
  }

  #ensureLink(signal?: AbortSignal): Promise<RequestResponseLink> {
    if (this.#link?.isOpen() && this.#link.connection.isOpen()) return Promise.resolve(this.#link);
    this.#linking ??= (async () => {
      this.close();
      const timing = await this.#authorizer.authorize(this.#connection, this.#audience, signal);
      const connection = await this.#connection.open();
      const link = await RequestResponseLink.create(
        connection,
        { target: { address: MANAGEMENT_ADDRESS } },
        { source: { address: MANAGEMENT_ADDRESS }, name: this.#replyTo, target: { address: this.#replyTo } },
        signal ? { abortSignal: signal } : {},
      );
      this.#link = link;
      this.#renewal = this.#authorizer.keepRenewed(this.#connection, this.#audience, timing);
      return link;
    })().finally(() => {
      this.#linking = undefined;
    });
    return this.#linking;
  }
}
