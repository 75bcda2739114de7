/** Dead-letter entries for the store tests: metadata of every kind, and secrets in the error message. */
import type { ReceivedEvent } from '../../../src/backends/consumer.ts';
import type { DeadLetterEntry } from '../../../src/pipeline/dead-letter.ts';

export function makeEntry(
  partitionId: string,
  sequenceNumber: number,
  body: Uint8Array,
  at = new Date('2026-11-21T10:00:00Z'),
): DeadLetterEntry {
  const event: ReceivedEvent = {
    body,
    sequenceNumber,
    offset: String(sequenceNumber * 100),
    enqueuedTime: new Date('2026-11-21T09:59:59.500Z'),
    partitionKey: 'key-1',
    properties: {
      tenant: 'contoso',
      raw: new Uint8Array([1, 2, 3]),
      when: new Date('2026-01-01T00:00:00Z'),
      big: 12345678901234567890n,
    },
    systemProperties: { 'x-opt-sequence-number': sequenceNumber },
    contentType: 'application/json',
    messageId: `m-${sequenceNumber}`,
  };
  return {
    event,
    source: { namespace: 'NS.servicebus.windows.net', eventHubName: 'Logs', consumerGroup: '$Default', partitionId },
    error: {
      type: 'permanent',
      message: 'HTTP 400 from https://acct.blob.core.windows.net/c?sv=2024&sig=SECRETSIG; AccountKey=SECRETKEY==',
    },
    at,
  };
}
