/**
 * The two request/response nodes. `$cbs` put-token (claims-based security): the token is the body,
 * application properties `operation=put-token`, `name=<audience>`, `type=servicebus.windows.net:sastoken`
 * or `jwt`. `$management` READ of `com.microsoft:eventhub` and `com.microsoft:partition`. Replies carry
 * `status-code`, `status-description` and, on failure, `error-condition` (core-amqp requestResponseLink.ts
 * turns those into errors); the body of a management reply is an AMQP map (managementClient.ts fields).
 */
import rhea from 'rhea';
import {
  ARGUMENT_OUT_OF_RANGE,
  NOT_FOUND,
  NOT_IMPLEMENTED,
  UNAUTHORIZED,
  entityNotFound,
  statusCodeFor,
} from './conditions.ts';
import type { RequestFailure } from './fault-controller.ts';
import type { Namespace } from './namespace.ts';
import { expiredTokenReason, sasTokenExpiryMs, verifySasToken } from './sas-token.ts';

const types = (rhea as any).types;

export interface Reply {
  application_properties: Record<string, unknown>;
  body?: unknown;
}

/**
 * A reply's status in both spellings clients read: `status-code` / `status-description` (the JS and .NET
 * SDKs, the Python SDK's CBS link) and `statusCode` / `statusDescription`, the older management spelling
 * that uAMQP reads by default and the Python SDK 5.11's management link falls back to (core-amqp's
 * requestResponseLink.ts reads either, so the service is known to send both forms).
 */
function status(code: number, description: string, condition?: string): Record<string, unknown> {
  // An AMQP int, as the service sends it: rhea would write a JS number in a map as a uint, and
  // azure-uamqp-c (amqp_management.c) rejects a reply whose status code is not an int.
  const statusCode = types.wrap_int(code);
  return {
    'status-code': statusCode,
    'status-description': description,
    statusCode,
    statusDescription: description,
    ...(condition !== undefined ? { 'error-condition': condition } : {}),
  };
}

function failure(condition: string, description: string): Reply {
  return { application_properties: status(statusCodeFor(condition), description, condition) };
}

const SAS_PREFIX = 'SharedAccessSignature ';
const SAS_TOKEN_TYPE = 'servicebus.windows.net:sastoken';

/** A compact JWS: three base64url segments, the first a JSON header naming its algorithm (RFC 7515 §7.1). */
export function looksLikeJwt(token: string): boolean {
  const parts = token.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]*$/.test(p)) || !parts[0] || !parts[1]) return false;
  try {
    const header = JSON.parse(Buffer.from(parts[0], 'base64url').toString('utf8')) as unknown;
    return typeof header === 'object' && header !== null && typeof (header as { alg?: unknown }).alg === 'string';
  } catch {
    return false;
  }
}

/** A JWT's `exp` claim (RFC 7519 §4.1.4, s since the epoch) in ms; undefined if it has none. */
export function jwtExpiryMs(token: string): number | undefined {
  try {
    const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      exp?: unknown;
    };
    return typeof payload.exp === 'number' && Number.isFinite(payload.exp) ? payload.exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

export interface Authorization {
  audience: string;
  expiresAtMs: number;
}

export function handlePutToken(
  request: any,
  sasKeys: Record<string, string> | undefined,
  injected: RequestFailure | undefined,
  nowMs = Date.now(),
): { reply: Reply; granted?: Authorization } {
  if (injected) return { reply: failure(injected.condition, injected.description) };
  const props = request.application_properties ?? {};
  if (props.operation !== 'put-token')
    return { reply: failure(NOT_IMPLEMENTED, `The operation '${String(props.operation)}' is not supported on $cbs.`) };
  const audience = typeof props.name === 'string' ? props.name : '';
  const type = String(props.type ?? '');
  const token =
    typeof request.body === 'string'
      ? request.body
      : Buffer.isBuffer(request.body)
        ? request.body.toString('utf8')
        : '';
  const refuse = (reason: string) => ({ reply: failure(UNAUTHORIZED, reason) });
  // A claim lasts as long as its token: the service refuses a token past its expiry (401) and later
  // detaches the links that relied on a claim once it expires (emulator-server.ts expireClaims).
  const grant = (expiresAtMs: number | undefined) =>
    expiresAtMs !== undefined && expiresAtMs <= nowMs
      ? refuse(expiredTokenReason(expiresAtMs))
      : {
          reply: { application_properties: status(202, 'Accepted') },
          granted: { audience, expiresAtMs: expiresAtMs ?? Number.POSITIVE_INFINITY },
        };
  const isSas = token.startsWith(SAS_PREFIX);
  const isJwt = !isSas && looksLikeJwt(token);
  // Without keys nothing is verified but the expiry a token states.
  if (!sasKeys) return grant(isSas ? sasTokenExpiryMs(token) : isJwt ? jwtExpiryMs(token) : undefined);
  // What the token is decides how it is checked, not what the client calls it: the Python SDK labels its
  // SAS tokens `jwt`. A SharedAccessSignature is verified as one whatever its `type`.
  if (!isSas) {
    // Entra ID tokens cannot be verified locally; a well-formed JWT is accepted until its `exp` (documented limit).
    if (type === 'jwt' && isJwt) return grant(jwtExpiryMs(token));
    if (type !== 'jwt' && type !== SAS_TOKEN_TYPE) return refuse(`The token type '${type}' is not supported.`);
  }
  const verdict = verifySasToken(token, sasKeys, audience, nowMs);
  if (!verdict.ok) return refuse(verdict.reason);
  return grant(verdict.expiresAtMs);
}

export function handleManagement(
  request: any,
  namespace: Namespace,
  endpoint: string,
  injected: RequestFailure | undefined,
): Reply {
  if (injected) return failure(injected.condition, injected.description);
  const props = request.application_properties ?? {};
  if (String(props.operation).toUpperCase() !== 'READ') {
    return failure(NOT_IMPLEMENTED, `The operation '${String(props.operation)}' is not supported on $management.`);
  }
  const hubName = String(props.name ?? '');
  const hub = namespace.get(hubName);
  if (!hub) return failure(NOT_FOUND, entityNotFound(`${endpoint}${hubName}`));
  const ok = status(200, 'OK');
  if (props.type === 'com.microsoft:eventhub') {
    return {
      application_properties: ok,
      body: types.wrap_map({
        name: types.wrap_string(hub.name),
        created_at: types.wrap_timestamp(hub.createdAt.getTime()),
        partition_count: types.wrap_int(hub.partitionIds.length),
        partition_ids: types.wrap_array(hub.partitionIds, 0xa1),
      }),
    };
  }
  if (props.type === 'com.microsoft:partition') {
    const partitionId = String(props.partition ?? '');
    const log = hub.log(partitionId);
    if (!log) {
      return failure(
        ARGUMENT_OUT_OF_RANGE,
        `The specified partition is invalid for an EventHub partition sender or receiver. It should be between 0 ` +
          `and ${hub.partitionIds.length - 1}.`,
      );
    }
    const last = log.lastEnqueuedPosition;
    return {
      application_properties: ok,
      body: types.wrap_map({
        name: types.wrap_string(hub.name),
        partition: types.wrap_string(partitionId),
        begin_sequence_number: types.wrap_long(log.beginSequenceNumber),
        last_enqueued_sequence_number: types.wrap_long(last.sequenceNumber),
        last_enqueued_offset: types.wrap_string(log.offsets.text(last.offset)),
        last_enqueued_time_utc: types.wrap_timestamp(last.enqueuedTimeMs),
        is_partition_empty: log.isEmpty,
      }),
    };
  }
  return failure(NOT_IMPLEMENTED, `The management type '${String(props.type)}' is not supported.`);
}
