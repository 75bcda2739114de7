/**
 * AMQP error conditions used by Event Hubs and the texts the SDK relies on. The not-found description
 * must match /The messaging entity .* could not be found/ (core-amqp errors.ts maps it to
 * MessagingEntityNotFoundError). Status codes for request/response failures follow core-amqp's
 * ConditionStatusMapper, so a reply's status code and condition agree.
 */
export const NOT_FOUND = 'amqp:not-found';
export const UNAUTHORIZED = 'amqp:unauthorized-access';
export const LINK_STOLEN = 'amqp:link:stolen';
export const MESSAGE_SIZE_EXCEEDED = 'amqp:link:message-size-exceeded';
export const ARGUMENT_OUT_OF_RANGE = 'com.microsoft:argument-out-of-range';
export const ARGUMENT_ERROR = 'com.microsoft:argument-error';
export const RESOURCE_LIMIT_EXCEEDED = 'amqp:resource-limit-exceeded';
export const NOT_IMPLEMENTED = 'amqp:not-implemented';
export const DECODE_ERROR = 'amqp:decode-error';
export const LINK_DETACH_FORCED = 'amqp:link:detach-forced';

const STATUS_BY_CONDITION: Record<string, number> = {
  'com.microsoft:timeout': 408,
  'amqp:not-found': 404,
  'amqp:not-implemented': 501,
  'amqp:link:message-size-exceeded': 403,
  'com.microsoft:server-busy': 503,
  'com.microsoft:argument-error': 400,
  'com.microsoft:argument-out-of-range': 400,
  'amqp:link:stolen': 410,
  'amqp:not-allowed': 400,
  'amqp:unauthorized-access': 401,
  'amqp:resource-limit-exceeded': 403,
};

export function statusCodeFor(condition: string): number {
  return STATUS_BY_CONDITION[condition] ?? 500;
}

export function entityNotFound(entity: string): string {
  return (
    `The messaging entity '${entity}' could not be found. To know more visit https://aka.ms/` +
    `sbResourceMgrExceptions.`
  );
}

/** The service's text when a receiver is disconnected by a newer one with a higher or equal epoch. */
export function stolenByEpoch(newEpoch: number | undefined, oldEpoch: number | undefined): string {
  return (
    `New receiver 'nil' with higher epoch of '${newEpoch ?? 0}' is created hence current receiver 'nil' with ` +
    `epoch '${oldEpoch ?? 0}' is getting disconnected. If you are recreating the receiver, make sure a higher epoch ` +
    `is used.`
  );
}

export function refusedByEpoch(requested: number | undefined, current: number): string {
  return requested === undefined
    ? `At least one receiver for the endpoint is created with epoch of '${current}', and so non-epoch receiver is ` +
        'not allowed. Either reconnect with a higher epoch, or make sure all epoch receivers are closed or ' +
        'disconnected.'
    : `Receiver 'nil' with epoch '${requested}' cannot be created because a receiver with higher epoch '${current}' ` +
        `already exists.`;
}

/**
 * The service's text when it detaches a link whose claim expired without a new token: condition
 * `amqp:link:detach-forced`, "… is force detached. Code: RenewToken. Details: Unauthorized access. 'Listen'
 * claim(s) are required …" (quoted in Azure/azure-sdk-for-python#5314, Azure/azure-event-hubs-go#81 with
 * 'Send' for a sender, dapr/components-contrib#809 and #984 with the `Code: RenewToken` form).
 */
export function claimExpired(linkName: string, right: 'Listen' | 'Send', resource: string): string {
  return (
    `The link '${linkName}' is force detached. Code: RenewToken. Details: Unauthorized access. '${right}' ` +
    `claim(s) are required to perform this operation. Resource: '${resource}'.`
  );
}
