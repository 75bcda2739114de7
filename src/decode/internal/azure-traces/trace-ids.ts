/*
 * Application Insights ids as OTLP ids. With the W3C trace context (the default of every current
 * Application Insights and Azure Monitor OpenTelemetry SDK), `OperationId` is the 32-hex-digit trace id and
 * `Id` / `ParentId` are 16-hex-digit span ids; a root request carries its own `OperationId` as `ParentId`.
 *
 * Go hex-decodes any even-length hex and copies it into the 16- or 8-byte id: shorter ids are zero-padded,
 * longer ones cut (a root request's 32-digit ParentId becomes the first half of the trace id, a span that
 * does not exist), and a non-hex OperationId or Id stops the whole event. We take only ids of the right
 * length and leave the rest of the record a log record (docs/formats.md, "Traces").
 */

const TRACE_ID = /^[0-9A-Fa-f]{32}$/;
const SPAN_ID = /^[0-9A-Fa-f]{16}$/;
const ZERO_TRACE_ID = '0'.repeat(32);
const ZERO_SPAN_ID = '0'.repeat(16);

/** Longest id text quoted back in an error message. */
const MAX_QUOTED_CHARS = 64;

/** The ids of one span, lowercase hex (`parentSpanId` empty for a root span), or why there are none. */
export type SpanIds =
  | { readonly ok: true; readonly traceId: string; readonly spanId: string; readonly parentSpanId: string }
  | { readonly ok: false; readonly message: string };

export function spanIdsOf(operationId: string, id: string, parentId: string): SpanIds {
  if (!TRACE_ID.test(operationId) || operationId === ZERO_TRACE_ID) {
    return { ok: false, message: `OperationId ${quote(operationId)} is not a 32-digit hex trace id` };
  }
  if (!SPAN_ID.test(id) || id === ZERO_SPAN_ID) {
    return { ok: false, message: `Id ${quote(id)} is not a 16-digit hex span id` };
  }
  const traceId = operationId.toLowerCase();
  let parentSpanId = '';
  if (SPAN_ID.test(parentId)) {
    parentSpanId = parentId === ZERO_SPAN_ID ? '' : parentId.toLowerCase();
  } else if (parentId !== '' && parentId.toLowerCase() !== traceId) {
    return { ok: false, message: `ParentId ${quote(parentId)} is neither a 16-digit hex span id nor the OperationId` };
  }
  return { ok: true, traceId, spanId: id.toLowerCase(), parentSpanId };
}

function quote(text: string): string {
  return JSON.stringify(text.length > MAX_QUOTED_CHARS ? `${text.slice(0, MAX_QUOTED_CHARS)}…` : text);
}
