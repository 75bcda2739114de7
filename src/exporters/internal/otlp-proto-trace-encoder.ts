/**
 * OTLP/protobuf encoding of a traces export request (ExportTraceServiceRequest) from span records, in one
 * pass as the logs encoder (otlp-proto-encoder.ts): spans grouped by resource then scope, IDs written as
 * bytes (the records carry hex), kind and status as enums, events and links in full. Field numbers are those
 * of opentelemetry-proto v1.5.0 (collector/trace/v1/trace_service.proto, trace/v1/trace.proto); values follow
 * otlp-wire-values.ts (an ID that is not hex of its length is left out, as in the JSON encoding).
 */
import {
  ProtobufTraceSerializer,
  type IExportTraceServiceResponse,
  type ISerializer,
} from '@opentelemetry/otlp-transformer';
import type { SpanRecord } from '../../pipeline/signals.ts';
import { groupByResourceAndScope } from './group-items.ts';
import { resourceField, scopeField, writeAttributes, writeHexBytes, writeHrTime } from './otlp-proto-values.ts';
import { wireId } from './otlp-wire-values.ts';
import { ProtoWriter, varintSize } from './proto-writer.ts';

// Tags: field number << 3 | wire type (0 varint, 1 fixed64, 2 length-delimited).
const LEN_1 = 0x0a; // ExportTraceServiceRequest.resource_spans, Span.trace_id, Link.trace_id
const LEN_2 = 0x12; // ResourceSpans.scope_spans, ScopeSpans.spans, Span.span_id, Event.name, Link.span_id,
//                     Status.message
const LEN_3 = 0x1a; // *.schema_url, Span.trace_state, Link.trace_state
const SPAN_PARENT_SPAN_ID = 0x22; // 4
const SPAN_NAME = 0x2a; // 5
const SPAN_KIND = 0x30; // 6, enum
const SPAN_START_TIME = 0x39; // 7, fixed64
const SPAN_END_TIME = 0x41; // 8, fixed64
const SPAN_ATTRIBUTES = 9;
const SPAN_EVENTS = 0x5a; // 11
const SPAN_LINKS = 0x6a; // 13
const SPAN_STATUS = 0x7a; // 15
const EVENT_TIME = 0x09; // 1, fixed64
const EVENT_ATTRIBUTES = 3;
const LINK_ATTRIBUTES = 4;
const STATUS_CODE = 0x18; // 3, enum

/** Bytes per span, averaged over recent requests: sizes the buffer and guesses outer length prefixes. */
let bytesPerSpan = 512;

/** The ExportTraceServiceRequest for `spans`. */
export function encodeTraceRequest(spans: readonly SpanRecord[]): Buffer {
  const w = new ProtoWriter(spans.length * bytesPerSpan + 1024);
  for (const [resource, scopes] of groupByResourceAndScope(spans)) {
    let count = 0;
    for (const list of scopes.values()) count += list.length;
    const reserve = varintSize(count * bytesPerSpan);
    w.byte(LEN_1);
    const resourceSpans = w.begin(reserve);
    w.raw(resourceField(resource));
    for (const [scope, list] of scopes) {
      w.byte(LEN_2);
      const scopeSpans = w.begin(reserve);
      w.raw(scopeField(scope));
      for (const span of list) {
        w.byte(LEN_2);
        writeSpan(w, span);
      }
      if (scope.schemaUrl) {
        w.byte(LEN_3);
        w.string(scope.schemaUrl);
      }
      w.end(scopeSpans, reserve);
    }
    if (resource.schemaUrl) {
      w.byte(LEN_3);
      w.string(resource.schemaUrl);
    }
    w.end(resourceSpans, reserve);
  }
  if (spans.length > 0) bytesPerSpan = Math.max(64, Math.ceil((bytesPerSpan * 3 + w.pos / spans.length) / 4));
  return w.finish();
}

/** `ProtobufTraceSerializer` with the request side replaced by `encodeTraceRequest`. */
export const OtlpProtoTraceSerializer: ISerializer<readonly SpanRecord[], IExportTraceServiceResponse> = {
  serializeRequest: (spans) => encodeTraceRequest(spans),
  deserializeResponse: (data) => ProtobufTraceSerializer.deserializeResponse(data),
};

function writeSpan(w: ProtoWriter, span: SpanRecord): void {
  const start = w.begin(2);
  writeId(w, LEN_1, span.traceId, 32);
  writeId(w, LEN_2, span.spanId, 16);
  if (span.traceState) {
    w.byte(LEN_3);
    w.string(span.traceState);
  }
  writeId(w, SPAN_PARENT_SPAN_ID, span.parentSpanId, 16);
  w.byte(SPAN_NAME);
  w.string(span.name);
  if (span.kind !== 0) {
    w.byte(SPAN_KIND);
    w.uint32(span.kind);
  }
  w.byte(SPAN_START_TIME);
  writeHrTime(w, span.startTime);
  w.byte(SPAN_END_TIME);
  writeHrTime(w, span.endTime);
  writeAttributes(w, span.attributes, SPAN_ATTRIBUTES);
  for (const event of span.events ?? []) {
    w.byte(SPAN_EVENTS);
    const reserve = varintSize(event.name.length + 100);
    const at = w.begin(reserve);
    w.byte(EVENT_TIME);
    writeHrTime(w, event.time);
    w.byte(LEN_2);
    w.string(event.name);
    writeAttributes(w, event.attributes, EVENT_ATTRIBUTES);
    w.end(at, reserve);
  }
  for (const link of span.links ?? []) {
    w.byte(SPAN_LINKS);
    const at = w.begin(1);
    writeId(w, LEN_1, link.traceId, 32);
    writeId(w, LEN_2, link.spanId, 16);
    if (link.traceState) {
      w.byte(LEN_3);
      w.string(link.traceState);
    }
    writeAttributes(w, link.attributes, LINK_ATTRIBUTES);
    w.end(at, 1);
  }
  // Always present, as upstream writes it: an empty Status is code UNSET.
  w.byte(SPAN_STATUS);
  const status = w.begin(1);
  if (span.status.message) {
    w.byte(LEN_2);
    w.string(span.status.message);
  }
  if (span.status.code !== 0) {
    w.byte(STATUS_CODE);
    w.uint32(span.status.code);
  }
  w.end(status, 1);
  w.end(start, 2);
}

/** A trace or span ID as bytes; left out when empty or not hex of its length (otlp-wire-values.ts). */
function writeId(w: ProtoWriter, tag: number, hex: string, digits: 32 | 16): void {
  const id = wireId(hex, digits);
  if (id !== '') writeHexBytes(w, tag, id);
}
