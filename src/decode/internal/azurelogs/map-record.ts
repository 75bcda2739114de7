import type { HrTime } from '@opentelemetry/api';
import { SeverityNumber, type LogAttributes, type LogBody } from '@opentelemetry/api-logs';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { holdsGoNumbers, TIMESTAMP_FIELDS, type AzureMapping } from '../azure-record.ts';
import { withDoubleKey } from '../../../pipeline/double-values.ts';
import { ATTR_TIMESTAMP_FALLBACK } from '../azure-names.ts';
import { GO_LEVEL_NAMES } from '../go-severity.ts';
import { RecordAttributes } from '../event-attributes.ts';
import { parsePropertiesString } from '../properties-string.ts';
import { makeRecord } from '../records.ts';
import type { TimeLayoutParser } from '../time-layout.ts';
import { hrTimeFromMs, parseBuiltinTimestamp } from '../timestamp.ts';
import { bodyMap } from './body-map.ts';
import { CATEGORY_MAPPINGS } from './category-mappings.ts';
import { putCommonAttributes } from './common-attributes.ts';
import { EXTRA_PREFIX, extraAttributeName, readGoRecord, type GoRecord } from './go-record.ts';
import { GoValueError, parseGoInt } from './go-values.ts';
import type { Attrs } from './put-helpers.ts';

/** Set when a category's attribute mapping refused the record and it fell back to the body-map layout. */
export const ATTR_MAPPING_ERROR = 'azure.mapping.error';

/**
 * `apply_semantic_conventions: true`: one resource-log record mapped the way the Go receiver's
 * azurelogs translator (pkg/translator/azurelogs) maps it, with the deliberate differences listed in
 * docs/formats.md. Categories with an attribute mapping get record attributes and no body; all others get
 * Go's body map. The resource (cloud.provider, cloud.resource_id, event.name) comes from `m.resources`.
 */
export function mapSemconvRecord(
  source: Record<string, unknown>,
  enqueuedMs: number,
  observed: HrTime,
  m: AzureMapping,
): ReadableLogRecord {
  const record = readGoRecord(source, m.maxNestingDepth);
  const attributes = new RecordAttributes() as Attrs;
  // Attribute keys holding Go float64s: the record's own mark (attributeDoubles), no property on `attributes`.
  let doubles: Set<string> | undefined;

  let properties = record.properties;
  if (typeof properties === 'string') properties = parsePropertiesString(properties) ?? properties;
  const isObject = typeof properties === 'object' && properties !== null && !Array.isArray(properties);

  let body: LogBody;
  let keepExtras = true;
  const mapping = CATEGORY_MAPPINGS.get(record.category);
  let mappingError: string | undefined;
  if (mapping !== undefined && (isObject || (record.hasProperties && properties === null))) {
    try {
      const { unread, unreadCount } = mapping(isObject ? (properties as Record<string, unknown>) : {}, attributes);
      putCommonAttributes(record, attributes);
      if (unreadCount > 0) {
        attributes['azure.properties'] = unread;
        if (holdsGoNumbers(unread)) doubles = withDoubleKey(doubles, 'azure.properties');
      }
    } catch (error) {
      if (!(error instanceof GoValueError)) throw error;
      mappingError = error.message;
      // Rare: undo the mapping's partial work (deleting is slow for V8 objects, so only here).
      for (const key in attributes) delete attributes[key];
      doubles = undefined;
    }
  } else if (mapping !== undefined) {
    mappingError = record.hasProperties ? 'properties is not an object' : 'record has no properties';
  }
  if (mapping === undefined || mappingError !== undefined) {
    body = bodyMap(record, properties, source) as LogBody;
    if (mappingError !== undefined) attributes[ATTR_MAPPING_ERROR] = mappingError;
    // Without properties, event.original already holds the whole record.
    keepExtras = record.hasProperties;
  }

  const time = recordTime(record, source, m.timeParsers);
  if (time === undefined)
    attributes[ATTR_TIMESTAMP_FALLBACK] = timeKeyOf(record) === undefined ? 'missing' : 'unparsable';
  if (keepExtras) {
    for (const key of record.extras) {
      const name = extraAttributeName(key);
      const value = source[key];
      attributes[name] = value;
      if (holdsGoNumbers(value)) doubles = withDoubleKey(doubles, name);
    }
    if (time === undefined) {
      if (record.time !== undefined) attributes[`${EXTRA_PREFIX}time`] = record.time;
      if (record.timeStamp !== undefined) attributes[`${EXTRA_PREFIX}timeStamp`] = record.timeStamp;
    }
  }

  const severity = goSeverity(record.level) ?? goSeverity(levelIn(properties, isObject));
  return makeRecord(
    time ?? hrTimeFromMs(enqueuedMs),
    observed,
    body,
    attributes as LogAttributes,
    m.resources.get(record.resourceId),
    severity?.[0],
    severity?.[1],
    undefined,
    m.scope,
    doubles,
  );
}

function timeKeyOf(record: GoRecord): string | undefined {
  if (record.time !== undefined && record.time !== '') return 'time';
  if (record.timeStamp !== undefined && record.timeStamp !== '') return 'timeStamp';
  return undefined;
}

/** Time fields beyond Go's two, lower-cased, in the order the default mode tries them (TimeGenerated, ...). */
const MORE_TIME_FIELDS = TIMESTAMP_FIELDS.slice(2).map((f) => f.toLowerCase());

/**
 * `time`, else `timeStamp`, as Go reads them; then (where Go would drop the record) the other time fields
 * the default mode knows, such as Event Hubs' EventTimeString, from the record's extra fields.
 */
function recordTime(
  record: GoRecord,
  source: Record<string, unknown>,
  parsers: readonly TimeLayoutParser[],
): HrTime | undefined {
  const t = parseTime(record.time, parsers) ?? parseTime(record.timeStamp, parsers);
  if (t !== undefined || record.extras.length === 0) return t;
  for (const field of MORE_TIME_FIELDS) {
    for (const key of record.extras) {
      if (key.toLowerCase() !== field) continue;
      const more = parseTime(source[key], parsers);
      if (more !== undefined) return more;
    }
  }
  return undefined;
}

function parseTime(value: unknown, parsers: readonly TimeLayoutParser[]): HrTime | undefined {
  if (value === undefined || value === '' || value === null) return undefined;
  if (typeof value === 'string') {
    for (const parse of parsers) {
      const t = parse(value);
      if (t) return t;
    }
  }
  return parseBuiltinTimestamp(value);
}

/** Our addition: without a top-level Level, the properties' `level` (or `Level`) gives the severity. */
function levelIn(properties: unknown, isObject: boolean): string | undefined {
  if (!isObject) return undefined;
  const p = properties as Record<string, unknown>;
  const level = p.level ?? p.Level;
  return typeof level === 'string' || typeof level === 'number' ? String(level) : undefined;
}

/**
 * asSeverity of the azurelogs translator; the text is the level as written. Unlike the default mode's rule
 * (go-severity.ts) it also knows `Information` and copies any positive level, as Go does.
 */
function goSeverity(level: string | undefined): [SeverityNumber, string] | undefined {
  if (level === undefined) return undefined;
  const named = level === 'Information' ? SeverityNumber.INFO : GO_LEVEL_NAMES.get(level);
  if (named !== undefined) return [named, level];
  const n = parseGoInt(level);
  return [n !== undefined && n > 0 ? (n as SeverityNumber) : 0, level];
}
