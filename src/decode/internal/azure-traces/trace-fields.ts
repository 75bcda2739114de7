/*
 * The fields of an Application Insights record (the `AppRequests` / `AppDependencies` tables as diagnostic
 * settings export them) that the Go receiver's traces translator reads (pkg/translator/azure,
 * resources_to_traces.go: its azureTracesRecord struct). Read the way Go's JSON decoding fills that struct:
 * field names match case-insensitively (the last of two spellings wins), null and absent give the zero
 * value. Where Go would fail the whole event on a wrong type, only this record is refused.
 */

/** The struct fields the mapping uses, by their JSON names. */
export interface TraceFields {
  /** `time`, or `TimeGenerated` when `time` is missing or empty. */
  readonly time: string;
  readonly resourceId: string;
  readonly type: string;
  readonly appRoleInstance: string;
  readonly appRoleName: string;
  readonly clientCity: string;
  readonly clientCountryOrRegion: string;
  readonly clientIp: string;
  readonly clientStateOrProvince: string;
  readonly clientType: string;
  readonly operationName: string;
  readonly operationId: string;
  readonly parentId: string;
  readonly sdkVersion: string;
  readonly id: string;
  readonly name: string;
  readonly resultCode: string;
  readonly url: string;
  readonly target: string;
  readonly dependencyType: string;
  readonly success: boolean;
  readonly durationMs: number;
  /** `Properties` (Go: map[string]string); a null value is "". Null-prototype object. */
  readonly properties: Readonly<Record<string, string>>;
  /** `Measurements` (Go: map[string]float64); a null value is 0. Null-prototype object. */
  readonly measurements: Readonly<Record<string, number>>;
}

/** The JSON names (as Go's struct tags spell them) of the fields read, by slot. */
const JSON_NAMES = [
  'time',
  'resourceId',
  'Type',
  'AppRoleInstance',
  'AppRoleName',
  'ClientCity',
  'ClientCountryOrRegion',
  'ClientIP',
  'ClientStateOrProvince',
  'ClientType',
  'OperationName',
  'OperationId',
  'ParentId',
  'SDKVersion',
  'Id',
  'Name',
  'ResultCode',
  'Url',
  'Target',
  'DependencyType',
  'Success',
  'DurationMs',
  'Properties',
  'Measurements',
  'TimeGenerated',
] as const;

/** Lower-cased JSON name → slot. */
const SLOT_BY_LOWER_NAME: ReadonlyMap<string, number> = new Map(JSON_NAMES.map((n, i) => [n.toLowerCase(), i]));

/** Record key as written → slot (-1: none), so a key is lower-cased once, not per record. */
const KEY_CACHE = new Map<string, number>();
const MAX_KEY_CACHE_ENTRIES = 10_000;

function slotOf(key: string): number {
  let slot = KEY_CACHE.get(key);
  if (slot === undefined) {
    slot = SLOT_BY_LOWER_NAME.get(key.toLowerCase()) ?? -1;
    if (KEY_CACHE.size < MAX_KEY_CACHE_ENTRIES) KEY_CACHE.set(key, slot);
  }
  return slot;
}

/** Thrown for a field whose type Go's decoding refuses; the route turns it into a refusal. */
export class TraceFieldError extends Error {
  override readonly name = 'TraceFieldError';
}

/** Reads a record's fields; throws TraceFieldError for a field of the wrong type. */
export function readTraceFields(record: Readonly<Record<string, unknown>>): TraceFields {
  // Go's decoder visits the object's keys in order; each sets the field it matches, so the last wins.
  const v: unknown[] = new Array(JSON_NAMES.length);
  for (const key in record) {
    const slot = slotOf(key);
    if (slot >= 0) v[slot] = record[key];
  }
  // One object literal: every TraceFields has the same shape.
  return {
    // Not in Go's struct: Log Analytics data export writes TimeGenerated and no `time` (Go drops such records).
    time: str(v, 0) || str(v, 24),
    resourceId: str(v, 1),
    type: str(v, 2),
    appRoleInstance: str(v, 3),
    appRoleName: str(v, 4),
    clientCity: str(v, 5),
    clientCountryOrRegion: str(v, 6),
    clientIp: str(v, 7),
    clientStateOrProvince: str(v, 8),
    clientType: str(v, 9),
    operationName: str(v, 10),
    operationId: str(v, 11),
    parentId: str(v, 12),
    sdkVersion: str(v, 13),
    id: str(v, 14),
    name: str(v, 15),
    resultCode: str(v, 16),
    url: str(v, 17),
    target: str(v, 18),
    dependencyType: str(v, 19),
    success: typed(v[20], JSON_NAMES[20], 'boolean', false),
    durationMs: typed(v[21], JSON_NAMES[21], 'number', 0),
    properties: stringMap(v[22]),
    measurements: numberMap(v[23]),
  };
}

const str = (v: readonly unknown[], slot: number): string => typed(v[slot], JSON_NAMES[slot]!, 'string', '');

function typed<T>(value: unknown, name: string, type: 'string' | 'boolean' | 'number', zero: T): T {
  if (value === undefined || value === null) return zero;
  if (typeof value !== type) throw new TraceFieldError(`${name} is a ${kindOf(value)}, not a ${type}`);
  return value as T;
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (value === undefined || value === null) return out;
  if (!isPlainObject(value)) throw new TraceFieldError(`Properties is a ${kindOf(value)}, not an object`);
  for (const key in value) {
    const v = value[key];
    if (v !== null && typeof v !== 'string') {
      throw new TraceFieldError(`Properties["${key}"] is a ${kindOf(v)}, not a string`);
    }
    out[key] = v ?? '';
  }
  return out;
}

function numberMap(value: unknown): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  if (value === undefined || value === null) return out;
  if (!isPlainObject(value)) throw new TraceFieldError(`Measurements is a ${kindOf(value)}, not an object`);
  for (const key in value) {
    const v = value[key];
    if (v !== null && typeof v !== 'number') {
      throw new TraceFieldError(`Measurements["${key}"] is a ${kindOf(v)}, not a number`);
    }
    out[key] = v ?? 0;
  }
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v);
const kindOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
