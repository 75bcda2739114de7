/**
 * One classification of backend failures for both backends. It reads only the fields the Azure
 * libraries put on their errors (`code`, `name`, `retryable`, `condition`, `description`;
 * `@azure/core-amqp`'s `translate()` maps AMQP conditions to these codes), so it needs neither library.
 * A permanent failure (the hub, group or partition does not exist, the credential is refused, the hub
 * refuses the start position) names the config key to fix; see docs/backends.md, "Errors".
 */
import { BackendError, OwnershipLostError } from '../consumer.ts';
import { redact } from '../../component/redact.ts';

export type ErrorKind =
  /** `amqp:link:stolen`: a reader with a higher owner level took the partition. Never retried. */
  | 'ownershipLost'
  /** The credential was refused (wrong key, expired SAS, missing rights). Permanent. */
  | 'unauthorized'
  /** The HTTP proxy of AMQP over WebSockets refused its credentials (407). Permanent. */
  | 'proxyAuthenticationRequired'
  /** The namespace has no event hub of that name. Permanent. */
  | 'hubNotFound'
  /** The hub has no consumer group of that name. Permanent. */
  | 'consumerGroupNotFound'
  /** The hub has no partition of that id. Permanent. */
  | 'partitionNotFound'
  /** The hub refused the start position (malformed, or past the end of the partition). Permanent. */
  | 'invalidStartPosition'
  /** Transient: reconnect and resume. */
  | 'transient'
  /** Anything else the service or the library says is not retryable. */
  | 'fatal';

/** Where the settings a permanent failure points at came from, as config keys (docs/configuration.md). */
export interface ConfigKeys {
  /** The hub name: `event_hub.name`, or `connection` when only the connection string's EntityPath names it. */
  readonly hub?: string;
  /** The credential: `connection` (key or SAS in the connection string) or `auth` (Entra ID). */
  readonly auth?: string;
  /** The proxy: `proxy_url`, or `HTTPS_PROXY` when the environment named it. */
  readonly proxy?: string;
  /** A reader's start position: `start_position`, `partition_start`, `offset` or `checkpoint`. Readers only. */
  readonly startPosition?: string;
}

export interface Classified {
  readonly kind: ErrorKind;
  /** True when retrying with the same configuration cannot succeed (every kind but transient, fatal, ownershipLost). */
  readonly permanent: boolean;
  /** The config key to fix, for a permanent failure. */
  readonly configKey: string | undefined;
  /** One sentence: what to do, for a permanent failure. */
  readonly hint: string | undefined;
  readonly condition: string | undefined;
  readonly code: string | undefined;
  readonly message: string;
}

/** `@azure/core-amqp`'s error names (`ConditionErrorNameMapper`) for the conditions we single out. */
const OWNERSHIP_CODES = new Set(['ReceiverDisconnectedError']);
const OWNERSHIP_CONDITIONS = new Set(['amqp:link:stolen']);
const AUTH_CODES = new Set(['UnauthorizedError', 'Unauthorized']);
const AUTH_CONDITIONS = new Set(['amqp:unauthorized-access', 'com.microsoft:auth-failed']);
const NOT_FOUND_CODES = new Set(['MessagingEntityNotFoundError']);
const NOT_FOUND_CONDITION = 'amqp:not-found';
/** core-amqp's translation of the service's not-found description (errors.ts `translate`). */
const NOT_FOUND_TEXT = /The messaging entity '([^']*)' could not be found/i;
const OUT_OF_RANGE_CODES = new Set(['ArgumentOutOfRangeError']);
const OUT_OF_RANGE_CONDITION = 'com.microsoft:argument-out-of-range';
const ARGUMENT_CODES = new Set(['ArgumentError']);
const ARGUMENT_CONDITION = 'com.microsoft:argument-error';
/** Our own codes, set where a backend refuses a value before it reaches the service. */
const OWN_CODES: Readonly<Record<string, ErrorKind>> = {
  HubNotFound: 'hubNotFound',
  ConsumerGroupNotFound: 'consumerGroupNotFound',
  PartitionNotFound: 'partitionNotFound',
  InvalidStartPosition: 'invalidStartPosition',
};
/** Retryable even when a library leaves `retryable` unset (e.g. an abrupt socket close). */
const TRANSIENT_CODES = new Set([
  'ServerBusyError',
  'ServiceUnavailableError',
  'DetachForcedError',
  'ConnectionForcedError',
  'ConnectionLostError',
  'OperationTimeoutError',
  'InternalServerError',
  'ECONNRESET',
  'ECONNREFUSED',
  'EPIPE',
  'ETIMEDOUT',
  // The socket ended under a write, or the peer broke the framing: the connection is gone, a new one is fine.
  'ERR_STREAM_WRITE_AFTER_END',
  'ERR_STREAM_DESTROYED',
  'ProtocolError',
]);

/**
 * rhea throws these plain errors when the peer breaks frame order (e.g. a transfer after its detach or
 * close, which the emulator's injected connection close can produce). The connection is unusable, a new
 * one is fine: transient.
 */
/** The `ws` client's text when the proxy answers the CONNECT (or the server the upgrade) with 407. */
const PROXY_REFUSED_TEXT = /Unexpected server response: 407\b/;

const PEER_PROTOCOL_ERRORS = /^(transfer after detach|frame sequence error|Detach already received)/;

/** The BackendError `code` of each permanent kind: stable, for callers and docs. */
export const PERMANENT_CODES: Readonly<Partial<Record<ErrorKind, string>>> = {
  unauthorized: 'Unauthorized',
  proxyAuthenticationRequired: 'ProxyAuthenticationRequired',
  hubNotFound: 'HubNotFound',
  consumerGroupNotFound: 'ConsumerGroupNotFound',
  partitionNotFound: 'PartitionNotFound',
  invalidStartPosition: 'InvalidStartPosition',
};

const SUMMARY: Readonly<Partial<Record<ErrorKind, string>>> = {
  unauthorized: 'the credential was refused',
  proxyAuthenticationRequired: 'the proxy refused its credentials',
  hubNotFound: 'the event hub does not exist',
  consumerGroupNotFound: 'the consumer group does not exist',
  partitionNotFound: 'the partition does not exist',
  invalidStartPosition: 'the hub refused the start position',
};

function field(error: unknown, key: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[key] : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

function textOf(error: unknown): string {
  if (error instanceof Error) return error.message;
  // An AMQP error as rhea reports it on a detach: `{ condition, description }`.
  const description = str(field(error, 'description'));
  if (description) return description;
  return String(error);
}

/** The errors inside an AggregateError (what `@azure/core-amqp`'s `retry()` throws after several attempts). */
function leaves(error: unknown): unknown[] {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.flatMap(leaves);
  return [error];
}

/**
 * Which entity a not-found names. The emulator and the service's public form say
 * `sb://host/<hub>/ConsumerGroups/<cg>`; the service's internal form says `<ns>:eventhub:<hub>~<n>|<cg>`.
 */
function notFoundKind(text: string): ErrorKind {
  const entity = NOT_FOUND_TEXT.exec(text)?.[1] ?? '';
  return /\/consumergroups\//i.test(entity) || /\|[^|]+$/.test(entity) ? 'consumerGroupNotFound' : 'hubNotFound';
}

function kindOf(
  error: unknown,
  code: string | undefined,
  condition: string | undefined,
  text: string,
  keys: ConfigKeys,
): ErrorKind {
  if ((code && OWNERSHIP_CODES.has(code)) || (condition && OWNERSHIP_CONDITIONS.has(condition))) return 'ownershipLost';
  if ((code && AUTH_CODES.has(code)) || (condition && AUTH_CONDITIONS.has(condition))) return 'unauthorized';
  if (code && Object.hasOwn(OWN_CODES, code)) return OWN_CODES[code]!;
  if (PROXY_REFUSED_TEXT.test(text)) return 'proxyAuthenticationRequired';
  if ((code && NOT_FOUND_CODES.has(code)) || condition === NOT_FOUND_CONDITION || NOT_FOUND_TEXT.test(text)) {
    return notFoundKind(text);
  }
  const outOfRange = (code && OUT_OF_RANGE_CODES.has(code)) || condition === OUT_OF_RANGE_CONDITION;
  // The service says "The specified partition is invalid ..." for an unknown partition id.
  if (outOfRange && /partition/i.test(text) && !/sequence number|offset/i.test(text)) return 'partitionNotFound';
  // A position error only means the start position where one was sent: a reader's attach.
  const argument = outOfRange || (code && ARGUMENT_CODES.has(code)) || condition === ARGUMENT_CONDITION;
  if (argument && keys.startPosition !== undefined) return 'invalidStartPosition';
  const retryable = field(error, 'retryable');
  if (retryable === true || (retryable === undefined && code !== undefined && TRANSIENT_CODES.has(code)))
    return 'transient';
  if (retryable !== false && PEER_PROTOCOL_ERRORS.test(text)) return 'transient';
  return 'fatal';
}

function configKeyOf(kind: ErrorKind, keys: ConfigKeys): string | undefined {
  switch (kind) {
    case 'unauthorized':
      return keys.auth ?? 'connection';
    case 'proxyAuthenticationRequired':
      return keys.proxy ?? 'proxy_url';
    case 'hubNotFound':
      return keys.hub ?? 'event_hub.name';
    case 'consumerGroupNotFound':
      return 'group';
    case 'partitionNotFound':
      return 'partition';
    case 'invalidStartPosition':
      return keys.startPosition ?? 'start_position';
    default:
      return undefined;
  }
}

function hintOf(kind: ErrorKind, configKey: string | undefined): string | undefined {
  switch (kind) {
    case 'unauthorized':
      return configKey === 'auth'
        ? 'Give the identity in auth the "Azure Event Hubs Data Receiver" role on the hub or its namespace.'
        : 'Check the key name and key (or renew the SAS token) in connection; it needs the Listen right on the hub.';
    case 'proxyAuthenticationRequired':
      return (
        `Give the proxy's user name and password in ${configKey} ` +
        '(http://user:password@host:port; percent-encode special characters).'
      );
    case 'hubNotFound':
      return configKey === 'connection'
        ? 'Set EntityPath in connection (or event_hub.name) to an event hub that exists in the namespace.'
        : 'Set event_hub.name to an event hub that exists in the namespace (names are case-insensitive).';
    case 'consumerGroupNotFound':
      return 'Create the consumer group on the hub, or set group to one that exists ($Default always does).';
    case 'partitionNotFound':
      return 'Set partition to one of the ids the hub lists (0 to partition count - 1), or remove it.';
    case 'invalidStartPosition':
      return configKey === 'checkpoint'
        ? 'The checkpoint lies past the end of the partition (was the hub recreated?); reset it with the checkpoints ' +
            'tool.'
        : `Set ${configKey} to a position the partition holds (an offset or sequence number it reported), or remove ` +
            `it.`;
    default:
      return undefined;
  }
}

function classifyOne(error: unknown, keys: ConfigKeys): Classified {
  const code = str(field(error, 'code')) ?? str(field(error, 'name'));
  const condition = str(field(error, 'condition'));
  const text = textOf(error);
  const message = redact(text);
  const kind = kindOf(error, code, condition, text, keys);
  const permanent = PERMANENT_CODES[kind] !== undefined;
  const configKey = permanent ? configKeyOf(kind, keys) : undefined;
  const hint = permanent ? hintOf(kind, configKey) : undefined;
  return {
    kind,
    permanent,
    configKey,
    hint,
    condition: kind === 'ownershipLost' ? (condition ?? 'amqp:link:stolen') : condition,
    code,
    message,
  };
}

/** Ownership lost outranks a permanent failure, which outranks a fatal, then a transient one. */
const SEVERITY: Record<ErrorKind, number> = {
  transient: 0,
  fatal: 1,
  invalidStartPosition: 2,
  partitionNotFound: 2,
  consumerGroupNotFound: 2,
  hubNotFound: 2,
  unauthorized: 3,
  proxyAuthenticationRequired: 3,
  ownershipLost: 4,
};

/** Classifies an error; for an AggregateError the most severe inner error decides. */
export function classifyError(error: unknown, keys: ConfigKeys = {}): Classified {
  let worst: Classified | undefined;
  for (const leaf of leaves(error)) {
    const c = classifyOne(leaf, keys);
    if (!worst || SEVERITY[c.kind] > SEVERITY[worst.kind]) worst = c;
  }
  return worst ?? classifyOne(error, keys);
}

/**
 * The BackendError a reader or a management call rejects with. The message is redacted: SDK errors
 * sometimes quote the connection string they could not parse or the token the service refused. A
 * permanent failure's message starts with what is wrong and the config key, e.g.
 * `partition 0: the consumer group does not exist (check group): The messaging entity ... could not be found.`
 */
export function toBackendError(error: unknown, context: string, keys: ConfigKeys = {}): BackendError {
  if (error instanceof BackendError) return error;
  const c = classifyError(error, keys);
  const summary = c.permanent ? `${SUMMARY[c.kind]} (check ${c.configKey}): ` : '';
  const message = `${context}: ${summary}${c.message}${c.code ? ` (${c.code})` : ''}`;
  // A cause whose text held a secret is not attached: whoever logs `cause` would print it.
  const raw = textOf(error);
  const cause = redact(raw) === raw ? error : undefined;
  if (c.kind === 'ownershipLost') return new OwnershipLostError(message, cause);
  const code = PERMANENT_CODES[c.kind] ?? c.code;
  return new BackendError(message, {
    retryable: c.kind === 'transient',
    permanent: c.permanent,
    ...(c.configKey ? { configKey: c.configKey } : {}),
    ...(c.hint ? { hint: c.hint } : {}),
    ...(c.condition ? { condition: c.condition } : {}),
    ...(code ? { code } : {}),
    cause,
  });
}
