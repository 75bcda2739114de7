import type { LogBody } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
import type { ReceivedEvent } from '../backends/consumer.ts';
import { enqueuedMsOf, RecordAttributes } from './internal/event-attributes.ts';
import {
  ERROR_INVALID_JSON,
  ERROR_INVALID_UTF8,
  ERROR_NESTING_TOO_DEEP,
  eventText,
  nestsDeeperThan,
  parseJson,
} from './internal/parse-json.ts';
import { makeRecord, pushRawError, type BatchState } from './internal/records.ts';
import type { Sanitizer } from './internal/sanitize.ts';
import { hrTimeFromMs } from './internal/timestamp.ts';

export interface JsonFormatConfig {
  readonly sanitizers: readonly Sanitizer[];
  readonly maxSanitizeChars: number;
  readonly maxNestingDepth: number;
  readonly resource: Resource;
}

/**
 * The `json` format, for producers that send arbitrary JSON: one record per event, the body is the parsed
 * value (object, array or scalar), the timestamp is the enqueued time. Malformed JSON goes through the
 * sanitizers, then raw with `error.type`.
 */
export function decodeJsonEvent(event: ReceivedEvent, state: BatchState, config: JsonFormatConfig): void {
  const enqueuedMs = enqueuedMsOf(event, state.observedMs);
  const text = eventText(event.body);
  if (text === undefined) {
    pushRawError(
      state,
      event,
      undefined,
      enqueuedMs,
      config.resource,
      ERROR_INVALID_UTF8,
      'event body is not valid UTF-8',
    );
    return;
  }
  const parsed = parseJson(text, config.sanitizers, config.maxSanitizeChars);
  if (!parsed.ok) {
    pushRawError(state, event, text, enqueuedMs, config.resource, ERROR_INVALID_JSON, parsed.message);
    return;
  }
  if (nestsDeeperThan(parsed.value, config.maxNestingDepth)) {
    pushRawError(
      state,
      event,
      text,
      enqueuedMs,
      config.resource,
      ERROR_NESTING_TOO_DEEP,
      `body nests deeper than ${config.maxNestingDepth} levels`,
    );
    return;
  }
  if (parsed.sanitized) state.stats.sanitizedEvents++;
  const attributes = new RecordAttributes();
  state.records.push(
    makeRecord(hrTimeFromMs(enqueuedMs), state.observed, parsed.value as LogBody, attributes, config.resource),
  );
}
