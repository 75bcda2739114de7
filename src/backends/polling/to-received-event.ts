import type { ReceivedEventData } from '@azure/event-hubs';
import type { ReceivedEvent } from '../consumer.ts';
import { ownBodyBytes, toBodyBytes } from '../internal/body-bytes.ts';
import { pollingProperties } from '../internal/property-values.ts';

/** The SDK's event (subscribed with `skipParsingBodyAsJson`, so the body is the data section's Buffer) as ours. */
export function toReceivedEvent(data: ReceivedEventData): ReceivedEvent {
  const event: {
    -readonly [K in keyof ReceivedEvent]: ReceivedEvent[K];
  } = {
    body: ownBodyBytes(toBodyBytes(data.body)),
    sequenceNumber: data.sequenceNumber,
    offset: String(data.offset),
    enqueuedTime: data.enqueuedTimeUtc,
  };
  if (data.partitionKey != null) event.partitionKey = data.partitionKey;
  // Application properties from the raw AMQP message, as the streaming backend reads them: the SDK's
  // `properties` copy turns a binary value into an object of byte values ({ '0': 1, '1': 2, ... })
  // (@azure/event-hubs 6.0.4); timestamps become ms numbers in both.
  const raw = data.getRawAmqpMessage?.().applicationProperties;
  const properties = raw ? pollingProperties(raw, data.properties) : data.properties;
  if (properties) event.properties = properties;
  if (data.systemProperties) event.systemProperties = data.systemProperties;
  if (data.contentType != null) event.contentType = data.contentType;
  if (data.messageId != null && (typeof data.messageId === 'string' || typeof data.messageId === 'number'))
    event.messageId = data.messageId;
  return event;
}
