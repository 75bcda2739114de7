import type { AnyValue, LogAttributes } from '@opentelemetry/api-logs';
import type { MappedRecord } from './mapped-record.ts';

/*
 * "Never drop a field" for the azure_encoding format. The Go extension's category mappings drop some input
 * fields (identity claims it has no name for, `Stamp`, `-` values) and rewrite others so that the text sent
 * is gone (`HTTP/1.0` becomes network.protocol.name + version, a JSON-string `properties` becomes attributes).
 * We keep Go's output as it is and add each such input value, verbatim, as `azure.record.<field path>`.
 *
 * The rule is by value, not per category: every value the mapping put into the record unchanged (an
 * attribute, a nested map value, the body, a resource field, the time text and the severity text) counts
 * once; every input leaf whose text is not among them (each occurrence consumes one) is kept. A leaf inside
 * an array keeps the whole array. Empty strings and nulls carry nothing and are not kept.
 */

/** Prefix of a kept input value. */
const KEPT_PREFIX = 'azure.record.';

/**
 * The values of the record being checked, flattened; reused across records (one decoder runs on one thread,
 * and nothing here yields). A consumed value is swapped with the last one and the length shortened.
 * A linear scan with `===` beats hashing here: a record has a few dozen values, most kept values are the very
 * string the input held (equal by pointer), and unequal strings usually differ in length.
 */
const out: string[] = [];
let outLength = 0;

/** Adds `azure.record.<path>` for every input value of `input` the mapping `m` did not keep unchanged. */
export function keepUnmappedFields(input: Record<string, unknown>, m: MappedRecord): void {
  outLength = 0;
  const attributes = m.attributes;
  for (const key in attributes) collect(attributes[key]);
  collect(m.body);
  const r = m.resource;
  push(r.resourceId);
  push(r.tenantId);
  push(r.subscriptionId);
  push(r.location);
  push(r.serviceNamespace);
  push(r.serviceName);
  push(r.serviceInstanceId);
  push(r.environment);
  push(m.timeText);
  push(m.severityText);
  keepObject(input, '', attributes);
  out.fill('', 0, outLength); // hold no record's strings past its decode
}

/** Adds one value as its text (a number's or boolean's text matches the same text sent as a string). */
function push(value: unknown): void {
  if (value === undefined || value === '') return;
  out[outLength++] = typeof value === 'string' ? value : String(value);
}

/** Adds a value and, for maps and arrays, everything inside it. */
function collect(value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'object') {
    if (Array.isArray(value)) {
      for (const item of value) collect(item);
    } else if (!(value instanceof Uint8Array)) {
      for (const key in value as Record<string, unknown>) collect((value as Record<string, unknown>)[key]);
    }
    return;
  }
  push(value);
}

/** Takes one output value with the text of `value`; false when none is left. */
function consume(value: string | number | boolean): boolean {
  const text = typeof value === 'string' ? value : String(value);
  for (let i = 0; i < outLength; i++) {
    if (out[i] === text) {
      out[i] = out[--outLength]!;
      return true;
    }
  }
  return false;
}

/** Keeps every leaf of `object` not in the output; `prefix` is the kept attribute key of `object` plus a dot. */
function keepObject(object: Record<string, unknown>, prefix: string, attributes: LogAttributes): void {
  for (const key in object) {
    const value = object[key];
    if (value === undefined || value === null || value === '') continue;
    if (typeof value !== 'object') {
      if (!consume(value as string | number | boolean)) keep(attributes, prefix, key, value as AnyValue);
    } else if (Array.isArray(value)) {
      if (!consumeAll(value)) keep(attributes, prefix, key, value as AnyValue);
    } else {
      keepObject(value as Record<string, unknown>, keyOf(OBJECT_PREFIXES, prefix, key, '.'), attributes);
    }
  }
}

/** Consumes every leaf of `value`; false when any of them was not in the output. */
function consumeAll(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (typeof value !== 'object') return consume(value as string | number | boolean);
  let all = true;
  if (Array.isArray(value)) {
    for (const item of value) all = consumeAll(item) && all;
  } else {
    const object = value as Record<string, unknown>;
    for (const key in object) all = consumeAll(object[key]) && all;
  }
  return all;
}

/**
 * Kept attribute keys and nested-object prefixes, by parent prefix then field: the same few recur in every
 * record, and a cached string spares building and internalizing the key again.
 */
const LEAF_KEYS = new Map<string, Map<string, string>>();
const OBJECT_PREFIXES = new Map<string, Map<string, string>>();
const MAX_PREFIXES = 5_000;

/** `azure.record.<prefix path><field><end>`, one string per distinct key. */
function keyOf(cache: Map<string, Map<string, string>>, prefix: string, field: string, end: '' | '.'): string {
  let byField = cache.get(prefix);
  if (byField === undefined) {
    if (cache.size >= MAX_PREFIXES) cache.clear();
    byField = new Map();
    cache.set(prefix, byField);
  }
  let key = byField.get(field);
  if (key === undefined) {
    key = `${prefix === '' ? KEPT_PREFIX : prefix}${field}${end}`;
    if (byField.size < MAX_PREFIXES) byField.set(field, key);
  }
  return key;
}

function keep(attributes: LogAttributes, prefix: string, field: string, value: AnyValue): void {
  const key = keyOf(LEAF_KEYS, prefix, field, '');
  // A metadata collision value already holds this key (a field literally named `server.address`): keep both.
  attributes[Object.hasOwn(attributes, key) ? `${key}#input` : key] = value;
}
