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
  /** Field name as written → value, for fields outside Go's struct. */
  extras: [string, unknown][];
}

type Kind = 'str' | 'num' | 'raw' | 'time';
/** Lower-cased JSON name → [field, Go's json tag, how Go reads it]. */
const FIELDS: ReadonlyMap<string, readonly [keyof GoRecord, string, Kind]> = new Map([
  ['time', ['time', 'time', 'time']],
  ['timestamp', ['timeStamp', 'timeStamp', 'time']],
  ['resourceid', ['resourceId', 'resourceId', 'str']],
  ['tenantid', ['tenantId', 'tenantId', 'str']],
  ['operationname', ['operationName', 'operationName', 'str']],
  ['operationversion', ['operationVersion', 'operationVersion', 'str']],
  ['category', ['category', 'category', 'str']],
  ['resulttype', ['resultType', 'resultType', 'str']],
  ['resultsignature', ['resultSignature', 'resultSignature', 'str']],
  ['resultdescription', ['resultDescription', 'resultDescription', 'str']],
  ['durationms', ['durationMs', 'durationMs', 'num']],
  ['calleripaddress', ['callerIpAddress', 'callerIpAddress', 'str']],
  ['correlationid', ['correlationId', 'correlationId', 'str']],
  ['identity', ['identity', 'identity', 'raw']],
  ['level', ['level', 'Level', 'num']],
  ['location', ['location', 'location', 'str']],
  ['properties', ['properties', 'properties', 'raw']],
] as const);

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
  const record: GoRecord = { operationName: '', category: '', hasIdentity: false, hasProperties: false, extras: [] };
  const seen = new Map<keyof GoRecord, string>();
  for (const key in source) {
    const value = source[key];
    if (value === undefined) continue;
    if (typeof value === 'object' && value !== null && nestsDeeperThan(value, maxDepth)) {
      throw new NestingTooDeepError(`field "${key}" nests deeper than ${maxDepth} levels`);
    }
    const field = FIELDS.get(key.toLowerCase());
    const text = field === undefined || field[2] === 'raw' || field[2] === 'time' ? undefined : asText(value);
    if (field === undefined || (text === undefined && (field[2] === 'str' || field[2] === 'num') && value !== null)) {
      record.extras.push([key, value]);
      continue;
    }
    const [name, , kind] = field;
    const previous = seen.get(name);
    // The last spelling wins, as in Go (so `level` after `Level` gives the severity); the earlier one is kept.
    if (previous !== undefined) record.extras.push([previous, source[previous]]);
    seen.set(name, key);
    if (kind === 'raw') {
      if (name === 'identity') record.hasIdentity = true;
      else record.hasProperties = true;
      (record as unknown as Record<string, unknown>)[name] = value;
    } else if (kind === 'time') {
      (record as unknown as Record<string, unknown>)[name] = value;
    } else if (value !== null) {
      (record as unknown as Record<string, unknown>)[name] = text;
    }
  }
  return record;
}
