/*
 * Parity with the Go collector: compares our decoded records with expectations transcribed from the
 * opentelemetry-collector-contrib test data (test/fixtures/go-parity/<oracle>/<case>/). Values are compared
 * in OTLP AnyValue terms, so an int and a double of the same number differ, as they do on the wire.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { parse as parseYaml } from 'yaml';
import { anyValueJson, attributesJson } from '../../src/exporters/internal/otlp-json-values.ts';
import { recordAttributeDoubles } from '../../src/pipeline/double-values.ts';

export const GO_PARITY_DIR = new URL('../fixtures/go-parity/', import.meta.url).pathname;

/** The three Go components we compare with, and the decoder options each maps to. */
export const ORACLES = {
  'translator-azure': { format: 'azure' },
  azurelogs: { format: 'azure', applySemanticConventions: true },
  'azure-encoding': { format: 'azure_encoding' },
} as const;
export type Oracle = keyof typeof ORACLES;

/** Fixed Event Hubs context, enqueued time and clock for every parity decode. */
export const PARITY_CONTEXT = {
  namespace: 'ns.servicebus.windows.net',
  eventHubName: 'insights-logs',
  consumerGroup: '$Default',
  partitionId: '0',
} as const;
export const PARITY_ENQUEUED = new Date('2030-01-01T00:00:00Z');
export const PARITY_NOW_MS = Date.parse('2030-01-01T00:00:05Z');

/** A value in OTLP AnyValue terms: each kind tagged, ints as decimal strings (int64 does not fit a double). */
export type Typed =
  | { s: string }
  | { i: string }
  | { d: number }
  | { b: boolean }
  | { bytes: string }
  | { a: Typed[] }
  | { m: Record<string, Typed> }
  | { empty: true };

/** One log record flattened with its resource and scope. */
export interface FlatRecord {
  resource: Record<string, Typed>;
  scopeName: string;
  /** The scope's attributes (`encoding.format`); undefined in a Go expectation that has none. */
  scopeAttributes?: Record<string, Typed>;
  timeUnixNano: string;
  observedTimeUnixNano?: string;
  severityNumber: number;
  severityText: string;
  body: Typed | undefined;
  attributes: Record<string, Typed>;
  eventName: string;
}

export interface ParityCase {
  oracle: Oracle;
  name: string;
  dir: string;
  input: Uint8Array;
  expected: FlatRecord[];
  source: { repo: string; commit: string; input: string; expected: string; note?: string };
  /** Decoder options from the case's optional options.json (e.g. `timeFormats`), added to the oracle's. */
  options: Record<string, unknown>;
}

/** A deliberate difference (differences.yaml): diffs of this oracle and case whose path matches are accepted. */
export interface Difference {
  id: string;
  oracle: Oracle;
  /** A case name or `*`. */
  case: string;
  /** Path pattern: `*` matches within one `[...]` or name segment, `**` anything. */
  path: string;
  /** Only diffs of this kind, when given. */
  kind?: DiffKind;
  /**
   * `input-field`: only an attribute `azure.<field>` that is a top-level field of an input record, with the
   * same value (a field the Go translator drops and we keep). `input-path`: only an attribute
   * `azure.record.<path>` whose value is the input record's value at that dotted path, verbatim.
   */
  when?: 'input-field' | 'input-path';
  why: string;
}

export type DiffKind = 'missing' | 'extra' | 'value' | 'int-vs-double' | 'count';
export interface Diff {
  path: string;
  kind: DiffKind;
  expected?: unknown;
  actual?: unknown;
}

// ---------- OTLP JSON (Go golden YAML) → Typed ----------

type OtlpAny = Record<string, any>;

function fromOtlp(v: OtlpAny | undefined | null): Typed {
  if (v === undefined || v === null) return { empty: true };
  if ('stringValue' in v) return { s: String(v.stringValue ?? '') };
  if ('intValue' in v) return { i: BigInt(v.intValue).toString() };
  if ('doubleValue' in v) return { d: Number(v.doubleValue) };
  if ('boolValue' in v) return { b: Boolean(v.boolValue) };
  if ('bytesValue' in v) return { bytes: String(v.bytesValue) };
  if ('arrayValue' in v) return { a: ((v.arrayValue ?? {}).values ?? []).map(fromOtlp) };
  if ('kvlistValue' in v) return { m: fromOtlpList((v.kvlistValue ?? {}).values) };
  return { empty: true };
}

export function fromOtlpList(list: { key: string; value?: OtlpAny }[] | undefined): Record<string, Typed> {
  const out: Record<string, Typed> = {};
  for (const kv of list ?? []) out[kv.key] = fromOtlp(kv.value);
  return out;
}

const isEmptyValue = (v: unknown) => v === null || (typeof v === 'object' && Object.keys(v as object).length === 0);

/** Flattens an OTLP-JSON-shaped expectation (`resourceLogs[].scopeLogs[].logRecords[]`). */
export function flattenExpected(doc: { resourceLogs?: any[] }): FlatRecord[] {
  const out: FlatRecord[] = [];
  for (const rl of doc?.resourceLogs ?? []) {
    const resource = fromOtlpList(rl.resource?.attributes);
    for (const sl of rl.scopeLogs ?? []) {
      for (const lr of sl.logRecords ?? []) {
        out.push({
          resource,
          scopeName: sl.scope?.name ?? '',
          ...(sl.scope?.attributes ? { scopeAttributes: fromOtlpList(sl.scope.attributes) } : {}),
          timeUnixNano: String(lr.timeUnixNano ?? '0'),
          ...(lr.observedTimeUnixNano !== undefined ? { observedTimeUnixNano: String(lr.observedTimeUnixNano) } : {}),
          severityNumber: Number(lr.severityNumber ?? 0),
          severityText: String(lr.severityText ?? ''),
          // `body: {}` (an empty AnyValue) is how golden files write "no body".
          body: lr.body === undefined || isEmptyValue(lr.body) ? undefined : fromOtlp(lr.body),
          attributes: fromOtlpList(lr.attributes),
          eventName: String(lr.eventName ?? ''),
        });
      }
    }
  }
  return out;
}

// ---------- our records → Typed ----------

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** A JS attribute value as our OTLP exporters write it: whole numbers in int64 range are ints. */
export function fromJs(v: unknown): Typed {
  if (v === undefined || v === null) return { empty: true };
  if (typeof v === 'string') return { s: v };
  if (typeof v === 'boolean') return { b: v };
  if (typeof v === 'bigint') return { i: v.toString() };
  if (typeof v === 'number') {
    if (Number.isInteger(v)) {
      const n = BigInt(v);
      if (n >= INT64_MIN && n <= INT64_MAX) return { i: n.toString() };
    }
    return { d: v };
  }
  if (v instanceof Uint8Array) return { bytes: Buffer.from(v).toString('base64') };
  if (Array.isArray(v)) return { a: v.map(fromJs) };
  if (typeof v === 'object') {
    const out: Record<string, Typed> = {};
    for (const [k, x] of Object.entries(v as Record<string, unknown>)) out[k] = fromJs(x);
    return { m: out };
  }
  return { s: String(v) };
}

const nanos = (t: readonly [number, number]) => (BigInt(t[0]) * 1_000_000_000n + BigInt(t[1])).toString();

/**
 * Flattens our records in the Go translators' order: grouped by resource (first seen first), input order
 * within a resource, which is how the Go code builds its ResourceLogs. Values are read as our OTLP/JSON encoder
 * writes them (otlp-json-values.ts), so a number is an int or a double as on the wire.
 */
export function flattenActual(records: readonly ReadableLogRecord[]): FlatRecord[] {
  const groups = new Map<string, FlatRecord[]>();
  for (const r of records) {
    const resource = fromOtlpList(attributesJson(r.resource.attributes));
    const key = JSON.stringify(resource);
    let group = groups.get(key);
    if (!group) groups.set(key, (group = []));
    const scopeAttributes = r.instrumentationScope.attributes;
    group.push({
      resource,
      scopeName: r.instrumentationScope.name,
      scopeAttributes: scopeAttributes ? fromOtlpList(attributesJson(scopeAttributes)) : {},
      timeUnixNano: nanos(r.hrTime),
      observedTimeUnixNano: nanos(r.hrTimeObserved),
      severityNumber: r.severityNumber ?? 0,
      severityText: r.severityText ?? '',
      body: r.body === undefined || r.body === null ? undefined : fromOtlp(anyValueJson(r.body)),
      attributes: fromOtlpList(attributesJson(r.attributes, false, recordAttributeDoubles(r))),
      eventName: r.eventName ?? '',
    });
  }
  return [...groups.values()].flat();
}

// ---------- comparison ----------

const kindOf = (t: Typed) => Object.keys(t)[0] as string;
const plain = (t: Typed | undefined): unknown => {
  if (t === undefined) return undefined;
  if ('s' in t) return t.s;
  if ('i' in t) return { int: t.i };
  if ('d' in t) return { double: t.d };
  if ('b' in t) return t.b;
  if ('bytes' in t) return { bytes: t.bytes };
  if ('a' in t) return t.a.map(plain);
  if ('m' in t) return Object.fromEntries(Object.entries(t.m).map(([k, x]) => [k, plain(x)]));
  return null;
};

export function compareTyped(path: string, e: Typed | undefined, a: Typed | undefined, out: Diff[]): void {
  if (e === undefined && a === undefined) return;
  if (e === undefined) {
    out.push({ path, kind: 'extra', actual: plain(a) });
    return;
  }
  if (a === undefined) {
    out.push({ path, kind: 'missing', expected: plain(e) });
    return;
  }
  const ek = kindOf(e),
    ak = kindOf(a);
  if ((ek === 'i' || ek === 'd') && (ak === 'i' || ak === 'd')) {
    const ev = 'i' in e ? Number(e.i) : (e as { d: number }).d;
    const av = 'i' in a ? Number(a.i) : (a as { d: number }).d;
    const same = ek === ak ? ('i' in e ? e.i === (a as { i: string }).i : Object.is(ev, av)) : ev === av;
    if (!same) out.push({ path, kind: 'value', expected: plain(e), actual: plain(a) });
    else if (ek !== ak) out.push({ path, kind: 'int-vs-double', expected: plain(e), actual: plain(a) });
    return;
  }
  if ('m' in e && 'm' in a) {
    compareMaps(path, e.m, a.m, out);
    return;
  }
  if ('a' in e && 'a' in a) {
    if (e.a.length !== a.a.length) {
      out.push({ path, kind: 'value', expected: plain(e), actual: plain(a) });
      return;
    }
    e.a.forEach((x, i) => compareTyped(`${path}[${i}]`, x, a.a[i], out));
    return;
  }
  if (JSON.stringify(e) !== JSON.stringify(a)) out.push({ path, kind: 'value', expected: plain(e), actual: plain(a) });
}

export function compareMaps(path: string, e: Record<string, Typed>, a: Record<string, Typed>, out: Diff[]): void {
  for (const k of new Set([...Object.keys(e), ...Object.keys(a)])) {
    compareTyped(`${path}[${JSON.stringify(k)}]`, e[k], a[k], out);
  }
}

function compareScalar(path: string, e: unknown, a: unknown, out: Diff[]): void {
  if (e !== a) out.push({ path, kind: 'value', expected: e, actual: a });
}

/** Canonical text of a resource's attributes, keys sorted. */
const resourceKey = (r: FlatRecord) =>
  JSON.stringify(Object.entries(r.resource).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * Records grouped by resource in one canonical order (by the resource's attributes), input order kept
 * within a resource: the Go translators emit ResourceLogs in Go map order, and Go's own tests compare with
 * plogtest.IgnoreResourceLogsOrder(), so the golden files list resources in whatever order they were written.
 */
function byResource(records: readonly FlatRecord[]): FlatRecord[] {
  return records
    .map((r, i) => [resourceKey(r), i, r] as const)
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] - b[1]))
    .map(([, , r]) => r);
}

/** Every difference between the Go expectation and our records, each with a path naming where. */
export function compareRecords(
  expectedAsWritten: readonly FlatRecord[],
  actualAsWritten: readonly FlatRecord[],
): Diff[] {
  const expected = byResource(expectedAsWritten);
  const actual = byResource(actualAsWritten);
  const out: Diff[] = [];
  if (expected.length !== actual.length) {
    out.push({ path: 'records.length', kind: 'count', expected: expected.length, actual: actual.length });
  }
  const n = Math.min(expected.length, actual.length);
  for (let i = 0; i < n; i++) {
    const e = expected[i]!,
      a = actual[i]!;
    const p = `records[${i}]`;
    compareMaps(`${p}.resource`, e.resource, a.resource, out);
    compareScalar(`${p}.scope.name`, e.scopeName, a.scopeName, out);
    // Go's extension tags the scope with encoding.format since early 2026; older golden files have no attributes.
    if (e.scopeAttributes !== undefined)
      compareMaps(`${p}.scope.attributes`, e.scopeAttributes, a.scopeAttributes ?? {}, out);
    compareScalar(`${p}.timeUnixNano`, e.timeUnixNano, a.timeUnixNano, out);
    if (e.observedTimeUnixNano !== undefined) {
      compareScalar(`${p}.observedTimeUnixNano`, e.observedTimeUnixNano, a.observedTimeUnixNano, out);
    }
    compareScalar(`${p}.severityNumber`, e.severityNumber, a.severityNumber, out);
    compareScalar(`${p}.severityText`, e.severityText, a.severityText, out);
    compareTyped(`${p}.body`, e.body, a.body, out);
    compareMaps(`${p}.attributes`, e.attributes, a.attributes, out);
    compareScalar(`${p}.eventName`, e.eventName, a.eventName, out);
  }
  return out;
}

// ---------- fixtures and differences ----------

const readJsonIf = (file: string) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);

/** Every case directory, oracle by oracle. */
export function loadParityCases(root = GO_PARITY_DIR): ParityCase[] {
  const cases: ParityCase[] = [];
  for (const oracle of Object.keys(ORACLES) as Oracle[]) {
    const dir = join(root, oracle);
    if (!existsSync(dir)) continue;
    for (const name of readdirSync(dir).sort()) {
      const caseDir = join(dir, name);
      if (!existsSync(join(caseDir, 'input.json'))) continue;
      cases.push({
        oracle,
        name,
        dir: caseDir,
        input: new Uint8Array(readFileSync(join(caseDir, 'input.json'))),
        expected: flattenExpected(parseYaml(readFileSync(join(caseDir, 'expected.yaml'), 'utf8'))),
        source: JSON.parse(readFileSync(join(caseDir, 'source.json'), 'utf8')),
        options: readJsonIf(join(caseDir, 'options.json')) ?? {},
      });
    }
  }
  return cases;
}

export function loadDifferences(root = GO_PARITY_DIR): Difference[] {
  const file = join(root, 'differences.yaml');
  if (!existsSync(file)) return [];
  return (parseYaml(readFileSync(file, 'utf8')) ?? []) as Difference[];
}

export function patternOf(path: string): RegExp {
  const escaped = path.replace(/[.+?^${}()|[\]\\*]/g, (c) => (c === '*' ? '*' : `\\${c}`));
  const body = escaped
    .split('**')
    .map((part) => part.replace(/\*/g, '[^\\[\\]]*'))
    .join('.*');
  return new RegExp(`^${body}$`);
}

const FIELD_ATTRIBUTE = /^records\[\d+\]\.attributes\["azure\.(.*)"\]$/;

/** Whether an extra attribute `azure.<field>` is a top-level field of one of the input's records, same value. */
function isInputField(diff: Diff, input: Uint8Array | undefined): boolean {
  const field = FIELD_ATTRIBUTE.exec(diff.path)?.[1];
  if (diff.kind !== 'extra' || field === undefined || input === undefined) return false;
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(input).toString('utf8'));
  } catch {
    return false;
  }
  const records = Array.isArray(doc) ? doc : ((doc as { records?: unknown })?.records ?? [doc]);
  // The value as sent: a number counts whatever its wire type (Go's rule makes kept numbers doubles).
  const want = JSON.stringify(numbersAlike(diff.actual));
  return (Array.isArray(records) ? records : []).some(
    (r) =>
      r !== null &&
      typeof r === 'object' &&
      Object.hasOwn(r, field) &&
      JSON.stringify(numbersAlike(plain(fromJs((r as Record<string, unknown>)[field])))) === want,
  );
}

/** A plain() value with `{int}` and `{double}` both written as the number. */
function numbersAlike(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(numbersAlike);
  if (v === null || typeof v !== 'object') return v;
  const o = v as Record<string, unknown>;
  const keys = Object.keys(o);
  if (keys.length === 1 && (keys[0] === 'int' || keys[0] === 'double')) return Number(o[keys[0]]);
  return Object.fromEntries(keys.map((k) => [k, numbersAlike(o[k])]));
}

const RECORD_PATH_ATTRIBUTE = /^records\[\d+\]\.attributes\["azure\.record\.(.*)"\]$/;

/**
 * The values at a dotted path in `value`; keys may hold dots themselves (identity claim URLs), so every split is tried.
 */
function valuesAtPath(value: unknown, path: string): unknown[] {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [];
  const out: unknown[] = [];
  for (const [key, child] of Object.entries(value as Record<string, unknown>)) {
    if (key === path) out.push(child);
    else if (path.startsWith(key + '.')) out.push(...valuesAtPath(child, path.slice(key.length + 1)));
  }
  return out;
}

/** Whether an extra attribute `azure.record.<path>` holds an input record's value at <path>, verbatim. */
function isInputPath(diff: Diff, input: Uint8Array | undefined): boolean {
  const path = RECORD_PATH_ATTRIBUTE.exec(diff.path)?.[1];
  if (diff.kind !== 'extra' || path === undefined || input === undefined) return false;
  let doc: unknown;
  try {
    doc = JSON.parse(Buffer.from(input).toString('utf8'));
  } catch {
    return false;
  }
  const records = Array.isArray(doc) ? doc : ((doc as { records?: unknown })?.records ?? [doc]);
  const want = JSON.stringify(diff.actual);
  return (Array.isArray(records) ? records : []).some((r) =>
    valuesAtPath(r, path).some((v) => JSON.stringify(plain(fromJs(v))) === want),
  );
}

/** The differences.yaml entry accepting this diff, if any. */
export function acceptedBy(
  diff: Diff,
  c: Pick<ParityCase, 'oracle' | 'name'> & { input?: Uint8Array },
  differences: readonly Difference[],
): Difference | undefined {
  return differences.find(
    (d) =>
      d.oracle === c.oracle &&
      (d.case === '*' || d.case === c.name) &&
      (d.kind === undefined || d.kind === diff.kind) &&
      patternOf(d.path).test(diff.path) &&
      (d.when !== 'input-field' || isInputField(diff, c.input)) &&
      (d.when !== 'input-path' || isInputPath(diff, c.input)),
  );
}
