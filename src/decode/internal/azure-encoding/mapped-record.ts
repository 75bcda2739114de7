import type { AnyValue, LogAttributes } from '@opentelemetry/api-logs';
import { markDoubleKey } from '../../../pipeline/double-values.ts';
import { putInt, putStr } from './attributes.ts';
import type { Fields } from './fields.ts';
import { FieldTypeError, asNumberText } from './fields.ts';
import { GO_LEVEL_NAMES } from '../go-severity.ts';

/** The resource attributes a category fills (Go's logsResourceAttributes); '' means not set. */
export interface ResourceFields {
  resourceId: string;
  tenantId: string;
  subscriptionId: string;
  location: string;
  serviceNamespace: string;
  serviceName: string;
  serviceInstanceId: string;
  environment: string;
}

/** What a category mapper produces for one record, before the timestamp is parsed. */
export interface MappedRecord {
  readonly resource: ResourceFields;
  /** The time text the category reads ('' when the record has none). */
  timeText: string;
  severityNumber: number | undefined;
  severityText: string | undefined;
  readonly attributes: LogAttributes;
  body: AnyValue | undefined;
}

/** Fills one record from a category's fields; throws FieldTypeError where Go's unmarshal would fail. */
export type CategoryMapper = (f: Fields, m: MappedRecord) => void;

/** A fresh record for `category`; `attributes` (default empty) may already hold the event metadata. */
export function emptyMapped(category: string, attributes: LogAttributes = {}): MappedRecord {
  attributes['azure.category'] = category;
  return {
    resource: {
      resourceId: '',
      tenantId: '',
      subscriptionId: '',
      location: '',
      serviceNamespace: '',
      serviceName: '',
      serviceInstanceId: '',
      environment: '',
    },
    timeText: '',
    severityNumber: undefined,
    severityText: undefined,
    attributes,
    body: undefined,
  };
}

/** Go `body.SetStr`: an empty string leaves the body empty. */
export function setBody(m: MappedRecord, text: string): void {
  m.body = text === '' ? undefined : text;
}

/**
 * The common schema (azureLogRecordBase): resource id, tenant and location on the resource; `time`, else
 * `timestamp`; `level` as severity (text as sent); the common fields as attributes.
 */
export function mapBase(f: Fields, m: MappedRecord, level: unknown = f.get('level')): void {
  m.resource.resourceId = f.str('resourceId');
  m.resource.tenantId = f.str('tenantId');
  m.resource.location = f.str('location');
  m.timeText = f.str('time') || f.str('timestamp');
  const levelText = asNumberText(level, 'level');
  if (levelText !== undefined) {
    m.severityText = levelText;
    // Go's four level names; unlike the translators, any other text (a number too) is 0 (unspecified)
    m.severityNumber = GO_LEVEL_NAMES.get(levelText) ?? 0;
  }
  const a = m.attributes;
  putStr(a, 'azure.operation.name', f.str('operationName'));
  putStr(a, 'azure.operation.version', f.strPtr('operationVersion'));
  putStr(a, 'azure.result.type', f.strPtr('resultType'));
  putStr(a, 'azure.result.signature', f.strPtr('resultSignature'));
  putStr(a, 'azure.result.description', f.strPtr('resultDescription'));
  putStr(a, 'network.peer.address', f.strPtr('callerIpAddress'));
  putStr(a, 'azure.correlation_id', f.strPtr('correlationId'));
  putInt(a, 'azure.operation.duration', f.num('durationMs'));
}

/**
 * A category the extension has no mapping for: the common schema, then every `properties` field as an
 * attribute under its own name (`message` → body, `correlationId` and `duration` → the common names).
 * Properties that are not an object stay as their JSON text in `azure.properties`. Numbers in
 * properties are doubles in Go (encoding into map[string]any).
 */
export const mapGeneric: CategoryMapper = (f, m) => {
  mapBase(f, m);
  // Earlier extension versions wrote `identity` as the map attribute azure.identity for these categories;
  // newer ones drop it. Kept under that name: configs and dashboards built on either version find it.
  const identity = f.get('identity');
  if (identity !== undefined && identity !== null && identity !== '')
    m.attributes['azure.identity'] = identity as AnyValue;
  const properties = f.get('properties');
  if (properties === undefined || properties === null) return;
  if (typeof properties !== 'object' || Array.isArray(properties)) {
    m.attributes['azure.properties'] = JSON.stringify(properties);
    return;
  }
  const fields = properties as Record<string, unknown>;
  for (const key in fields) {
    const value = fields[key];
    if (key === 'Message' || key === 'message') {
      m.body = value as AnyValue;
      continue;
    }
    const name =
      key === 'correlationId' ? 'azure.correlation_id' : key === 'duration' ? 'azure.operation.duration' : key;
    m.attributes[name] = value as AnyValue;
    if (typeof value === 'number' || (typeof value === 'object' && value !== null)) markDoubleKey(m.attributes, name);
  }
};

export { FieldTypeError };
