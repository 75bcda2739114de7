/**
 * For the all-signals end-to-end tests: a stream of mixed events (Azure resource logs, platform metrics,
 * Application Insights operations, from the product's samples), what each event must produce, and the
 * reading of the `file` exporters' output, one file per signal, every line through the independent
 * strict OTLP decoder (test/helpers/otlp-strict.ts).
 *
 * Items are keyed so that a missing one is named: a log event by partition and sequence number (its
 * records carry both as attributes), a metric point by resource, name and time (each metric event gets a
 * minute of its own), a span by its span id (each operation's ids are its own).
 */
import { readFile } from 'node:fs/promises';
import type { CliProcess } from './cli-process.ts';
import {
  SAMPLE_CATEGORIES,
  sampleMetricRecords,
  sampleResourceLogBody,
  sampleTraceRecords,
} from '../../scripts/local/samples.ts';
import type { Signal } from '../../src/pipeline/signals.ts';
import { strictDecodeJson } from '../helpers/otlp-strict.ts';

/** The Go receiver's aggregations, in its order; each becomes a gauge `<metric name>_<aggregation>`. */
const AGGREGATIONS = ['total', 'count', 'minimum', 'maximum', 'average'] as const;

export interface ExpectedSpan {
  readonly traceId: string;
  readonly name: string;
  /** The parent's span id when the record's `ParentId` is one (16 hex); undefined for a root request. */
  readonly parentSpanId: string | undefined;
  readonly startTimeUnixNano: string;
}

export interface StreamEvent {
  readonly signal: Signal;
  readonly partition: string;
  readonly body: string;
}

/** Nanoseconds since the epoch of an Azure ISO 8601 time with up to 7 fractional digits, exactly. */
export function isoToNanos(iso: string): string {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(iso);
  if (!m) throw new Error(`not an ISO 8601 UTC time: ${iso}`);
  const seconds = BigInt(Date.parse(`${m[1]}Z`) / 1000);
  return String(seconds * 1_000_000_000n + BigInt((m[2] ?? '').padEnd(9, '0')));
}

/**
 * Mixed events in turn (logs, metrics, traces by default), spread over the partitions so that every partition gets
 * every signal, with the items each must produce. Sequence numbers are counted per partition from 0 (a
 * fresh emulator hub), so every event must be appended, in order, to the partition `next()` names.
 */
export class MixedStream {
  readonly logs = new Map<string, number>();
  readonly metrics = new Map<string, number>();
  readonly spans = new Map<string, ExpectedSpan>();
  readonly events: StreamEvent[] = [];
  readonly #nextSequence = new Map<string, number>();
  /** Each metric event reports a minute of its own, counting back from this one. */
  readonly #minuteMs = Math.floor(Date.now() / 60_000) * 60_000;

  constructor(
    private readonly partitions: number,
    private readonly signals: readonly Signal[] = ['logs', 'metrics', 'traces'],
  ) {}

  next(): StreamEvent {
    const n = this.events.length;
    const turns = this.signals.length;
    const signal = this.signals[n % turns]!;
    const partition = String(Math.floor(n / turns) % this.partitions);
    const sequence = this.#nextSequence.get(partition) ?? 0;
    this.#nextSequence.set(partition, sequence + 1);
    const k = Math.floor(n / turns);
    let body: string;
    if (signal === 'logs') {
      const records = 1 + (k % 3);
      body = sampleResourceLogBody(SAMPLE_CATEGORIES[k % SAMPLE_CATEGORIES.length]!, { records, index: k });
      this.logs.set(`${partition}/${sequence}`, records);
    } else if (signal === 'metrics') {
      const records = sampleMetricRecords({ records: 4, index: k, time: new Date(this.#minuteMs - k * 60_000) });
      for (const r of records) {
        const base = (r.metricName as string).replace(/ /g, '_').toLowerCase();
        const time = isoToNanos(r.time as string);
        for (const agg of AGGREGATIONS)
          this.metrics.set(metricKey(r.resourceId as string, `${base}_${agg}`, time), r[agg] as number);
      }
      body = JSON.stringify({ records });
    } else {
      const records = sampleTraceRecords({ records: 2 + (k % 3), index: k });
      for (const r of records) {
        const parent = r.ParentId as string;
        this.spans.set(r.Id as string, {
          traceId: r.OperationId as string,
          name: r.Name as string,
          parentSpanId: parent.length === 16 ? parent : undefined,
          startTimeUnixNano: isoToNanos(r.time as string),
        });
      }
      body = JSON.stringify({ records });
    }
    const event = { signal, partition, body };
    this.events.push(event);
    return event;
  }

  /** Log records expected over all log events. */
  logRecordCount(): number {
    return [...this.logs.values()].reduce((a, b) => a + b, 0);
  }
}

export function metricKey(resourceId: string, name: string, timeUnixNano: string): string {
  return `${resourceId}|${name}|${timeUnixNano}`;
}

/** The top-level field of each signal's export request (OTLP/JSON). */
const REQUEST_FIELD: Record<Signal, string> = {
  logs: 'resourceLogs',
  metrics: 'resourceMetrics',
  traces: 'resourceSpans',
};

export interface SignalFile {
  /** Each line's request, as the strict decoder returned it (canonical form). */
  readonly requests: any[];
  /** A last line without its newline (a write cut by kill -9): left out of `requests`, counted here. */
  readonly tornTail: boolean;
}

/**
 * Reads one `file` exporter's output: every complete line must be one export request of `signal` only
 * (no other signal's field) and pass the strict decoder; with `allowTornTail`, a last line without a
 * newline (the process was killed during the write) is set aside. Missing file: no requests.
 */
export async function readSignalFile(
  path: string,
  signal: Signal,
  options: { allowTornTail?: boolean } = {},
): Promise<SignalFile> {
  const text = await readFile(path, 'utf8').catch(() => '');
  const lines = text.split('\n');
  const tail = lines.pop() ?? '';
  const tornTail = tail !== '';
  if (tornTail && !options.allowTornTail) throw new Error(`${path}: last line has no newline: ${tail.slice(0, 80)}`);
  const requests = lines.map((line, i) => {
    const fields = Object.keys(JSON.parse(line) as object);
    if (fields.length !== 1 || fields[0] !== REQUEST_FIELD[signal]) {
      throw new Error(`${path} line ${i + 1}: fields ${fields.join(', ')}; expected only ${REQUEST_FIELD[signal]}`);
    }
    try {
      return strictDecodeJson(Buffer.from(line, 'utf8'), signal);
    } catch (error) {
      const why = (error as Error).message;
      throw new Error(`${path} line ${i + 1}: the strict OTLP decoder refused it: ${why}`, { cause: error });
    }
  });
  return { requests, tornTail };
}

type KeyValue = { key: string; value: Record<string, unknown> };
const attr = (attributes: KeyValue[] | undefined, key: string): unknown => {
  const v = attributes?.find((a) => a.key === key)?.value;
  return v === undefined ? undefined : Object.values(v)[0];
};

/**
 * Log records per event (`partition/sequence`), from their event attributes (the receiver must run with
 * `event_metadata: messaging`).
 */
export function logRecordsByEvent(requests: any[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const req of requests) {
    for (const rl of req.resourceLogs ?? []) {
      for (const sl of rl.scopeLogs ?? []) {
        for (const lr of sl.logRecords ?? []) {
          const key = eventKeyOf(lr);
          out.set(key, (out.get(key) ?? 0) + 1);
        }
      }
    }
  }
  return out;
}

/** `partition/sequence` of a log record (OTLP/JSON), from its `messaging` event metadata. */
function eventKeyOf(lr: { attributes?: KeyValue[] }): string {
  const partition = attr(lr.attributes, 'messaging.destination.partition.id');
  return `${partition}/${attr(lr.attributes, 'azure.eventhubs.message.sequence_number')}`;
}

/** Every exported log record's `log.record.uid` with its event (`partition/sequence`), in export order. */
export function logRecordUids(requests: any[]): { uid: unknown; event: string }[] {
  const out: { uid: unknown; event: string }[] = [];
  for (const req of requests) {
    for (const rl of req.resourceLogs ?? []) {
      for (const sl of rl.scopeLogs ?? []) {
        for (const lr of sl.logRecords ?? [])
          out.push({ uid: attr(lr.attributes, 'log.record.uid'), event: eventKeyOf(lr) });
      }
    }
  }
  return out;
}

export interface ExportedPoint {
  readonly key: string;
  readonly value: number;
  readonly startTimeUnixNano: string | undefined;
}

/** Every gauge data point, keyed by its resource's `azure.resource.id`, the metric's name and the point's time. */
export function metricPoints(requests: any[]): ExportedPoint[] {
  const out: ExportedPoint[] = [];
  for (const req of requests) {
    for (const rm of req.resourceMetrics ?? []) {
      const resourceId = String(attr(rm.resource?.attributes, 'azure.resource.id'));
      for (const sm of rm.scopeMetrics ?? []) {
        for (const m of sm.metrics ?? []) {
          for (const dp of m.gauge?.dataPoints ?? []) {
            out.push({
              key: metricKey(resourceId, m.name, String(dp.timeUnixNano)),
              value: Number(dp.asDouble ?? 0),
              startTimeUnixNano: dp.startTimeUnixNano,
            });
          }
        }
      }
    }
  }
  return out;
}

export interface ExportedSpan {
  readonly traceId: string;
  readonly spanId: string;
  readonly parentSpanId: string;
  readonly name: string;
  readonly startTimeUnixNano: string;
}

/** Every span, ids as lowercase hex (the strict decoder's canonical form holds them as base64). */
export function spans(requests: any[]): ExportedSpan[] {
  const hex = (b64: unknown): string => (typeof b64 === 'string' ? Buffer.from(b64, 'base64').toString('hex') : '');
  const out: ExportedSpan[] = [];
  for (const req of requests) {
    for (const rs of req.resourceSpans ?? []) {
      for (const ss of rs.scopeSpans ?? []) {
        for (const s of ss.spans ?? []) {
          out.push({
            traceId: hex(s.traceId),
            spanId: hex(s.spanId),
            parentSpanId: hex(s.parentSpanId),
            name: s.name ?? '',
            startTimeUnixNano: String(s.startTimeUnixNano ?? '0'),
          });
        }
      }
    }
  }
  return out;
}

/** Counts per key; keys seen more than once are duplicates (allowed at-least-once, reported). */
export function tally(keys: Iterable<string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const k of keys) out.set(k, (out.get(k) ?? 0) + 1);
  return out;
}

/** Resolves once `cli` logged every partition of the hub as owned; rejects at once, with its stderr, if it exits. */
export async function allPartitionsOwned(cli: CliProcess, partitions: number, timeoutMs: number): Promise<void> {
  await Promise.all(
    Array.from({ length: partitions }, (_, p) =>
      cli.waitForLog(
        (l) => l.msg === 'partition owned' && l.partition === String(p),
        timeoutMs,
        `partition ${p} owned`,
      ),
    ),
  );
}
