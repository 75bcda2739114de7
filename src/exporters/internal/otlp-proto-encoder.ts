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
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import {
  ProtobufLogsSerializer,
  type ISerializer,
  type IExportLogsServiceResponse,
} from '@opentelemetry/otlp-transformer';
import {
  resourceField,
  scopeField,
  writeAnyValueMessage,
  writeAttributes,
  writeHexBytes,
  writeHrTime,
} from './otlp-proto-values.ts';
import { ProtoWriter, varintSize } from './proto-writer.ts';
import { groupByResourceAndScope } from './group-items.ts';
import { recordAttributeDoubles } from '../../pipeline/double-values.ts';

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

/** Initial buffer size is capped here; past it the buffer doubles as it fills. 16 MiB. */
const MAX_INITIAL_BUFFER_BYTES = 16 * 1024 * 1024;

/**
 * Bytes per record, averaged over recent requests: sizes the next request's buffer and guesses the size of
 * its outer length prefixes (a wrong guess costs one move of the content, never a wrong encoding).
 */
let bytesPerRecord = 1024;

/** The ExportLogsServiceRequest for `records`, grouped by resource then scope object, as upstream groups them. */
export function encodeLogsRequest(records: readonly ReadableLogRecord[]): Buffer {
  const groups = groupByResourceAndScope(records, (record) => record.instrumentationScope);
  const estimate = records.length * bytesPerRecord;
  const w = new ProtoWriter(Math.min(MAX_INITIAL_BUFFER_BYTES, estimate + (estimate >>> 3) + 1024));
  for (const [resource, scopes] of groups) {
    let count = 0;
    for (const list of scopes.values()) count += list.length;
    const reserve = varintSize(count * bytesPerRecord);
    w.byte(LEN_1);
    const resourceLogs = w.begin(reserve);
    w.raw(resourceField(resource));
    for (const [scope, list] of scopes) {
      w.byte(LEN_2);
      const scopeLogs = w.begin(reserve);
      w.raw(scopeField(scope));
      for (const record of list) {
        w.byte(LEN_2);
        writeLogRecord(w, record);
      }
      if (scope.schemaUrl) {
        w.byte(LEN_3);
        w.string(scope.schemaUrl);
      }
      w.end(scopeLogs, reserve);
    }
    if (resource.schemaUrl) {
      w.byte(LEN_3);
      w.string(resource.schemaUrl);
    }
    w.end(resourceLogs, reserve);
  }
  if (records.length > 0) bytesPerRecord = Math.max(64, Math.ceil((bytesPerRecord * 3 + w.pos / records.length) / 4));
  return w.finish();
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
    writeAnyValueMessage(w, record.body);
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
