/*
 * Reading a record the way the Go extension's typed structs read it (jsoniter, encoding/json rules): field
 * names match case-insensitively, the last matching key wins, a `string` field refuses a number, and a
 * `json.Number` field takes a number or a numeric string. A type the Go struct would refuse throws
 * FieldTypeError, which makes the record raw, as Go's failed unmarshal does.
 */

/** A JSON object from a record. */
export type JsonObject = Record<string, unknown>;

/** The Go struct would refuse this value: the record is stored raw. */
export class FieldTypeError extends Error {
  override readonly name = 'FieldTypeError';
}

/** Lower-cased field names, shared: the same few hundred keys recur in every record. */
const LOWER = new Map<string, string>();
const MAX_LOWER_CACHE = 10_000;

function lower(key: string): string {
  let l = LOWER.get(key);
  if (l === undefined) {
    if (LOWER.size >= MAX_LOWER_CACHE) LOWER.clear();
    l = key.toLowerCase();
    LOWER.set(key, l);
  }
  return l;
}

/** Case-insensitive view of one JSON object, indexed once (the last matching key wins, as in Go's decoding). */
export class Fields {
  readonly #byLower = new Map<string, unknown>();
  readonly object: JsonObject;

  constructor(object: JsonObject) {
    this.object = object;
    for (const key in object) this.#byLower.set(lower(key), object[key]);
  }

  /** The value of the last key matching `name` case-insensitively (undefined when none). */
  get(name: string): unknown {
    return this.#byLower.get(lower(name));
  }

  /** Exact-name value, for structs with two fields differing only by case (Data Factory `Level`/`level`). */
  exact(name: string): unknown {
    return Object.hasOwn(this.object, name) ? this.object[name] : undefined;
  }

  /** A Go `string` field: '' when absent or null. */
  str(name: string): string {
    return asStr(this.get(name), name);
  }

  /** A Go `*string` field: undefined when absent or null. */
  strPtr(name: string): string | undefined {
    const value = this.get(name);
    return value === undefined || value === null ? undefined : asStr(value, name);
  }

  /** A Go `json.Number` field as its text: undefined when absent or null. */
  num(name: string): string | undefined {
    return asNumberText(this.get(name), name);
  }

  /** A nested struct: its fields, or undefined when absent or null. */
  obj(name: string): Fields | undefined {
    return asFields(this.get(name), name);
  }
}

/** A Go `string` value. */
export function asStr(value: unknown, name: string): string {
  if (value === undefined || value === null) return '';
  if (typeof value !== 'string') throw new FieldTypeError(`${name}: expected a string`);
  return value;
}

/** A Go `json.Number` value as text (a JSON number or a string holding one). */
export function asNumberText(value: unknown, name: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return value;
  throw new FieldTypeError(`${name}: expected a number`);
}

/** A nested Go struct. */
export function asFields(value: unknown, name: string): Fields | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new FieldTypeError(`${name}: expected an object`);
  return new Fields(value as JsonObject);
}

/** A Go `map[string]any`: the object, or undefined when absent, null or empty. */
export function asMap(value: unknown, name: string): JsonObject | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new FieldTypeError(`${name}: expected an object`);
  return value as JsonObject;
}

/** A Go slice: the array, or undefined when absent or null. */
export function asArray(value: unknown, name: string): readonly unknown[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) throw new FieldTypeError(`${name}: expected an array`);
  return value;
}

/**
 * A `properties` field that Azure sends either as an object or as a string holding JSON (App Service via
 * Event Hubs): the object's fields. A string that is not JSON, or not an object, makes the record raw.
 */
export function objectOrJsonString(value: unknown, name: string): Fields | undefined {
  if (typeof value === 'string') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(value);
    } catch {
      throw new FieldTypeError(`${name}: a string that is not JSON`);
    }
    return asFields(parsed, name);
  }
  return asFields(value, name);
}

/** An absent nested struct: every field reads as its zero value. */
export const NO_FIELDS = new Fields({});
