/**
 * The two request/response nodes. `$cbs` put-token (claims-based security): the token is the body,
 * application properties `operation=put-token`, `name=<audience>`, `type=servicebus.windows.net:sastoken`
 * or `jwt`. `$management` READ of `com.microsoft:eventhub` and `com.microsoft:partition`. Replies carry
 * `status-code`, `status-description` and, on failure, `error-condition` (core-amqp requestResponseLink.ts
 * turns those into errors); the body of a management reply is an AMQP map (managementClient.ts fields).
 */
import rhea from 'rhea';
import { ARGUMENT_OUT_OF_RANGE, NOT_FOUND, NOT_IMPLEMENTED, UNAUTHORIZED, entityNotFound, statusCodeFor } from './conditions.ts';
import type { RequestFailure } from './fault-controller.ts';
import type { Namespace } from './namespace.ts';
import { verifySasToken } from './sas-token.ts';

const types = (rhea as any).types;

export interface Reply {
  application_properties: Record<string, unknown>;
  body?: unknown;
}

function failure(condition: string, description: string): Reply {
  return {
    application_properties: {
      'status-code': statusCodeFor(condition),
      'status-description': description,
      'error-condition': condition,
    },
  };
}

export interface Authorization {
  audience: string;
  expiresAtMs: number;
}

export function handlePutToken(
  request: any,
  sasKeys: Record<string, string> | undefined,
  injected: RequestFailure | undefined,
): { reply: Reply; granted?: Authorization } {
  if (injected) return { reply: failure(injected.condition, injected.description) };
  const props = request.application_properties ?? {};
  if (props.operation !== 'put-token') return { reply: failure(NOT_IMPLEMENTED, `The operation '${String(props.operation)}' is not supported on $cbs.`) };
  const audience = typeof props.name === 'string' ? props.name : '';
  const type = String(props.type ?? '');
  const token = typeof request.body === 'string' ? request.body : Buffer.isBuffer(request.body) ? request.body.toString('utf8') : '';
  const accepted: Reply = { application_properties: { 'status-code': 202, 'status-description': 'Accepted' } };
  if (!sasKeys) return { reply: accepted, granted: { audience, expiresAtMs: Number.POSITIVE_INFINITY } };
  if (type === 'jwt') {
    // Entra ID tokens cannot be verified locally; they are accepted (documented limit).
    return { reply: accepted, granted: { audience, expiresAtMs: Number.POSITIVE_INFINITY } };
  }
  if (type !== 'servicebus.windows.net:sastoken') return { reply: failure(UNAUTHORIZED, `The token type '${type}' is not supported.`) };
  const verdict = verifySasToken(token, sasKeys, audience);
  if (!verdict.ok) return { reply: failure(UNAUTHORIZED, verdict.reason) };
  return { reply: accepted, granted: { audience, expiresAtMs: verdict.expiresAtMs } };
}

export function handleManagement(request: any, namespace: Namespace, endpoint: string, injected: RequestFailure | undefined): Reply {
  if (injected) return failure(injected.condition, injected.description);
  const props = request.application_properties ?? {};
  if (String(props.operation).toUpperCase() !== 'READ') {
    return failure(NOT_IMPLEMENTED, `The operation '${String(props.operation)}' is not supported on $management.`);
  }
  const hubName = String(props.name ?? '');
  const hub = namespace.get(hubName);
  if (!hub) return failure(NOT_FOUND, entityNotFound(`${endpoint}${hubName}`));
  const ok = { 'status-code': 200, 'status-description': 'OK' };
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
        `The specified partition is invalid for an EventHub partition sender or receiver. It should be between 0 and ${hub.partitionIds.length - 1}.`,
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
