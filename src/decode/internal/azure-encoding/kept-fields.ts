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

/** Prefix of a kept input value (shared with the metadata-collision values, see COLLISION_PREFIX). */
const KEPT_PREFIX = 'azure.record.';

/** How many times each value text occurs in the mapped output. */
type Counts = Map<string, number>;

/**
 * Adds `azure.record.<path>` for every input value of `input` the mapping `m` did not keep unchanged.
 * `metadata` holds our Event Hubs attributes, which are not the record's values and are not counted.
 */
export function keepUnmappedFields(input: Record<string, unknown>, m: MappedRecord, metadata: LogAttributes): void {
  const counts: Counts = new Map();
  const attributes = m.attributes;
  for (const key in attributes) {
    const value = attributes[key];
    if (Object.hasOwn(metadata, key) && value === metadata[key]) continue;
    countValue(counts, value);
  }
  countValue(counts, m.body);
  const r = m.resource;
  add(counts, r.resourceId);
  add(counts, r.tenantId);
  add(counts, r.subscriptionId);
  add(counts, r.location);
  add(counts, r.serviceNamespace);
  add(counts, r.serviceName);
  add(counts, r.serviceInstanceId);
  add(counts, r.environment);
  add(counts, m.timeText);
  if (m.severityText !== undefined) add(counts, m.severityText);
  keepObject(input, '', counts, attributes);
}

function add(counts: Counts, text: string): void {
  if (text !== '') counts.set(text, (counts.get(text) ?? 0) + 1);
}

/** Counts a value and, for maps and arrays, everything inside it. */
function countValue(counts: Counts, value: unknown): void {
  if (value === undefined || value === null) return;
  if (typeof value === 'object') {
    if (Array.isArray(value)) {
      for (const item of value) countValue(counts, item);
    } else if (!(value instanceof Uint8Array)) {
      for (const key in value as Record<string, unknown>) countValue(counts, (value as Record<string, unknown>)[key]);
    }
    return;
  }
  add(counts, String(value));
}

/** Takes one occurrence of `text`; false when the output has none left. */
function consume(counts: Counts, text: string): boolean {
  const n = counts.get(text);
  if (n === undefined || n === 0) return false;
  counts.set(text, n - 1);
  return true;
}

function keepObject(object: Record<string, unknown>, path: string, counts: Counts, out: LogAttributes): void {
  for (const key in object) {
    const value = object[key];
    if (value === undefined || value === null || value === '') continue;
    const at = path === '' ? key : `${path}.${key}`;
    if (typeof value !== 'object') {
      if (!consume(counts, String(value))) keep(out, at, value as AnyValue);
    } else if (Array.isArray(value)) {
      if (!consumeAll(value, counts)) keep(out, at, value as AnyValue);
    } else {
      keepObject(value as Record<string, unknown>, at, counts, out);
    }
  }
}

/** Consumes every leaf of `value`; false when any of them was not in the output. */
function consumeAll(value: unknown, counts: Counts): boolean {
  if (value === undefined || value === null || value === '') return true;
  if (typeof value !== 'object') return consume(counts, String(value));
  let all = true;
  if (Array.isArray(value)) {
    for (const item of value) all = consumeAll(item, counts) && all;
  } else {
    for (const key in value as Record<string, unknown>) all = consumeAll((value as Record<string, unknown>)[key], counts) && all;
  }
  return all;
}

function keep(out: LogAttributes, path: string, value: AnyValue): void {
  const key = KEPT_PREFIX + path;
  // A metadata collision value already holds this key (a field literally named `server.address`): keep both.
  out[Object.hasOwn(out, key) ? `${key}#input` : key] = value;
}
