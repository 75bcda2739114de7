/**
 * A delivered AMQP message as a ReceivedEvent, with the same field names the SDK uses for the
 * `polling` backend (so both backends hand the decoder the same thing). Event Hubs puts the position
 * in message annotations (`x-opt-sequence-number`, `x-opt-offset`, `x-opt-enqueued-time`,
 * `x-opt-partition-key`) and, when runtime metrics were asked for, the partition's newest event in
 * delivery annotations.
 */
import type { Message } from 'rhea-promise';
import type { LastEnqueuedInfo, ReceivedEvent } from '../consumer.ts';
import { ownBodyBytes, toBodyBytes } from '../internal/body-bytes.ts';
import { datesToNumbers } from '../internal/property-values.ts';

const SEQUENCE_NUMBER = 'x-opt-sequence-number';
const OFFSET = 'x-opt-offset';
const ENQUEUED_TIME = 'x-opt-enqueued-time';
const PARTITION_KEY = 'x-opt-partition-key';

/** AMQP message properties → the SDK's `systemProperties` names. */
const MESSAGE_PROPERTIES: readonly (readonly [keyof Message, string])[] = [
  ['message_id', 'messageId'],
  ['user_id', 'userId'],
  ['to', 'to'],
  ['subject', 'subject'],
  ['reply_to', 'replyTo'],
  ['correlation_id', 'correlationId'],
  ['content_type', 'contentType'],
  ['content_encoding', 'contentEncoding'],
  ['absolute_expiry_time', 'absoluteExpiryTime'],
  ['creation_time', 'creationTime'],
  ['group_id', 'groupId'],
  ['group_sequence', 'groupSequence'],
  ['reply_to_group_id', 'replyToGroupId'],
];

function toDate(value: unknown): Date {
  return value instanceof Date ? value : new Date(Number(value));
}

export function messageToEvent(message: Message): ReceivedEvent {
  const annotations = (message.message_annotations ?? {}) as Record<string, unknown>;
  const systemProperties: Record<string, unknown> = {};
  for (const key in annotations) {
    if (key !== SEQUENCE_NUMBER && key !== OFFSET && key !== ENQUEUED_TIME && key !== PARTITION_KEY)
      systemProperties[key] = datesToNumbers(annotations[key]);
  }
  for (const [amqpName, name] of MESSAGE_PROPERTIES) {
    const value = message[amqpName];
    if (value != null) systemProperties[name] = datesToNumbers(value);
  }
  const event: { -readonly [K in keyof ReceivedEvent]: ReceivedEvent[K] } = {
    body: ownBodyBytes(toBodyBytes(message.body)),
    sequenceNumber: Number(annotations[SEQUENCE_NUMBER]),
    offset: String(annotations[OFFSET]),
    enqueuedTime: toDate(annotations[ENQUEUED_TIME]),
    systemProperties,
  };
  const partitionKey = annotations[PARTITION_KEY];
  if (typeof partitionKey === 'string') event.partitionKey = partitionKey;
  if (message.application_properties)
    event.properties = datesToNumbers(message.application_properties) as Record<string, unknown>;
  if (message.content_type != null) event.contentType = String(message.content_type);
  const id = message.message_id;
  if (typeof id === 'string' || typeof id === 'number') event.messageId = id;
  return event;
}

/** The runtime metrics a delivery carries when the link asked for `com.microsoft:enable-receiver-runtime-metric`. */
export function lastEnqueuedFromMessage(message: Pick<Message, 'delivery_annotations'>): LastEnqueuedInfo | undefined {
  const d = message.delivery_annotations as Record<string, unknown> | undefined;
  if (!d || d.last_enqueued_sequence_number === undefined) return undefined;
  return {
    sequenceNumber: Number(d.last_enqueued_sequence_number),
    offset: String(d.last_enqueued_offset ?? ''),
    enqueuedOn: toDate(d.last_enqueued_time_utc),
    retrievedOn: toDate(d.runtime_info_retrieval_time_utc),
  };
}
