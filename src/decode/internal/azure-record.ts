import type { HrTime } from '@opentelemetry/api';
import type { LogAttributes, LogBody } from '@opentelemetry/api-logs';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ATTR_CLOUD_PROVIDER, ATTR_TIMESTAMP_FALLBACK, CLOUD_PROVIDER_AZURE, type AzureNames } from './azure-names.ts';
import { nestsDeeperThan } from './parse-json.ts';
import { markDoubleKey, withDoubleKey } from '../../pipeline/double-values.ts';
import { RecordAttributes } from './event-attributes.ts';
import { goSeverity } from './go-severity.ts';
import { makeRecord } from './records.ts';
import type { ResourceCache } from './resource-cache.ts';
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
  /** Field-name cache for these names; from createKeyCache(). */
  readonly keys: KeyCache;
  /** The records' instrumentation scope (the Go translator's name). */
  readonly scope: ReadableLogRecord['instrumentationScope'];
}

// What a top-level field is. Timestamp fields are TIME_BASE + their priority.
const EXTRA = 0; // outside the common schema: kept as azure.<field>, value as is
const AS_STRING = 1; // common schema, typed string by the Go receiver: numbers/booleans become strings
const ALWAYS_STRING = 6; // as AS_STRING, and the Go receiver writes it ("" when absent): category, operationName
const AS_IS = 2; // common schema, any value (identity)
const RESOURCE_ID = 3;
const DURATION = 4;
const LEVEL = 5;
const PROPERTIES = 7;
const TIME_BASE = 100;

/** Timestamp fields in the order they are tried. */
export const TIMESTAMP_FIELDS = [
  'time',
  'timeStamp',
  'TimeGenerated',
  'EventTimeString',
  'EventTimestamp',
  'startTime',
] as const;

/** Lower-cased field name → kind and the AzureNames entry it maps to. Case-insensitive like Go's encoding/json. */
const FIELDS: ReadonlyMap<string, readonly [number, keyof AzureNames | undefined]> = new Map<
  string,
  readonly [number, keyof AzureNames | undefined]
>([
  ['resourceid', [RESOURCE_ID, 'resourceId']],
  ['tenantid', [AS_STRING, 'tenantId']],
  ['operationname', [ALWAYS_STRING, 'operationName']],
  ['operationversion', [AS_STRING, 'operationVersion']],
  ['category', [ALWAYS_STRING, 'category']],
  ['resulttype', [AS_STRING, 'resultType']],
  ['resultsignature', [AS_STRING, 'resultSignature']],
  ['resultdescription', [AS_STRING, 'resultDescription']],
  ['durationms', [DURATION, 'duration']],
  ['calleripaddress', [AS_STRING, 'callerIpAddress']],
  ['correlationid', [AS_STRING, 'correlationId']],
  ['identity', [AS_IS, 'identity']],
  ['level', [LEVEL, undefined]],
  ['location', [AS_STRING, 'location']],
  ['properties', [PROPERTIES, undefined]],
  ...TIMESTAMP_FIELDS.map((f, i): [string, readonly [number, undefined]] => [
    f.toLowerCase(),
    [TIME_BASE + i, undefined],
  ]),
]);

const MAX_KEY_CACHE_ENTRIES = 10_000;

/** What a field name means under one set of names: its kind, the attribute it maps to, and its extra name. */
interface KeyInfo {
  readonly kind: number;
  readonly attribute: string;
  readonly extraName: string;
}

/**
 * Exact field name → KeyInfo, filled as names are seen, so the hot loop does one Map lookup per key and
 * builds no strings (a concatenated key would be hashed and internalized on every store).
 */
export type KeyCache = Map<string, KeyInfo>;

export function createKeyCache(): KeyCache {
  return new Map();
}

function keyInfo(cache: KeyCache, key: string, names: AzureNames): KeyInfo {
  let info = cache.get(key);
  if (info === undefined) {
    const [kind, nameKey] = FIELDS.get(key.toLowerCase()) ?? [EXTRA, undefined];
    const extraName = names.extraPrefix + key;
    info = { kind, attribute: nameKey ? (names[nameKey] as string) : extraName, extraName };
    if (cache.size < MAX_KEY_CACHE_ENTRIES) cache.set(key, info);
  }
  return info;
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

const INTEGER_TEXT = /^[+-]?[0-9]+$/;

/**
 * `durationMs` as the Go receiver reads it: a base-10 integer, given as a number or as text, is an int.
 * Undefined for anything else, which Go drops and we keep under the field's own name, so that
 * `azure.duration` always holds an integer.
 */
function goDuration(value: unknown): number | undefined {
  if (typeof value === 'number') return Number.isInteger(value) ? value : undefined;
  return typeof value === 'string' && INTEGER_TEXT.test(value) ? Number(value) : undefined;
}

/**
 * A JSON value Go decodes into `any` (properties, identity): its numbers are float64, doubles on the wire. Marked
 * through its key on the map that holds it (strings and booleans need no mark).
 */
export function markGoNumbers(attributes: LogAttributes, key: string, value: unknown): void {
  if (holdsNumbers(value)) markDoubleKey(attributes, key);
}

/** Whether a value is or may hold a number (strings and booleans need no mark). */
const holdsNumbers = (value: unknown): boolean =>
  typeof value === 'number' || (typeof value === 'object' && value !== null);

/** Whether a value Go decodes into `any` needs a double mark (see markGoNumbers): it is or may hold a number. */
export const holdsGoNumbers = holdsNumbers;

const asText = (value: unknown) =>
  (typeof value === 'number' || typeof value === 'boolean' ? String(value) : value) as LogBody;

/**
 * Maps one resource-log record. A record whose timestamp fell back to the enqueued time carries
 * ATTR_TIMESTAMP_FALLBACK.
 *
 * Default mode (`semanticConventions` false) writes what the Go receiver's default translator
 * (pkg/translator/azure) writes: no body, empty common fields left out, `properties` as sent, severity from
 * `Level` by Go's rule. Fields Go drops are kept (`azure.<field>`); docs/formats.md lists every difference.
 */
export function mapAzureRecord(
  source: Record<string, unknown>,
  enqueuedMs: number,
  observed: HrTime,
  m: AzureMapping,
): ReadableLogRecord {
  const names = m.names;
  const depth = m.maxNestingDepth;
  const attributes = new RecordAttributes();
  let doubles: Set<string> | undefined; // attribute keys holding Go float64s (see markGoNumbers)
  let resourceId: string | undefined;
  let level: unknown;
  let levelKey = '';
  let properties: unknown;
  // Timestamp fields seen: the usual single one in locals, more (rare) in an array, all by priority slot.
  let firstTimeKey: string | undefined;
  let firstTimeSlot = 0;
  let times: (string | undefined)[] | undefined;

  for (const key in source) {
    const value = source[key];
    if (value === undefined) continue;
    const info = keyInfo(m.keys, key, names);
    if (typeof value === 'object' && value !== null && nestsDeeperThan(value, depth)) {
      throw new NestingTooDeepError(`field "${key}" nests deeper than ${depth} levels`);
    }
    switch (info.kind) {
      case EXTRA:
        attributes[info.attribute] = value as LogBody;
        if (holdsNumbers(value)) doubles = withDoubleKey(doubles, info.attribute);
        break;
      case AS_IS:
        // Go leaves out a null identity (a nil pointer); its numbers are float64 (an `any`).
        if (value !== null) {
          attributes[info.attribute] = value as LogBody;
          if (holdsNumbers(value)) doubles = withDoubleKey(doubles, info.attribute);
        }
        break;
      case AS_STRING:
      case ALWAYS_STRING:
        // Go writes these only when not empty (category and operationName always, "" when absent; below).
        if (value !== null && value !== '') attributes[info.attribute] = asText(value);
        break;
      case RESOURCE_ID:
        if (typeof value === 'string') resourceId = value;
        else attributes[info.extraName] = value as LogBody;
        break;
      case DURATION: {
        const ms = goDuration(value);
        if (ms !== undefined) attributes[info.attribute] = ms;
        else if (value !== null && value !== '') attributes[info.extraName] = value as LogBody;
        break;
      }
      case LEVEL:
        if (typeof value === 'string' || typeof value === 'number') {
          // Both `Level` and `level` (Data Factory): the last sets the severity, as in Go's case-insensitive
          // decoding; the earlier one is kept under its own name instead of being lost.
          if (level !== undefined) attributes[keyInfo(m.keys, levelKey, names).extraName] = level as LogBody;
          level = value;
          levelKey = key;
        } else if (value !== null) {
          attributes[info.extraName] = value as LogBody;
        }
        break;
      case PROPERTIES:
        properties = value;
        break;
      default:
        if (firstTimeKey === undefined) {
          firstTimeKey = key;
          firstTimeSlot = info.kind - TIME_BASE;
        } else {
          times ??= [];
          times[firstTimeSlot] = firstTimeKey;
          times[info.kind - TIME_BASE] = key;
        }
        break;
    }
  }

  // Timestamp: the first field, in priority order, that parses. Fields not used stay as attributes.
  let hrTime: HrTime | undefined;
  if (times === undefined) {
    if (firstTimeKey !== undefined) {
      hrTime = parseTime(source[firstTimeKey], m.timeParsers);
      if (hrTime === undefined)
        attributes[keyInfo(m.keys, firstTimeKey, names).extraName] = source[firstTimeKey] as LogBody;
    }
  } else {
    for (let slot = 0; slot < times.length; slot++) {
      const key = times[slot];
      if (key === undefined) continue;
      const value = source[key];
      if (hrTime === undefined) {
        hrTime = parseTime(value, m.timeParsers);
        if (hrTime !== undefined) continue;
      }
      attributes[keyInfo(m.keys, key, names).extraName] = value as LogBody;
    }
  }
  if (hrTime === undefined) {
    hrTime = hrTimeFromMs(enqueuedMs);
    attributes[ATTR_TIMESTAMP_FALLBACK] = firstTimeKey === undefined ? 'missing' : 'unparsable';
  }

  if (attributes[names.category] === undefined) attributes[names.category] = '';
  if (attributes[names.operationName] === undefined) attributes[names.operationName] = '';
  if (properties !== undefined && properties !== null) {
    // map[string]any in Go: every number in it is a float64.
    attributes[names.properties] = properties as LogBody;
    if (holdsNumbers(properties)) doubles = withDoubleKey(doubles, names.properties);
  }
  attributes[ATTR_CLOUD_PROVIDER] = CLOUD_PROVIDER_AZURE;
  const severity = goSeverity(level);
  const resource = m.resources.get(resourceId);
  return makeRecord(
    hrTime,
    observed,
    undefined,
    attributes,
    resource,
    severity?.number,
    severity?.text,
    undefined,
    m.scope,
    doubles,
  );
}
