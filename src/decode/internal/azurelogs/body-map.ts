import type { LogAttributes } from '@opentelemetry/api-logs';
import { BODY_LIFTERS } from './body-lifting.ts';
import type { GoRecord } from './go-record.ts';
import { parseGoInt } from './go-values.ts';
import { putIfSet } from './put-helpers.ts';
import { markGoNumbers } from '../azure-record.ts';

/**
 * The body Go writes for a category it has no attribute mapping for (extractRawAttributes in
 * pkg/translator/azurelogs resourcelogs_to_logs.go): the common fields under short names, properties
 * lifted by the category's handler or kept under `properties`, and, for a record without properties, the
 * whole record as indented JSON in `event.original`.
 *
 * @param properties the record's properties, a JSON string already parsed into its object when it held one
 * @param source the record as received, for `event.original`
 */
export function bodyMap(
  record: GoRecord,
  properties: unknown,
  source: Record<string, unknown>,
): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  body.category = record.category;
  putIfSet(body, 'correlation.id', record.correlationId);
  if (record.durationMs !== undefined) {
    const duration = parseGoInt(record.durationMs);
    if (duration !== undefined) body.duration = duration;
  }
  if (record.hasIdentity) body.identity = record.identity;
  body['operation.name'] = record.operationName;
  putIfSet(body, 'operation.version', record.operationVersion);

  if (record.hasProperties && properties !== null) {
    if (typeof properties === 'object' && !Array.isArray(properties)) {
      liftProperties(record.category, properties as Record<string, unknown>, body);
    } else {
      body.properties = properties;
    }
  } else if (!record.hasProperties) {
    body['event.original'] = indentedJson(source);
  }

  putIfSet(body, 'result.description', record.resultDescription);
  putIfSet(body, 'result.signature', record.resultSignature);
  putIfSet(body, 'result.type', record.resultType);
  putIfSet(body, 'tenant.id', record.tenantId);
  putIfSet(body, 'cloud.region', record.location);
  putIfSet(body, 'network.peer.address', record.callerIpAddress);
  // identity and properties are `any` in Go's record struct: their numbers are float64.
  if (body.identity !== undefined) markGoNumbers(body as LogAttributes, 'identity', body.identity);
  if (body.properties !== undefined) markGoNumbers(body as LogAttributes, 'properties', body.properties);
  return body;
}

function liftProperties(category: string, properties: Record<string, unknown>, body: Record<string, unknown>): void {
  const lift = BODY_LIFTERS.get(category);
  if (lift === undefined) {
    // Nothing lifted: the parsed map itself (ours, not shared) is the body's properties.
    for (const _ in properties) {
      body.properties = properties;
      break;
    }
    return;
  }
  const rest: Record<string, unknown> = {};
  let restCount = 0;
  for (const key in properties) lift(key, properties[key], body, rest);
  for (const _ in rest) {
    restCount++;
    break;
  }
  if (restCount > 0) body.properties = rest;
}

/**
 * The record as tab-indented JSON, the layout of Go's json.Indent(raw, "", "\t"). Go indents the record's
 * original bytes; this re-serializes the parsed record, which is the same text except where the input
 * spelled a number or a string escape differently (`1.0`, `\u00e9`).
 */
export function indentedJson(source: Record<string, unknown>): string {
  return JSON.stringify(source, null, '\t');
}
