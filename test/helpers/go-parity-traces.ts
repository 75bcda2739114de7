/*
 * Parity with the Go collector for traces: compares our spans with the Go translator's output for the cases in
 * test/fixtures/go-parity/traces/<case>/ (same layout as the log cases, `resourceSpans` instead of
 * `resourceLogs`). Values are compared in OTLP AnyValue terms, as for logs (test/helpers/go-parity.ts).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { SpanRecord } from '../../src/pipeline/signals.ts';
import { attributesJson } from '../../src/exporters/internal/otlp-json-values.ts';
import {
  compareMaps,
  fromOtlpList,
  GO_PARITY_DIR,
  patternOf,
  type Diff,
  type DiffKind,
  type Typed,
} from './go-parity.ts';

export const TRACE_PARITY_DIR = join(GO_PARITY_DIR, 'traces');

/** One span flattened with its resource and scope. */
export interface FlatSpan {
  resource: Record<string, Typed>;
  scopeName: string;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  name: string;
  kind: number;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: Record<string, Typed>;
  statusCode: number;
  statusMessage: string;
}

export interface TraceParityCase {
  name: string;
  input: Uint8Array;
  /** Records in the input (`records` of the body). */
  inputRecords: number;
  expected: FlatSpan[];
  source: { repo: string; commit: string; input: string; expected: string; note?: string };
  options: Record<string, unknown>;
}

/** A deliberate difference from Go's traces output (traces/differences.yaml). */
export interface TraceDifference {
  id: string;
  /** A case name or `*`. */
  case: string;
  /** Diff path pattern: `*` matches within one `[...]` or name segment, `**` anything. */
  path: string;
  kind?: DiffKind;
  /** Only diffs on spans of these OTLP kinds (ours), when given: 2 for requests, 3 for dependencies. */
  spanKinds?: number[];
  why: string;
}

/** Flattens an OTLP-JSON-shaped expectation (`resourceSpans[].scopeSpans[].spans[]`). */
export function flattenExpectedSpans(doc: { resourceSpans?: any[] }): FlatSpan[] {
  const out: FlatSpan[] = [];
  for (const rs of doc?.resourceSpans ?? []) {
    const resource = fromOtlpList(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const s of ss.spans ?? []) {
        out.push({
          resource,
          scopeName: ss.scope?.name ?? '',
          traceId: String(s.traceId ?? ''),
          spanId: String(s.spanId ?? ''),
          parentSpanId: String(s.parentSpanId ?? ''),
          name: String(s.name ?? ''),
          kind: Number(s.kind ?? 0),
          startTimeUnixNano: String(s.startTimeUnixNano ?? '0'),
          endTimeUnixNano: String(s.endTimeUnixNano ?? '0'),
          attributes: fromOtlpList(s.attributes),
          statusCode: Number(s.status?.code ?? 0),
          statusMessage: String(s.status?.message ?? ''),
        });
      }
    }
  }
  return out;
}

const nanos = (t: readonly [number, number]) => (BigInt(t[0]) * 1_000_000_000n + BigInt(t[1])).toString();

/** Flattens our spans in their order (input order: Go keeps it too, in its one ResourceSpans). */
export function flattenActualSpans(spans: readonly SpanRecord[]): FlatSpan[] {
  return spans.map((s) => ({
    resource: fromOtlpList(attributesJson(s.resource.attributes)),
    scopeName: s.scope.name,
    traceId: s.traceId,
    spanId: s.spanId,
    parentSpanId: s.parentSpanId,
    name: s.name,
    kind: s.kind,
    startTimeUnixNano: nanos(s.startTime),
    endTimeUnixNano: nanos(s.endTime),
    attributes: fromOtlpList(attributesJson(s.attributes)),
    statusCode: s.status.code,
    statusMessage: s.status.message ?? '',
  }));
}

const SCALARS = [
  'scopeName',
  'traceId',
  'spanId',
  'parentSpanId',
  'name',
  'kind',
  'startTimeUnixNano',
  'endTimeUnixNano',
  'statusCode',
  'statusMessage',
] as const;

/** Every difference between Go's spans and ours, span by span in order, each with a path naming where. */
export function compareSpans(expected: readonly FlatSpan[], actual: readonly FlatSpan[]): Diff[] {
  const out: Diff[] = [];
  if (expected.length !== actual.length) {
    out.push({ path: 'spans.length', kind: 'count', expected: expected.length, actual: actual.length });
  }
  for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
    const e = expected[i]!,
      a = actual[i]!;
    compareMaps(`spans[${i}].resource`, e.resource, a.resource, out);
    for (const field of SCALARS) {
      if (e[field] !== a[field])
        out.push({ path: `spans[${i}].${field}`, kind: 'value', expected: e[field], actual: a[field] });
    }
    compareMaps(`spans[${i}].attributes`, e.attributes, a.attributes, out);
  }
  return out;
}

const readJsonIf = (file: string) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);

export function loadTraceParityCases(root = TRACE_PARITY_DIR): TraceParityCase[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort()
    .filter((name) => existsSync(join(root, name, 'input.json')))
    .map((name) => {
      const dir = join(root, name);
      const input = new Uint8Array(readFileSync(join(dir, 'input.json')));
      const body = JSON.parse(Buffer.from(input).toString('utf8')) as { records?: unknown[] };
      return {
        name,
        input,
        inputRecords: body.records?.length ?? 0,
        expected: flattenExpectedSpans(parseYaml(readFileSync(join(dir, 'expected.yaml'), 'utf8'))),
        source: JSON.parse(readFileSync(join(dir, 'source.json'), 'utf8')),
        options: readJsonIf(join(dir, 'options.json')) ?? {},
      };
    });
}

export function loadTraceDifferences(root = TRACE_PARITY_DIR): TraceDifference[] {
  const file = join(root, 'differences.yaml');
  return existsSync(file) ? ((parseYaml(readFileSync(file, 'utf8')) ?? []) as TraceDifference[]) : [];
}

const SPAN_INDEX = /^spans\[(\d+)\]/;

/** The differences.yaml entry accepting this diff in this case (`actual`: our spans), if any. */
export function traceDifferenceFor(
  diff: Diff,
  caseName: string,
  actual: readonly FlatSpan[],
  differences: readonly TraceDifference[],
): TraceDifference | undefined {
  const index = SPAN_INDEX.exec(diff.path)?.[1];
  const kind = index === undefined ? undefined : actual[Number(index)]?.kind;
  return differences.find(
    (d) =>
      (d.case === '*' || d.case === caseName) &&
      (d.kind === undefined || d.kind === diff.kind) &&
      patternOf(d.path).test(diff.path) &&
      (d.spanKinds === undefined || (kind !== undefined && d.spanKinds.includes(kind))),
  );
}
