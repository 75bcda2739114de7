/*
 * Parity with the Go collector for metrics: compares our metric points with expectations transcribed from the
 * opentelemetry-collector-contrib azureeventhubreceiver metrics tests (test/fixtures/go-parity/metrics/<case>/).
 * Values in OTLP AnyValue terms (go-parity.ts), point values as doubles.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { MetricPoint } from '../../src/pipeline/signals.ts';
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

export const METRICS_PARITY_DIR = join(GO_PARITY_DIR, 'metrics');

/** One gauge point flattened with its resource, scope and metric. */
export interface FlatPoint {
  resource: Record<string, Typed>;
  scopeName: string;
  name: string;
  unit: string;
  description: string;
  kind: string;
  startTimeUnixNano: string | undefined;
  timeUnixNano: string;
  value: number;
  attributes: Record<string, Typed>;
}

export interface MetricParityCase {
  name: string;
  input: Uint8Array;
  expected: FlatPoint[];
  source: { repo: string; commit: string; input: string; expected: string; note?: string };
  options: Record<string, unknown>;
}

/** A deliberate difference (metrics/differences.yaml). */
export interface MetricDifference {
  id: string;
  /** A case name or `*`. */
  case: string;
  /** Path pattern as in go-parity.ts: `*` within one segment, `**` anything. */
  path: string;
  kind?: DiffKind;
  /** When given, only a diff whose value on our side is exactly this (`$packageVersion`: package.json's). */
  actual?: unknown;
  why: string;
}

/** Flattens `resourceMetrics[].scopeMetrics[].metrics[].gauge.dataPoints[]` in document order. */
export function flattenExpectedMetrics(doc: { resourceMetrics?: any[] }): FlatPoint[] {
  const out: FlatPoint[] = [];
  for (const rm of doc?.resourceMetrics ?? []) {
    const resource = fromOtlpList(rm.resource?.attributes);
    for (const sm of rm.scopeMetrics ?? []) {
      for (const m of sm.metrics ?? []) {
        const kind = m.gauge
          ? 'gauge'
          : (Object.keys(m).find((k) => !['name', 'unit', 'description', 'metadata'].includes(k)) ?? '');
        for (const dp of m.gauge?.dataPoints ?? m.sum?.dataPoints ?? []) {
          out.push({
            resource,
            scopeName: sm.scope?.name ?? '',
            name: String(m.name ?? ''),
            unit: String(m.unit ?? ''),
            description: String(m.description ?? ''),
            kind,
            startTimeUnixNano: dp.startTimeUnixNano === undefined ? undefined : String(dp.startTimeUnixNano),
            timeUnixNano: String(dp.timeUnixNano ?? '0'),
            value: dp.asDouble !== undefined ? Number(dp.asDouble) : Number(dp.asInt ?? NaN),
            attributes: fromOtlpList(dp.attributes),
          });
        }
      }
    }
  }
  return out;
}

const nanos = (t: readonly [number, number]) => (BigInt(t[0]) * 1_000_000_000n + BigInt(t[1])).toString();

/** Our points, in the order decoded (record order, then Go's aggregation order). */
export function flattenActualMetrics(points: readonly MetricPoint[]): FlatPoint[] {
  return points.map((p) => ({
    resource: fromOtlpList(attributesJson(p.resource.attributes)),
    scopeName: p.scope.name,
    name: p.name,
    unit: p.unit,
    description: p.description,
    kind: p.kind,
    startTimeUnixNano: p.startTime === undefined ? undefined : nanos(p.startTime),
    timeUnixNano: nanos(p.time),
    value: p.value,
    attributes: fromOtlpList(attributesJson(p.attributes)),
  }));
}

function scalar(path: string, e: unknown, a: unknown, out: Diff[]): void {
  if (!Object.is(e, a))
    out.push({ path, kind: e === undefined ? 'extra' : a === undefined ? 'missing' : 'value', expected: e, actual: a });
}

/** Every difference, point by point in order (Go writes one ResourceMetrics per record, in record order). */
export function comparePoints(expected: readonly FlatPoint[], actual: readonly FlatPoint[]): Diff[] {
  const out: Diff[] = [];
  if (expected.length !== actual.length)
    out.push({ path: 'points.length', kind: 'count', expected: expected.length, actual: actual.length });
  for (let i = 0; i < Math.min(expected.length, actual.length); i++) {
    const e = expected[i]!,
      a = actual[i]!;
    const p = `points[${i}]`;
    compareMaps(`${p}.resource`, e.resource, a.resource, out);
    scalar(`${p}.scope.name`, e.scopeName, a.scopeName, out);
    scalar(`${p}.name`, e.name, a.name, out);
    scalar(`${p}.unit`, e.unit, a.unit, out);
    scalar(`${p}.description`, e.description, a.description, out);
    scalar(`${p}.kind`, e.kind, a.kind, out);
    scalar(`${p}.startTimeUnixNano`, e.startTimeUnixNano, a.startTimeUnixNano, out);
    scalar(`${p}.timeUnixNano`, e.timeUnixNano, a.timeUnixNano, out);
    scalar(`${p}.value`, e.value, a.value, out);
    compareMaps(`${p}.attributes`, e.attributes, a.attributes, out);
  }
  return out;
}

const readJsonIf = (file: string) => (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : undefined);

export function loadMetricCases(root = METRICS_PARITY_DIR): MetricParityCase[] {
  if (!existsSync(root)) return [];
  return readdirSync(root)
    .sort()
    .filter((name) => existsSync(join(root, name, 'input.json')))
    .map((name) => ({
      name,
      input: new Uint8Array(readFileSync(join(root, name, 'input.json'))),
      expected: flattenExpectedMetrics(parseYaml(readFileSync(join(root, name, 'expected.yaml'), 'utf8'))),
      source: JSON.parse(readFileSync(join(root, name, 'source.json'), 'utf8')),
      options: readJsonIf(join(root, name, 'options.json')) ?? {},
    }));
}

export function loadMetricDifferences(root = METRICS_PARITY_DIR): MetricDifference[] {
  const file = join(root, 'differences.yaml');
  return existsSync(file) ? ((parseYaml(readFileSync(file, 'utf8')) ?? []) as MetricDifference[]) : [];
}

/** The differences.yaml entry accepting this diff, if any. */
export function metricDiffAcceptedBy(
  diff: Diff,
  caseName: string,
  differences: readonly MetricDifference[],
  packageVersion: string,
): MetricDifference | undefined {
  return differences.find(
    (d) =>
      (d.case === '*' || d.case === caseName) &&
      (d.kind === undefined || d.kind === diff.kind) &&
      patternOf(d.path).test(diff.path) &&
      (d.actual === undefined ||
        JSON.stringify(d.actual === '$packageVersion' ? packageVersion : d.actual) === JSON.stringify(diff.actual)),
  );
}
