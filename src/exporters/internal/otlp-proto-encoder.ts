/**
 * OTLP/protobuf encoding of a logs export request in one pass: the one place where this project replaces
 * a step of the OpenTelemetry JS libraries (`ProtobufLogsSerializer.serializeRequest` of
 * @opentelemetry/otlp-transformer 0.223.1, which walks every record twice, a size pass then a write pass,
 * scanning each string up to three times). The output is the same bytes as that serializer's, field
 * for field and in the same order (test/unit/exporters/otlp-proto-encoder.test.ts compares both, and
 * decodes them with the opentelemetry-proto schema), except for times outside (0, 2^63) ns, written 0
 * instead of wrapped around (internal/otlp-wire-values.ts).
 *
 * Field numbers are those of opentelemetry-proto v1 (collector/logs/v1/logs_service.proto,
 * logs/v1/logs.proto, common/v1/common.proto, resource/v1/resource.proto).
 */
import type { Resource } from '@opentelemetry/resources';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import {
  ProtobufLogsSerializer,
  type ISerializer,
  type IExportLogsServiceResponse,
} from '@opentelemetry/otlp-transformer';
import {
  resourceField,
  scopeField,
  type Scope,
  writeAnyValueMessage,
  writeAttributes,
  writeHexBytes,
  writeHrTime,
} from './otlp-proto-values.ts';
import { ProtoWriter, putVarint, varintSize } from './proto-writer.ts';
import { recordAttributeDoubles, recordBodyDoubles } from '../../pipeline/double-values.ts';

// Tags: field number << 3 | wire type (0 varint, 1 fixed64, 2 length-delimited, 5 fixed32).
const LEN_1 = 0x0a; // ExportLogsServiceRequest.resource_logs
const LEN_2 = 0x12; // ResourceLogs.scope_logs, ScopeLogs.log_records
const LEN_3 = 0x1a; // ResourceLogs.schema_url, ScopeLogs.schema_url
const LOG_TIME = 0x09;
const LOG_SEVERITY_NUMBER = 0x10;
const LOG_SEVERITY_TEXT = 0x1a;
const LOG_BODY = 0x2a;
const LOG_ATTRIBUTES = 6; // field number: attributes are written by writeAttributes(field)
const LOG_DROPPED = 0x38;
const LOG_FLAGS = 0x45;
const LOG_TRACE_ID = 0x4a;
const LOG_SPAN_ID = 0x52;
const LOG_OBSERVED_TIME = 0x59;
const LOG_EVENT_NAME = 0x62;

/** A builder's record buffer starts at this size and doubles as it fills. 64 KiB. */
const INITIAL_RECORD_BYTES = 64 * 1024;
/** A record buffer grown past this is let go once its request is finished, not kept for the next. 4 MiB. */
const KEPT_RECORD_BYTES = 4 * 1024 * 1024;

/**
 * An ExportLogsServiceRequest built a few records at a time. Each record is encoded when it is added, into a
 * buffer kept from one request to the next; `finish()` writes the request, grouped by resource then scope
 * object in first-seen order (as upstream groups them), into a buffer of its exact size. A caller may drop
 * records as soon as they are added: a decode thread adds each slice of a batch as it is decoded, so no
 * record lives long enough to be copied by a young-generation collection or moved to the old one.
 */
export class LogsRequestBuilder {
  #w = new ProtoWriter(INITIAL_RECORD_BYTES);
  /** Per resource, per scope, the [start, end) ranges of its records in the record buffer, merged when adjacent. */
  readonly #groups = new Map<Resource, Map<Scope, number[]>>();
  #records = 0;

  /** Records added since the last finish(). */
  get records(): number {
    return this.#records;
  }

  add(records: readonly ReadableLogRecord[]): void {
    const w = this.#w;
    let resource: Resource | undefined;
    let scope: Scope | undefined;
    let ranges: number[] = [];
    for (const record of records) {
      if (record.resource !== resource || record.instrumentationScope !== scope) {
        resource = record.resource;
        scope = record.instrumentationScope;
        ranges = this.#rangesOf(resource, scope);
      }
      const start = w.pos;
      w.byte(LEN_2);
      writeLogRecord(w, record);
      const n = ranges.length;
      if (n > 0 && ranges[n - 1] === start) ranges[n - 1] = w.pos;
      else ranges.push(start, w.pos);
    }
    this.#records += records.length;
  }

  /** The request for every record added since the last finish(), in a buffer of its own; the builder starts over. */
  finish(): Buffer {
    let total = 0;
    const lengths: number[] = [];
    for (const [resource, scopes] of this.#groups) {
      let resourceLength = resourceField(resource).length + schemaUrlSize(resource.schemaUrl);
      for (const [scope, ranges] of scopes) {
        let scopeLength = scopeField(scope).length + schemaUrlSize(scope.schemaUrl);
        for (let i = 0; i < ranges.length; i += 2) scopeLength += ranges[i + 1]! - ranges[i]!;
        lengths.push(scopeLength);
        resourceLength += 1 + varintSize(scopeLength) + scopeLength;
      }
      lengths.push(resourceLength);
      total += 1 + varintSize(resourceLength) + resourceLength;
    }
    // Sizes are exact: written straight into the request's buffer (ProtoWriter would ask for room to spare).
    const out = Buffer.allocUnsafeSlow(total);
    const records = this.#w.buf;
    let p = 0;
    let next = 0;
    for (const [resource, scopes] of this.#groups) {
      out[p++] = LEN_1;
      p = putVarint(out, p, lengths[next + scopes.size]!);
      p = putBytes(out, p, resourceField(resource));
      for (const [scope, ranges] of scopes) {
        out[p++] = LEN_2;
        p = putVarint(out, p, lengths[next++]!);
        p = putBytes(out, p, scopeField(scope));
        for (let i = 0; i < ranges.length; i += 2) p += records.copy(out, p, ranges[i]!, ranges[i + 1]!);
        p = putSchemaUrl(out, p, scope.schemaUrl);
      }
      next++;
      p = putSchemaUrl(out, p, resource.schemaUrl);
    }
    this.reset();
    return out;
  }

  /** Drops every record added since the last finish() (after an error while adding, say). */
  reset(): void {
    this.#groups.clear();
    this.#records = 0;
    if (this.#w.buf.length > KEPT_RECORD_BYTES) this.#w = new ProtoWriter(INITIAL_RECORD_BYTES);
    else this.#w.pos = 0;
  }

  #rangesOf(resource: Resource, scope: Scope): number[] {
    let scopes = this.#groups.get(resource);
    if (scopes === undefined) this.#groups.set(resource, (scopes = new Map()));
    let ranges = scopes.get(scope);
    if (ranges === undefined) scopes.set(scope, (ranges = []));
    return ranges;
  }
}

/** encodeLogsRequest's builder: encoding is synchronous, so one serves every call. */
const shared = new LogsRequestBuilder();

/** The ExportLogsServiceRequest for `records`, grouped by resource then scope object, as upstream groups them. */
export function encodeLogsRequest(records: readonly ReadableLogRecord[]): Buffer {
  try {
    shared.add(records);
    return shared.finish();
  } catch (error) {
    shared.reset();
    throw error;
  }
}

function schemaUrlSize(url: string | undefined): number {
  if (!url) return 0;
  const bytes = Buffer.byteLength(url, 'utf8');
  return 1 + varintSize(bytes) + bytes;
}

function putSchemaUrl(out: Buffer, p: number, url: string | undefined): number {
  if (!url) return p;
  out[p++] = LEN_3;
  p = putVarint(out, p, Buffer.byteLength(url, 'utf8'));
  return p + out.write(url, p, 'utf8');
}

function putBytes(out: Buffer, p: number, bytes: Uint8Array): number {
  out.set(bytes, p);
  return p + bytes.length;
}

/**
 * `ProtobufLogsSerializer` with the request side replaced by `encodeLogsRequest`; the response side is
 * upstream's. What the otlphttp exporter hands to `createOtlpHttpExportDelegate`.
 */
export const OtlpProtoLogsSerializer: ISerializer<ReadableLogRecord[], IExportLogsServiceResponse> = {
  serializeRequest: (records) => encodeLogsRequest(records),
  deserializeResponse: (data) => ProtobufLogsSerializer.deserializeResponse(data),
};

function writeLogRecord(w: ProtoWriter, record: ReadableLogRecord): void {
  // Most records are 128 B to 16 KiB: two length bytes, so the content rarely moves.
  const start = w.begin(2);
  w.byte(LOG_TIME);
  writeHrTime(w, record.hrTime);
  const severity = record.severityNumber;
  if (severity !== undefined && severity !== 0) {
    w.byte(LOG_SEVERITY_NUMBER);
    w.int64(severity);
  }
  if (record.severityText) {
    w.byte(LOG_SEVERITY_TEXT);
    w.string(record.severityText);
  }
  if (record.body !== undefined) {
    w.byte(LOG_BODY);
    writeAnyValueMessage(w, record.body, false, recordBodyDoubles(record));
  }
  if (record.attributes) writeAttributes(w, record.attributes, LOG_ATTRIBUTES, false, recordAttributeDoubles(record));
  w.byte(LOG_DROPPED);
  w.int64(record.droppedAttributesCount ?? 0);
  const span = record.spanContext;
  if (span !== undefined) {
    if (span.traceFlags) {
      w.byte(LOG_FLAGS);
      w.fixed32(span.traceFlags);
    }
    if (span.traceId) writeHexBytes(w, LOG_TRACE_ID, span.traceId);
    if (span.spanId) writeHexBytes(w, LOG_SPAN_ID, span.spanId);
  }
  w.byte(LOG_OBSERVED_TIME);
  writeHrTime(w, record.hrTimeObserved);
  if (record.eventName) {
    w.byte(LOG_EVENT_NAME);
    w.string(record.eventName);
  }
  w.end(start, 2);
}
