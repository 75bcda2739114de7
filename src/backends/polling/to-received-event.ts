import type { ReceivedEventData } from '@azure/event-hubs';
import type { ReceivedEvent } from '../consumer.ts';
import { toBodyBytes } from '../internal/body-bytes.ts';

/** The SDK's event (subscribed with `skipParsingBodyAsJson`, so the body is the data section's Buffer) as ours. */
export function toReceivedEvent(data: ReceivedEventData): ReceivedEvent {
  const event: {
    -readonly [K in keyof ReceivedEvent]: ReceivedEvent[K];
  } = {
    body: toBodyBytes(data.body),
    sequenceNumber: data.sequenceNumber,
    offset: String(data.offset),
    enqueuedTime: data.enqueuedTimeUtc,
  };
  if (data.partitionKey != null) event.partitionKey = data.partitionKey;
  if (data.properties) event.properties = data.properties;
  if (data.systemProperties) event.systemProperties = data.systemProperties;
  if (data.contentType != null) event.contentType = data.contentType;
  if (data.messageId != null && (typeof data.messageId === 'string' || typeof data.messageId === 'number')) event.messageId = data.messageId;
  return event;
}
