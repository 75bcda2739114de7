/**
 * Strict, independent decoders for what the exporters send, built on the opentelemetry-proto messages in
 * test/fixtures/otlp/logs-service.proto, metrics-service.proto and trace-service.proto and protobufjs (not
 * on src/'s encoders). Each takes the signal of the request (`logs` by default):
 * - `strictDecodeProto`: the protobuf body must decode, and every string field must be valid UTF-8 (checked
 *   on the raw bytes: the schema is loaded a second time with `string` read as `bytes`);
 * - `strictDecodeJson`: the body must be valid UTF-8 and OTLP/JSON as the protobuf JSON mapping and the OTLP
 *   specification write it: lowerCamelCase field names only, 64-bit integers as decimal strings in range,
 *   doubles as numbers or "NaN"/"Infinity"/"-Infinity", enums as integers, bytes as base64, trace and span
 *   IDs as hex, strings free of lone surrogates, no nulls, at most one member per oneof.
 * Both return the same canonical object for the same content: 64-bit integers as decimal strings, bytes as
 * base64, fields at their default left out (except the AnyValue variants, where a default is content).
 */
import { readFileSync } from 'node:fs';
import protobuf from 'protobufjs';

/** The signal of a request: which export request message the bytes are. */
export type OtlpSignal = 'logs' | 'metrics' | 'traces';

const SCHEMAS: Record<OtlpSignal, { file: string; pkg: string; request: string }> = {
  logs: {
    file: 'logs-service.proto',
    pkg: 'opentelemetry.proto.collector.logs.v1',
    request: 'ExportLogsServiceRequest',
  },
  metrics: {
    file: 'metrics-service.proto',
    pkg: 'opentelemetry.proto.collector.metrics.v1',
    request: 'ExportMetricsServiceRequest',
  },
  traces: {
    file: 'trace-service.proto',
    pkg: 'opentelemetry.proto.collector.trace.v1',
    request: 'ExportTraceServiceRequest',
  },
};

const protoPath = (signal: OtlpSignal) => new URL(`../fixtures/otlp/${SCHEMAS[signal].file}`, import.meta.url);
/** The .proto files' paths, for @grpc/proto-loader. */
export const LOGS_SERVICE_PROTO = protoPath('logs').pathname;
export const METRICS_SERVICE_PROTO = protoPath('metrics').pathname;
export const TRACE_SERVICE_PROTO = protoPath('traces').pathname;

interface Schema {
  readonly requestType: protobuf.Type;
  /** The same schema with every string field read as bytes, to check UTF-8 on the bytes themselves. */
  readonly rawRequestType: protobuf.Type;
}

const schemas = new Map<OtlpSignal, Schema>();
function schema(signal: OtlpSignal): Schema {
  let known = schemas.get(signal);
  if (known) return known;
  const { pkg, request } = SCHEMAS[signal];
  const source = readFileSync(protoPath(signal), 'utf8');
  const root = protobuf.parse(source).root.resolveAll();
  const rawRoot = protobuf.parse(source.replace(/^(\s*(?:repeated\s+)?)string(\s)/gm, '$1bytes$2')).root.resolveAll();
  known = {
    requestType: root.lookupType(`${pkg}.${request}`),
    rawRequestType: rawRoot.lookupType(`${pkg}.${request}`),
  };
  schemas.set(signal, known);
  return known;
}

const UTF8 = new TextDecoder('utf-8', { fatal: true });
const ANY_VALUE_VARIANTS = new Set([
  'stringValue',
  'boolValue',
  'intValue',
  'doubleValue',
  'bytesValue',
  'arrayValue',
  'kvlistValue',
]);
const HEX_ID_FIELDS = new Set(['traceId', 'spanId', 'parentSpanId']);

/** A strict decoder's refusal: the path of the offending value and why. */
export class OtlpStrictError extends Error {
  override readonly name = 'OtlpStrictError';
}

const canonicalOptions = { longs: String, bytes: String, enums: Number, defaults: false } as const;

/** Decodes a protobuf export request of `signal` strictly; returns its canonical object. */
export function strictDecodeProto(bytes: Uint8Array, signal: OtlpSignal = 'logs'): any {
  const { requestType, rawRequestType } = schema(signal);
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const raw = rawRequestType.toObject(rawRequestType.decode(view), { bytes: Buffer, longs: String, defaults: false });
  checkUtf8(raw, requestType, 'request');
  return prune(requestType.toObject(requestType.decode(view), canonicalOptions));
}

function checkUtf8(value: any, type: protobuf.Type, path: string): void {
  for (const field of type.fieldsArray) {
    const v = value[field.name];
    if (v === undefined) continue;
    const items = field.repeated ? (v as unknown[]) : [v];
    items.forEach((item, i) => {
      const at = `${path}.${field.name}${field.repeated ? `[${i}]` : ''}`;
      if (field.type === 'string') {
        try {
          UTF8.decode(item as Buffer);
        } catch {
          throw new OtlpStrictError(`${at}: string is not valid UTF-8`);
        }
      } else if (field.resolvedType instanceof protobuf.Type) {
        checkUtf8(item, field.resolvedType, at);
      }
    });
  }
}

/** Parses an OTLP/JSON export request of `signal` strictly; returns its canonical object. */
export function strictDecodeJson(bytes: Uint8Array, signal: OtlpSignal = 'logs'): any {
  const { requestType } = schema(signal);
  let text: string;
  try {
    text = UTF8.decode(bytes);
  } catch {
    throw new OtlpStrictError('body is not valid UTF-8');
  }
  const json = JSON.parse(text) as unknown;
  checkJson(json, requestType, 'request');
  return prune(requestType.toObject(requestType.fromObject(hexIdsToBase64(json)), canonicalOptions));
}

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;
const INTEGER = /^-?(0|[1-9]\d*)$/;
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

function checkJson(value: unknown, type: protobuf.Type, path: string): void {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new OtlpStrictError(`${path}: expected an object`);
  const oneofsSet = new Map<string, string>();
  for (const [key, v] of Object.entries(value)) {
    const at = `${path}.${key}`;
    const field = type.fields[key];
    if (field === undefined)
      throw new OtlpStrictError(`${at}: no such field in ${type.name} (lowerCamelCase names only)`);
    if (field.partOf) {
      const other = oneofsSet.get(field.partOf.name);
      if (other !== undefined) throw new OtlpStrictError(`${at}: oneof ${field.partOf.name} already set by ${other}`);
      oneofsSet.set(field.partOf.name, key);
    }
    if (field.repeated) {
      if (!Array.isArray(v)) throw new OtlpStrictError(`${at}: expected an array`);
      v.forEach((item, i) => checkJsonValue(item, field, `${at}[${i}]`));
    } else {
      checkJsonValue(v, field, at);
    }
  }
}

function checkJsonValue(v: unknown, field: protobuf.Field, at: string): void {
  const fail = (why: string): never => {
    throw new OtlpStrictError(`${at}: ${why}: ${JSON.stringify(v)?.slice(0, 80)}`);
  };
  if (v === null) fail('null');
  if (field.resolvedType instanceof protobuf.Type) return checkJson(v, field.resolvedType, at);
  if (field.resolvedType instanceof protobuf.Enum) {
    if (!Number.isInteger(v) || !Object.values(field.resolvedType.values).includes(v as number))
      fail('expected an enum integer');
    return;
  }
  switch (field.type) {
    case 'string':
      if (typeof v !== 'string') fail('expected a string');
      if (!(v as string).isWellFormed()) fail('string holds a lone surrogate');
      return;
    case 'bool':
      if (typeof v !== 'boolean') fail('expected a boolean');
      return;
    case 'int64':
    case 'fixed64':
    case 'uint64': {
      if (typeof v !== 'string' || !INTEGER.test(v)) fail('expected a decimal string');
      const n = BigInt(v as string);
      const [min, max] = field.type === 'int64' ? [INT64_MIN, INT64_MAX] : [0n, UINT64_MAX];
      if (n < min || n > max) fail(`outside ${field.type}`);
      return;
    }
    case 'uint32':
    case 'fixed32':
    case 'int32':
      if (!Number.isInteger(v) || (v as number) < (field.type === 'int32' ? -(2 ** 31) : 0) || (v as number) >= 2 ** 32)
        fail(`expected ${field.type}`);
      return;
    case 'double':
      if (typeof v === 'number' ? !Number.isFinite(v) : !['NaN', 'Infinity', '-Infinity'].includes(v as string))
        fail('expected a double');
      return;
    case 'bytes':
      if (typeof v !== 'string') fail('expected a string');
      if (HEX_ID_FIELDS.has(field.name) ? !/^(?:[0-9a-f]{2})*$/i.test(v as string) : !BASE64.test(v as string))
        fail('bad encoding');
      return;
    default:
      fail(`unhandled type ${field.type}`);
  }
}

/**
 * OTLP/JSON writes trace and span IDs as hex; protobufjs reads bytes as base64. The IDs of log records,
 * spans and span links (the only places the exporters write IDs) are converted.
 */
function hexIdsToBase64(value: any): any {
  const convert = (item: any) => {
    for (const k of HEX_ID_FIELDS)
      if (typeof item[k] === 'string') item[k] = Buffer.from(item[k], 'hex').toString('base64');
  };
  for (const rl of value.resourceLogs ?? [])
    for (const sl of rl.scopeLogs ?? []) for (const lr of sl.logRecords ?? []) convert(lr);
  for (const rs of value.resourceSpans ?? []) {
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        convert(span);
        for (const link of span.links ?? []) convert(link);
      }
    }
  }
  return value;
}

/** Leaves out fields at their default (0, "0", "", false, []), except the variants of an AnyValue. */
function prune(value: any): any {
  if (Array.isArray(value)) return value.map(prune);
  if (typeof value !== 'object' || value === null) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const isDefault = v === 0 || v === '0' || v === '' || v === false || (Array.isArray(v) && v.length === 0);
    if (isDefault && !ANY_VALUE_VARIANTS.has(k)) continue;
    out[k] = prune(v);
  }
  return out;
}
