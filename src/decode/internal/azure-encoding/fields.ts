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

/** One object layout: its keys in order and, by lower-cased name, the key that wins (the last matching one). */
interface Shape {
  readonly keys: readonly string[];
  readonly byLower: ReadonlyMap<string, string>;
}

/**
 * Layouts seen, by first key. Records of one category share a few layouts, so a record's view is one
 * `Object.keys` and a few pointer comparisons (JSON.parse internalizes keys) instead of a Map per object.
 */
const SHAPES = new Map<string, Shape[]>();
const MAX_SHAPES_PER_FIRST_KEY = 32;
const MAX_FIRST_KEYS = 1_000;

function shapeOf(object: JsonObject): Shape {
  const keys = Object.keys(object);
  const n = keys.length;
  const first = n === 0 ? '' : keys[0]!;
  let list = SHAPES.get(first);
  if (list !== undefined) {
    for (const shape of list) if (sameKeys(shape.keys, keys, n)) return shape;
  } else {
    if (SHAPES.size >= MAX_FIRST_KEYS) SHAPES.clear();
    list = [];
    SHAPES.set(first, list);
  }
  const byLower = new Map<string, string>();
  for (const key of keys) byLower.set(lower(key), key);
  const shape = { keys, byLower };
  if (list.length >= MAX_SHAPES_PER_FIRST_KEY) list.shift();
  list.push(shape);
  return shape;
}

function sameKeys(a: readonly string[], b: readonly string[], n: number): boolean {
  if (a.length !== n || a[n - 1] !== b[n - 1]) return false;
  for (let i = 1; i < n - 1; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Case-insensitive view of one JSON object (the last matching key wins, as in Go's decoding). */
export class Fields {
  readonly #shape: Shape;
  readonly object: JsonObject;

  constructor(object: JsonObject) {
    this.object = object;
    this.#shape = shapeOf(object);
  }

  /** The value of the last key matching `name` case-insensitively (undefined when none). */
  get(name: string): unknown {
    const key = this.#shape.byLower.get(lower(name));
    return key === undefined ? undefined : this.object[key];
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

/** A JSON array embedded as text (Activity Log `policies`, `CallerInfo`); undefined when it is not one. */
export function parseJsonArray(text: string): readonly unknown[] | undefined {
  if (text === '') return undefined;
  try {
    return asArray(JSON.parse(text), 'embedded');
  } catch {
    return undefined;
  }
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
