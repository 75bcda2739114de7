import type { HrTime } from '@opentelemetry/api';
import type { LogAttributes, LogBody } from '@opentelemetry/api-logs';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ATTR_CLOUD_PROVIDER, ATTR_TIMESTAMP_FALLBACK, CLOUD_PROVIDER_AZURE, SEMCONV_PROPERTY_NAMES, type AzureNames } from './azure-names.ts';
import { nestsDeeperThan } from './parse-json.ts';
import { makeRecord } from './records.ts';
import type { ResourceCache } from './resource-cache.ts';
import { parseSeverity, type Severity } from './severity.ts';
import type { TimeLayoutParser } from './time-layout.ts';
import { hrTimeFromMs, parseBuiltinTimestamp } from './timestamp.ts';

/** Thrown (and caught per event) when a value nests deeper than allowed. */
export class NestingTooDeepError extends Error {
  override readonly name = 'NestingTooDeepError';
}

/** What mapping one resource-log record needs; built once per decoder. */
export interface AzureMapping {
  readonly names: AzureNames;
  readonly semanticConventions: boolean;
  readonly timeParsers: readonly TimeLayoutParser[];
  readonly maxNestingDepth: number;
  readonly resources: ResourceCache;
}

// Field kinds of the common schema. Timestamp fields are TIME_BASE + their priority.
const EXTRA = 0;
const RESOURCE_ID = 1;
const TENANT_ID = 2;
const OPERATION_NAME = 3;
const OPERATION_VERSION = 4;
const CATEGORY = 5;
const RESULT_TYPE = 6;
const RESULT_SIGNATURE = 7;
const RESULT_DESCRIPTION = 8;
const DURATION = 9;
const CALLER_IP = 10;
const CORRELATION_ID = 11;
const IDENTITY = 12;
const LEVEL = 13;
const LOCATION = 14;
const PROPERTIES = 15;
const EVENT_PROPERTIES = 16;
const TIME_BASE = 100;

/** Timestamp fields in the order they are tried. */
export const TIMESTAMP_FIELDS = ['time', 'timeStamp', 'TimeGenerated', 'EventTimeString', 'EventTimestamp', 'startTime'] as const;

/** Lower-cased field name → kind. Matching is case-insensitive, as Go's encoding/json is for the Go receiver. */
const KIND_BY_LOWER_NAME: ReadonlyMap<string, number> = new Map([
  ['resourceid', RESOURCE_ID],
  ['tenantid', TENANT_ID],
  ['operationname', OPERATION_NAME],
  ['operationversion', OPERATION_VERSION],
  ['category', CATEGORY],
  ['resulttype', RESULT_TYPE],
  ['resultsignature', RESULT_SIGNATURE],
  ['resultdescription', RESULT_DESCRIPTION],
  ['durationms', DURATION],
  ['calleripaddress', CALLER_IP],
  ['correlationid', CORRELATION_ID],
  ['identity', IDENTITY],
  ['level', LEVEL],
  ['location', LOCATION],
  ['properties', PROPERTIES],
  ['eventproperties', EVENT_PROPERTIES],
  ...TIMESTAMP_FIELDS.map((f, i): [string, number] => [f.toLowerCase(), TIME_BASE + i]),
]);

const MAX_KIND_CACHE_ENTRIES = 10_000;
/** Exact field name → kind, filled as names are seen, so the hot loop is one Map lookup per key. */
const kindCache = new Map<string, number>();

function kindOf(key: string): number {
  let kind = kindCache.get(key);
  if (kind === undefined) {
    kind = KIND_BY_LOWER_NAME.get(key.toLowerCase()) ?? EXTRA;
    if (kindCache.size < MAX_KIND_CACHE_ENTRIES) kindCache.set(key, kind);
  }
  return kind;
}

/** Go's receiver types these fields as strings; numbers and booleans are written as strings too. */
function asStringValue(value: unknown): unknown {
  return typeof value === 'number' || typeof value === 'boolean' ? String(value) : value;
}

function parseTime(value: unknown, parsers: readonly TimeLayoutParser[]): HrTime | undefined {
  if (typeof value === 'string') {
    for (const parse of parsers) {
      const t = parse(value);
      if (t) return t;
    }
  }
  return parseBuiltinTimestamp(value);
}

function messageOf(properties: unknown, resultDescription: unknown): LogBody {
  if (typeof properties === 'object' && properties !== null && !Array.isArray(properties)) {
    const p = properties as Record<string, unknown>;
    const m = p.message ?? p.Message ?? p.msg ?? p.log;
    if (typeof m === 'string' && m !== '') return m;
  }
  return typeof resultDescription === 'string' && resultDescription !== '' ? resultDescription : undefined;
}

function levelIn(properties: unknown): unknown {
  if (typeof properties !== 'object' || properties === null || Array.isArray(properties)) return undefined;
  const p = properties as Record<string, unknown>;
  return p.level ?? p.Level;
}

/**
 * Maps one resource-log record. `base` holds the event's metadata and is copied, never modified.
 * Returns the record and whether its timestamp fell back to the enqueued time.
 */
export function mapAzureRecord(
  source: Record<string, unknown>,
  base: LogAttributes,
  enqueuedMs: number,
  observed: HrTime,
  m: AzureMapping,
): { record: ReadableLogRecord; fallback: boolean } {
  const names = m.names;
  const depth = m.maxNestingDepth;
  const attributes: LogAttributes = { ...base };
  let resourceId: string | undefined;
  let level: unknown;
  let properties: unknown;
  let eventProperties: unknown;
  let eventPropertiesKey = '';
  let resultDescription: unknown;
  let times: (string | undefined)[] | undefined; // original key per timestamp slot

  for (const key in source) {
    const value = source[key];
    if (value === undefined) continue;
    const kind = kindOf(key);
    if (typeof value === 'object' && value !== null && nestsDeeperThan(value, depth)) {
      throw new NestingTooDeepError(`field "${key}" nests deeper than ${depth} levels`);
    }
    switch (kind) {
      case RESOURCE_ID:
        if (typeof value === 'string') resourceId = value;
        else attributes[names.extraPrefix + key] = value as LogBody;
        break;
      case TENANT_ID: attributes[names.tenantId] = asStringValue(value) as LogBody; break;
      case OPERATION_NAME: attributes[names.operationName] = asStringValue(value) as LogBody; break;
      case OPERATION_VERSION: attributes[names.operationVersion] = asStringValue(value) as LogBody; break;
      case CATEGORY: attributes[names.category] = asStringValue(value) as LogBody; break;
      case RESULT_TYPE: attributes[names.resultType] = asStringValue(value) as LogBody; break;
      case RESULT_SIGNATURE: attributes[names.resultSignature] = asStringValue(value) as LogBody; break;
      case RESULT_DESCRIPTION:
        resultDescription = value;
        attributes[names.resultDescription] = asStringValue(value) as LogBody;
        break;
      case DURATION: {
        const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
        attributes[names.duration] = (typeof n === 'number' && Number.isFinite(n) ? n : value) as LogBody;
        break;
      }
      case CALLER_IP: attributes[names.callerIpAddress] = asStringValue(value) as LogBody; break;
      case CORRELATION_ID: attributes[names.correlationId] = asStringValue(value) as LogBody; break;
      case IDENTITY: attributes[names.identity] = value as LogBody; break;
      case LEVEL:
        if (typeof value === 'string' || typeof value === 'number') level = value;
        else attributes[names.extraPrefix + key] = value as LogBody;
        break;
      case LOCATION: attributes[names.location] = asStringValue(value) as LogBody; break;
      case PROPERTIES: properties = value; break;
      case EVENT_PROPERTIES:
        eventProperties = value;
        eventPropertiesKey = key;
        break;
      case EXTRA:
        attributes[names.extraPrefix + key] = value as LogBody;
        break;
      default:
        (times ??= [])[kind - TIME_BASE] = key;
        break;
    }
  }

  // Timestamp: the first field, in priority order, that parses. Fields not used stay as attributes.
  let hrTime: HrTime | undefined;
  let fallback = false;
  if (times) {
    for (let slot = 0; slot < times.length; slot++) {
      const key = times[slot];
      if (key === undefined) continue;
      const value = source[key];
      if (hrTime === undefined) {
        hrTime = parseTime(value, m.timeParsers);
        if (hrTime !== undefined) continue;
      }
      attributes[names.extraPrefix + key] = value as LogBody;
    }
  }
  if (hrTime === undefined) {
    hrTime = hrTimeFromMs(enqueuedMs);
    attributes[ATTR_TIMESTAMP_FALLBACK] = times ? 'unparsable' : 'missing';
    fallback = true;
  }

  // `properties` wins over `EventProperties` (as in the Go receiver); the loser is kept under its own name.
  if (properties === undefined || properties === null) {
    properties = eventProperties;
  } else if (eventProperties !== undefined) {
    attributes[names.extraPrefix + eventPropertiesKey] = eventProperties as LogBody;
  }
  if (properties !== undefined && properties !== null) {
    if (m.semanticConventions && typeof properties === 'object' && !Array.isArray(properties)) {
      const rest: Record<string, unknown> = {};
      let restCount = 0;
      for (const key in properties as Record<string, unknown>) {
        const value = (properties as Record<string, unknown>)[key];
        const mapped = SEMCONV_PROPERTY_NAMES.get(key);
        if (mapped !== undefined) attributes[mapped] = value as LogBody;
        else {
          rest[key] = value;
          restCount++;
        }
      }
      if (restCount > 0) attributes[names.properties] = rest as LogBody;
    } else {
      attributes[names.properties] = properties as LogBody;
    }
  }

  let severity: Severity | undefined = parseSeverity(level);
  if (severity === undefined) severity = parseSeverity(levelIn(properties));
  if (!names.providerOnResource) attributes[ATTR_CLOUD_PROVIDER] = CLOUD_PROVIDER_AZURE;

  const record = makeRecord(
    hrTime,
    observed,
    messageOf(properties, resultDescription),
    attributes,
    m.resources.get(resourceId),
    severity?.number,
    severity?.text,
    names.eventName,
  );
  return { record, fallback };
}
