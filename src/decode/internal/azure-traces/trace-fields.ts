/*
 * The fields of an Application Insights record (the `AppRequests` / `AppDependencies` tables as diagnostic
 * settings export them) that the Go receiver's traces translator reads (pkg/translator/azure,
 * resources_to_traces.go: its azureTracesRecord struct). Read the way Go's JSON decoding fills that struct:
 * field names match case-insensitively (the last of two spellings wins), null and absent give the zero
 * value. Where Go would fail the whole event on a wrong type, only this record is refused.
 */

/** The struct fields the mapping uses, by their JSON names. */
export interface TraceFields {
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

type StringField = Exclude<keyof TraceFields, 'success' | 'durationMs' | 'properties' | 'measurements'>;

/** JSON name (as Go's struct tags spell it) → our field. */
const STRING_FIELDS: readonly (readonly [string, StringField])[] = [
  ['time', 'time'], ['resourceId', 'resourceId'], ['Type', 'type'], ['AppRoleInstance', 'appRoleInstance'],
  ['AppRoleName', 'appRoleName'], ['ClientCity', 'clientCity'], ['ClientCountryOrRegion', 'clientCountryOrRegion'],
  ['ClientIP', 'clientIp'], ['ClientStateOrProvince', 'clientStateOrProvince'], ['ClientType', 'clientType'],
  ['OperationName', 'operationName'], ['OperationId', 'operationId'], ['ParentId', 'parentId'],
  ['SDKVersion', 'sdkVersion'], ['Id', 'id'], ['Name', 'name'], ['ResultCode', 'resultCode'], ['Url', 'url'],
  ['Target', 'target'], ['DependencyType', 'dependencyType'],
];

const SUCCESS = 'Success';
const DURATION = 'DurationMs';
const PROPERTIES = 'Properties';
const MEASUREMENTS = 'Measurements';

/** Lower-cased JSON name → the JSON name as Go spells it. */
const BY_LOWER_NAME: ReadonlyMap<string, string> = new Map(
  [...STRING_FIELDS.map(([json]) => json), SUCCESS, DURATION, PROPERTIES, MEASUREMENTS].map((n) => [n.toLowerCase(), n]),
);

/** Thrown for a field whose type Go's decoding refuses; the route turns it into a refusal. */
export class TraceFieldError extends Error {
  override readonly name = 'TraceFieldError';
}

/** Reads a record's fields; throws TraceFieldError for a field of the wrong type. */
export function readTraceFields(record: Readonly<Record<string, unknown>>): TraceFields {
  // Go's decoder visits the object's keys in order; each sets the field it matches, so the last wins.
  const raw = new Map<string, unknown>();
  for (const key in record) {
    const json = BY_LOWER_NAME.get(key.toLowerCase());
    if (json !== undefined) raw.set(json, record[key]);
  }
  const fields: Record<string, unknown> = {
    success: typed(raw.get(SUCCESS), SUCCESS, 'boolean', false),
    durationMs: typed(raw.get(DURATION), DURATION, 'number', 0),
    properties: stringMap(raw.get(PROPERTIES)),
    measurements: numberMap(raw.get(MEASUREMENTS)),
  };
  for (const [json, field] of STRING_FIELDS) fields[field] = typed(raw.get(json), json, 'string', '');
  return fields as unknown as TraceFields;
}

function typed<T>(value: unknown, name: string, type: 'string' | 'boolean' | 'number', zero: T): T {
  if (value === undefined || value === null) return zero;
  if (typeof value !== type) throw new TraceFieldError(`${name} is a ${kindOf(value)}, not a ${type}`);
  return value as T;
}

function stringMap(value: unknown): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  if (value === undefined || value === null) return out;
  if (!isPlainObject(value)) throw new TraceFieldError(`${PROPERTIES} is a ${kindOf(value)}, not an object`);
  for (const key in value) {
    const v = value[key];
    if (v !== null && typeof v !== 'string') throw new TraceFieldError(`${PROPERTIES}["${key}"] is a ${kindOf(v)}, not a string`);
    out[key] = v ?? '';
  }
  return out;
}

function numberMap(value: unknown): Record<string, number> {
  const out: Record<string, number> = Object.create(null);
  if (value === undefined || value === null) return out;
  if (!isPlainObject(value)) throw new TraceFieldError(`${MEASUREMENTS} is a ${kindOf(value)}, not an object`);
  for (const key in value) {
    const v = value[key];
    if (v !== null && typeof v !== 'number') throw new TraceFieldError(`${MEASUREMENTS}["${key}"] is a ${kindOf(v)}, not a number`);
    out[key] = v ?? 0;
  }
  return out;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const kindOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v);
