import { NestingTooDeepError } from '../azure-record.ts';
import { nestsDeeperThan } from '../parse-json.ts';

/**
 * One resource-log record as the azurelogs translator's `azureLogRecord` struct sees it: the common-schema
 * fields matched case-insensitively (as json-iterator does), strings as strings, `Level` and `durationMs`
 * as json.Number text, `identity` and `properties` as raw values. `extras` holds the rest: the top-level
 * fields Go's struct has no place for (Go drops them), and a known field's spellings that lost to a later one.
 */
export interface GoRecord {
  time?: unknown;
  timeStamp?: unknown;
  resourceId?: string;
  tenantId?: string;
  operationName: string;
  operationVersion?: string;
  category: string;
  resultType?: string;
  resultSignature?: string;
  resultDescription?: string;
  /** json.Number text. */
  durationMs?: string;
  callerIpAddress?: string;
  correlationId?: string;
  /** Present (possibly null) when the record has an identity. */
  identity?: unknown;
  hasIdentity: boolean;
  /** json.Number text: the number as written or the string. */
  level?: string;
  location?: string;
  /** Present (possibly null) when the record has properties. */
  properties?: unknown;
  hasProperties: boolean;
  /** Field names as written (values stay in the source record), for fields outside Go's struct. */
  extras: string[];
}

type Kind = 'str' | 'num' | 'raw' | 'time';
/** One of Go's struct fields: the GoRecord property, its bit for duplicate tracking, how Go reads it. */
type FieldInfo = readonly [keyof GoRecord, number, Kind];
/** Lower-cased JSON name → field. */
const FIELDS: ReadonlyMap<string, FieldInfo> = new Map(
  (
    [
      ['time', 'time', 'time'],
      ['timestamp', 'timeStamp', 'time'],
      ['resourceid', 'resourceId', 'str'],
      ['tenantid', 'tenantId', 'str'],
      ['operationname', 'operationName', 'str'],
      ['operationversion', 'operationVersion', 'str'],
      ['category', 'category', 'str'],
      ['resulttype', 'resultType', 'str'],
      ['resultsignature', 'resultSignature', 'str'],
      ['resultdescription', 'resultDescription', 'str'],
      ['durationms', 'durationMs', 'num'],
      ['calleripaddress', 'callerIpAddress', 'str'],
      ['correlationid', 'correlationId', 'str'],
      ['identity', 'identity', 'raw'],
      ['level', 'level', 'num'],
      ['location', 'location', 'str'],
      ['properties', 'properties', 'raw'],
    ] as const
  ).map(([json, name, kind], i): [string, FieldInfo] => [json, [name, 1 << i, kind]]),
);

const MAX_CACHED_KEYS = 10_000;
/** Prefix of the attribute that keeps a field Go has no place for. */
export const EXTRA_PREFIX = 'azure.';
/**
 * Exact key as written → its field, or for a field outside Go's struct the attribute name that keeps it,
 * so the per-record loop lower-cases and concatenates no strings (a fresh key string would also be hashed
 * and internalized on every store).
 */
const keyCache = new Map<string, FieldInfo | string>();

function lookup(key: string): FieldInfo | string {
  let entry = keyCache.get(key);
  if (entry === undefined) {
    entry = FIELDS.get(key.toLowerCase()) ?? EXTRA_PREFIX + key;
    if (keyCache.size < MAX_CACHED_KEYS) keyCache.set(key, entry);
  }
  return entry;
}

function fieldOf(key: string): FieldInfo | null {
  const entry = lookup(key);
  return typeof entry === 'string' ? null : entry;
}

/** The attribute name (`azure.<key>`) that keeps a top-level field. */
export function extraAttributeName(key: string): string {
  const entry = lookup(key);
  return typeof entry === 'string' ? entry : EXTRA_PREFIX + key;
}

/** The spelling of `field` that came last before `key` (rare: a field written twice). */
function previousSpelling(source: Record<string, unknown>, key: string, field: FieldInfo): string | undefined {
  let previous: string | undefined;
  for (const k in source) {
    if (k === key) break;
    const v = source[k];
    if (fieldOf(k) !== field || v === undefined) continue;
    // already an extra
    if ((field[2] === 'str' || field[2] === 'num') && v !== null && asText(v) === undefined) continue;
    previous = k;
  }
  return previous;
}

/** Go decodes numbers and booleans into a string field only by failing; we keep their text instead. */
function asText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return undefined;
}

/**
 * Reads a record. Where several spellings of one field appear (`Level` and `level`), the last one wins,
 * as with json-iterator; the others stay in `extras`, so nothing is lost. Throws NestingTooDeepError for
 * too-deep values.
 */
export function readGoRecord(source: Record<string, unknown>, maxDepth: number): GoRecord {
  // Every property set up front: one object shape for all records.
  const record: GoRecord = {
    time: undefined,
    timeStamp: undefined,
    resourceId: undefined,
    tenantId: undefined,
    operationName: '',
    operationVersion: undefined,
    category: '',
    resultType: undefined,
    resultSignature: undefined,
    resultDescription: undefined,
    durationMs: undefined,
    callerIpAddress: undefined,
    correlationId: undefined,
    identity: undefined,
    hasIdentity: false,
    level: undefined,
    location: undefined,
    properties: undefined,
    hasProperties: false,
    extras: [],
  };
  const target = record as unknown as Record<string, unknown>;
  let seen = 0;
  for (const key in source) {
    const value = source[key];
    if (value === undefined) continue;
    if (typeof value === 'object' && value !== null && nestsDeeperThan(value, maxDepth)) {
      throw new NestingTooDeepError(`field "${key}" nests deeper than ${maxDepth} levels`);
    }
    const field = fieldOf(key);
    if (field === null) {
      record.extras.push(key);
      continue;
    }
    const [name, bit, kind] = field;
    const text = kind === 'str' || kind === 'num' ? asText(value) : undefined;
    if (text === undefined && (kind === 'str' || kind === 'num') && value !== null) {
      record.extras.push(key);
      continue;
    }
    // The last spelling wins, as in Go (so `level` after `Level` gives the severity); the earlier one is kept.
    if ((seen & bit) !== 0) {
      const previous = previousSpelling(source, key, field);
      if (previous !== undefined) record.extras.push(previous);
    }
    seen |= bit;
    if (kind === 'raw') {
      if (name === 'identity') record.hasIdentity = true;
      else record.hasProperties = true;
      target[name] = value;
    } else if (kind === 'time') {
      target[name] = value;
    } else if (value !== null) {
      target[name] = text;
    }
  }
  return record;
}
