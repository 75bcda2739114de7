/**
 * One classification of backend failures for both backends. It reads only the fields the Azure
 * libraries put on their errors (`code`, `name`, `retryable`, `condition`; `@azure/core-amqp`'s
 * `translate()` maps AMQP conditions to these codes), so it needs neither library itself.
 */
import { BackendError, OwnershipLostError } from '../consumer.ts';
import { redact } from '../../component/redact.ts';

export type ErrorKind =
  /** `amqp:link:stolen`: a reader with a higher owner level took the partition. Never retried. */
  | 'ownershipLost'
  /** The credential was refused. Retrying with the same credential cannot help. */
  | 'unauthorized'
  /** Transient: reconnect and resume. */
  | 'transient'
  /** Anything else the service or the library says is not retryable. */
  | 'fatal';

export interface Classified {
  readonly kind: ErrorKind;
  readonly condition: string | undefined;
  readonly code: string | undefined;
  readonly message: string;
}

/** `@azure/core-amqp`'s error names (`ConditionErrorNameMapper`) for the conditions we single out. */
const OWNERSHIP_CODES = new Set(['ReceiverDisconnectedError']);
const OWNERSHIP_CONDITIONS = new Set(['amqp:link:stolen']);
const AUTH_CODES = new Set(['UnauthorizedError']);
const AUTH_CONDITIONS = new Set(['amqp:unauthorized-access', 'com.microsoft:auth-failed']);
/** Retryable even when a library leaves `retryable` unset (e.g. an abrupt socket close). */
const TRANSIENT_CODES = new Set([
  'ServerBusyError', 'ServiceUnavailableError', 'DetachForcedError', 'ConnectionForcedError', 'ConnectionLostError',
  'OperationTimeoutError', 'InternalServerError', 'ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT',
  // The socket ended under a write, or the peer broke the framing: the connection is gone, a new one is fine.
  'ERR_STREAM_WRITE_AFTER_END', 'ERR_STREAM_DESTROYED', 'ProtocolError',
]);

/**
 * rhea throws these plain errors when the peer breaks frame order (e.g. a transfer after its detach or
 * close, which the emulator's injected connection close can produce). The connection is unusable, a new
 * one is fine: transient.
 */
const PEER_PROTOCOL_ERRORS = /^(transfer after detach|frame sequence error|Detach already received)/;

function field(error: unknown, key: string): unknown {
  return typeof error === 'object' && error !== null ? (error as Record<string, unknown>)[key] : undefined;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value ? value : undefined;
}

/** The errors inside an AggregateError (what `@azure/core-amqp`'s `retry()` throws after several attempts). */
function leaves(error: unknown): unknown[] {
  if (error instanceof AggregateError && error.errors.length > 0) return error.errors.flatMap(leaves);
  return [error];
}

function classifyOne(error: unknown): Classified {
  const code = str(field(error, 'code')) ?? str(field(error, 'name'));
  const condition = str(field(error, 'condition'));
  const message = redact(error instanceof Error ? error.message : String(error));
  if ((code && OWNERSHIP_CODES.has(code)) || (condition && OWNERSHIP_CONDITIONS.has(condition))) return { kind: 'ownershipLost', condition: condition ?? 'amqp:link:stolen', code, message };
  if ((code && AUTH_CODES.has(code)) || (condition && AUTH_CONDITIONS.has(condition))) return { kind: 'unauthorized', condition, code, message };
  const retryable = field(error, 'retryable');
  if (retryable === true || (retryable === undefined && code !== undefined && TRANSIENT_CODES.has(code))) return { kind: 'transient', condition, code, message };
  if (retryable !== false && PEER_PROTOCOL_ERRORS.test(message)) return { kind: 'transient', condition, code, message };
  return { kind: 'fatal', condition, code, message };
}

const SEVERITY: Record<ErrorKind, number> = { transient: 0, fatal: 1, unauthorized: 2, ownershipLost: 3 };

/** Classifies an error; for an AggregateError the most severe inner error decides. */
export function classifyError(error: unknown): Classified {
  let worst: Classified | undefined;
  for (const leaf of leaves(error)) {
    const c = classifyOne(leaf);
    if (!worst || SEVERITY[c.kind] > SEVERITY[worst.kind]) worst = c;
  }
  return worst ?? classifyOne(error);
}

/**
 * The BackendError a reader or a management call rejects with. The message is redacted: SDK errors
 * sometimes quote the connection string they could not parse or the token the service refused.
 */
export function toBackendError(error: unknown, context: string): BackendError {
  if (error instanceof BackendError) return error;
  const c = classifyError(error);
  const message = `${context}: ${c.message}${c.code ? ` (${c.code})` : ''}`;
  // A cause whose text held a secret is not attached: whoever logs `cause` would print it.
  const raw = error instanceof Error ? error.message : String(error);
  const cause = redact(raw) === raw ? error : undefined;
  if (c.kind === 'ownershipLost') return new OwnershipLostError(message, cause);
  return new BackendError(message, {
    retryable: c.kind === 'transient',
    ...(c.condition ? { condition: c.condition } : {}),
    ...(c.code ? { code: c.kind === 'unauthorized' ? 'Unauthorized' : c.code } : c.kind === 'unauthorized' ? { code: 'Unauthorized' } : {}),
    cause,
  });
}
