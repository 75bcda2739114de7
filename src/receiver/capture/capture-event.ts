/** A captured record as the backends deliver an event, so Capture's events go through the same decode. */
import type { ReceivedEvent } from '../../backends/consumer.ts';
import type { CaptureRecord } from '../../capture/capture-schema.ts';

const PARTITION_KEY = 'x-opt-partition-key';
const CONTENT_TYPE = 'content-type';
const MESSAGE_ID = 'message-id';

export function receivedEventOf(record: CaptureRecord): ReceivedEvent {
  const {
    [PARTITION_KEY]: partitionKey,
    [CONTENT_TYPE]: contentType,
    [MESSAGE_ID]: messageId,
    ...system
  } = record.systemProperties;
  return {
    body: record.body ?? new Uint8Array(0),
    sequenceNumber: record.sequenceNumber,
    offset: record.offset,
    enqueuedTime: record.enqueuedTime,
    properties: record.properties,
    ...(Object.keys(system).length > 0 ? { systemProperties: system } : {}),
    ...(partitionKey !== undefined ? { partitionKey: String(partitionKey) } : {}),
    ...(contentType !== undefined ? { contentType: String(contentType) } : {}),
    ...(typeof messageId === 'string' || typeof messageId === 'number' ? { messageId } : {}),
  };
}
