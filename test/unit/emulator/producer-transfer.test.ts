import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MAX_MESSAGE_SIZE_BYTES, readTransfer } from '../../../src/emulator/internal/producer-transfer.ts';

const BATCH_FORMAT = 0x80013700;

test('an oversize transfer is refused with the service text naming its delivery-id and size', () => {
  const envelope = Buffer.alloc(MAX_MESSAGE_SIZE_BYTES + 5);
  const result = readTransfer({ message: envelope, format: BATCH_FORMAT, delivery: { id: 7 } });
  assert.equal(result.ok, false);
  if (result.ok) return;
  assert.equal(result.error.condition, 'amqp:link:message-size-exceeded');
  assert.equal(
    result.error.description,
    `The received message (delivery-id:7, size:${MAX_MESSAGE_SIZE_BYTES + 5} bytes) exceeds the limit (1048576 ` +
      `bytes) currently allowed on the link.`,
  );
});

test('a transfer of exactly the limit is not refused for its size', () => {
  const result = readTransfer({
    message: Buffer.alloc(MAX_MESSAGE_SIZE_BYTES),
    format: BATCH_FORMAT,
    delivery: { id: 0 },
  });
  assert.notEqual(!result.ok && result.error.condition, 'amqp:link:message-size-exceeded');
});
