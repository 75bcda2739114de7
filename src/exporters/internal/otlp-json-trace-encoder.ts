/**
 * Strict OTLP/JSON encoding of a traces export request (ExportTraceServiceRequest) from span records: the
 * same grouping and content as the protobuf encoder (otlp-proto-trace-encoder.ts), written by the rules of
 * otlp-json-encoder.ts. Trace and span IDs are lowercase hex, as the OTLP specification writes them in JSON
 * (not base64); kind and status code are enum integers.
 */
import {
  JsonTraceSerializer,
  type IExportTraceServiceResponse,
  type ISerializer,
} from '@opentelemetry/otlp-transformer';
import type { SpanEventRecord, SpanLinkRecord, SpanRecord } from '../../pipeline/signals.ts';
import { groupByResourceAndScope } from './group-items.ts';
import { attributesJson, optionalString, resourceJson, scopeJson } from './otlp-json-values.ts';
import { unixNanosString, wellFormed, wireId } from './otlp-wire-values.ts';

/** The ExportTraceServiceRequest for `spans` as UTF-8 JSON bytes. */
export function encodeTraceRequestJson(spans: readonly SpanRecord[]): Uint8Array {
  const resourceSpans = [];
  for (const [resource, scopes] of groupByResourceAndScope(spans)) {
    const scopeSpans = [];
    for (const [scope, list] of scopes) {
      const schemaUrl = optionalString(scope.schemaUrl);
      scopeSpans.push({ scope: scopeJson(scope), spans: list.map(spanJson), schemaUrl });
    }
    resourceSpans.push({ resource: resourceJson(resource), scopeSpans, schemaUrl: optionalString(resource.schemaUrl) });
  }
  return Buffer.from(JSON.stringify({ resourceSpans }), 'utf8');
}

/** `JsonTraceSerializer` with the request side replaced by `encodeTraceRequestJson`. */
export const OtlpJsonTraceSerializer: ISerializer<readonly SpanRecord[], IExportTraceServiceResponse> = {
  serializeRequest: (spans) => encodeTraceRequestJson(spans),
  deserializeResponse: (data) => JsonTraceSerializer.deserializeResponse(data),
};

function spanJson(span: SpanRecord): object {
  const events = span.events ?? [];
  const links = span.links ?? [];
  return {
    traceId: id(span.traceId, 32),
    spanId: id(span.spanId, 16),
    traceState: optionalString(span.traceState),
    parentSpanId: id(span.parentSpanId, 16),
    name: wellFormed(span.name),
    kind: span.kind || undefined,
    startTimeUnixNano: unixNanosString(span.startTime),
    endTimeUnixNano: unixNanosString(span.endTime),
    attributes: attributesJson(span.attributes),
    events: events.length > 0 ? events.map(eventJson) : undefined,
    links: links.length > 0 ? links.map(linkJson) : undefined,
    status: { message: optionalString(span.status.message), code: span.status.code || undefined },
  };
}

function eventJson(event: SpanEventRecord): object {
  return {
    timeUnixNano: unixNanosString(event.time),
    name: wellFormed(event.name),
    attributes: attributesJson(event.attributes),
  };
}

function linkJson(link: SpanLinkRecord): object {
  return {
    traceId: id(link.traceId, 32),
    spanId: id(link.spanId, 16),
    traceState: optionalString(link.traceState),
    attributes: attributesJson(link.attributes),
  };
}

/** The ID as hex, or absent when it is empty or not hex of its length (as in the protobuf encoding). */
function id(hex: string, digits: 32 | 16): string | undefined {
  return wireId(hex, digits) || undefined;
}
