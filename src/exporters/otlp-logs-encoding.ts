/**
 * The one-pass OTLP protobuf encoder of log records, for encoding off the pipeline thread (the receiver's decode
 * workers encode ahead what an OTLP exporter then sends as it is). The encoder itself is internal.
 */
export { encodeLogsRequest, LogsRequestBuilder } from './internal/otlp-proto-encoder.ts';
