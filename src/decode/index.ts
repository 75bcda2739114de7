/** The decoders: Azure resource logs, raw and JSON events → OpenTelemetry log records. */
export { createDecoder, DEFAULT_MAX_NESTING_DEPTH, DEFAULT_MAX_SANITIZE_CHARS } from './create-decoder.ts';
export type {
  BuiltinSanitizer,
  DecodeContext,
  DecodeResult,
  DecodeStats,
  Decoder,
  DecoderOptions,
  Format,
} from './decoder.ts';
export { ATTR_TIMESTAMP_FALLBACK, GO_RECEIVER_NAMES, SEMCONV_NAMES, type AzureNames } from './internal/azure-names.ts';
export {
  ATTR_ERROR_MESSAGE,
  ATTR_ERROR_TYPE,
  ATTR_EVENTHUBS_ENQUEUED_TIME,
  ATTR_EVENTHUBS_OFFSET,
  ATTR_EVENTHUBS_PARTITION_KEY,
  ATTR_EVENTHUBS_SEQUENCE_NUMBER,
  ATTR_MESSAGING_CONSUMER_GROUP_NAME,
  ATTR_MESSAGING_DESTINATION_NAME,
  ATTR_MESSAGING_DESTINATION_PARTITION_ID,
  ATTR_MESSAGING_MESSAGE_ID,
  ATTR_MESSAGING_SYSTEM,
  ATTR_SERVER_ADDRESS,
} from './internal/event-attributes.ts';
export {
  ERROR_DECODER,
  ERROR_INVALID_JSON,
  ERROR_INVALID_UTF8,
  ERROR_NESTING_TOO_DEEP,
  ERROR_UNEXPECTED_SHAPE,
} from './internal/parse-json.ts';
export { INSTRUMENTATION_SCOPE, SCOPE_NAME } from './internal/scope.ts';
export { compileTimeLayout, type TimeLayoutParser } from './internal/time-layout.ts';
