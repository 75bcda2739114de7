/**
 * OTLP/JSON encoding of a logs export request, replacing `JsonLogsSerializer` of
 * @opentelemetry/otlp-transformer 0.223.1, which writes values strict OTLP/JSON parsers refuse: int_value
 * as a JSON number even outside int64 (1e20), NaN and infinities as `null`, times before 1970 as negative
 * nanoseconds, and lone UTF-16 surrogates as `\ud83d` escapes. This encoder follows the protobuf JSON
 * mapping the OTLP specification names (https://opentelemetry.io/docs/specs/otlp/#json-protobuf-encoding):
 * - 64-bit integers (int_value, time_unix_nano, observed_time_unix_nano) as decimal strings;
 * - doubles as numbers, NaN and ±Infinity as the strings "NaN", "Infinity", "-Infinity";
 * - bytes as base64; trace and span IDs as hex (OTLP's exception to the mapping);
 * - field names in lowerCamelCase; enums (severity_number) as integers.
 * Numbers, times and strings follow the same rules as the protobuf encoder (otlp-wire-values.ts), so both
 * encodings carry the same content. Grouping by resource then scope, and field order, are upstream's.
 */
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { JsonLogsSerializer, type ISerializer, type IExportLogsServiceResponse } from '@opentelemetry/otlp-transformer';
import { unixNanosString } from './otlp-wire-values.ts';
import { anyValueJson, attributesJson, optionalString, resourceJson, scopeJson } from './otlp-json-values.ts';
import { groupByResourceAndScope } from './group-items.ts';
import { recordAttributeDoubles } from '../../pipeline/double-values.ts';

/** The ExportLogsServiceRequest for `records` as UTF-8 JSON bytes. */
export function encodeLogsRequestJson(records: readonly ReadableLogRecord[]): Uint8Array {
  return Buffer.from(JSON.stringify(logsRequest(records)), 'utf8');
}

/**
 * `JsonLogsSerializer` with the request side replaced by `encodeLogsRequestJson`; the response side is
 * upstream's. What the otlphttp exporter hands to `createOtlpHttpExportDelegate` for `encoding: json`.
 */
export const OtlpJsonLogsSerializer: ISerializer<ReadableLogRecord[], IExportLogsServiceResponse> = {
  serializeRequest: (records) => encodeLogsRequestJson(records),
  deserializeResponse: (data) => JsonLogsSerializer.deserializeResponse(data),
};

function logsRequest(records: readonly ReadableLogRecord[]): object {
  const groups = groupByResourceAndScope(records, (record) => record.instrumentationScope);
  const resourceLogs = [];
  for (const [resource, scopes] of groups) {
    const scopeLogs = [];
    for (const [scope, list] of scopes) {
      scopeLogs.push({
        scope: scopeJson(scope),
        logRecords: list.map(logRecordJson),
        schemaUrl: optionalString(scope.schemaUrl),
      });
    }
    resourceLogs.push({
      resource: resourceJson(resource),
      scopeLogs,
      schemaUrl: optionalString(resource.schemaUrl),
    });
  }
  return { resourceLogs };
}

function logRecordJson(record: ReadableLogRecord): object {
  const span = record.spanContext;
  return {
    timeUnixNano: unixNanosString(record.hrTime),
    observedTimeUnixNano: unixNanosString(record.hrTimeObserved),
    severityNumber: record.severityNumber || undefined,
    severityText: optionalString(record.severityText),
    // An absent body stays absent, as in the protobuf encoding (upstream writes `"body": {}`).
    body: record.body === undefined ? undefined : anyValueJson(record.body),
    eventName: optionalString(record.eventName),
    attributes: attributesJson(record.attributes, false, recordAttributeDoubles(record)),
    droppedAttributesCount: record.droppedAttributesCount ?? 0,
    flags: span?.traceFlags || undefined,
    traceId: span?.traceId || undefined,
    spanId: span?.spanId || undefined,
  };
}
