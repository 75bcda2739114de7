import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReceivedEventData } from '@azure/event-hubs';
import { toReceivedEvent } from '../../../../src/backends/polling/to-received-event.ts';

/**
 * A ReceivedEventData as @azure/event-hubs 6.0.4 builds it (`fromRheaMessage`): `properties` is its
 * `convertDatesToNumbers` copy of the AMQP application properties (a Buffer spread into byte indices, a
 * Date to ms), and the raw message keeps the map rhea decoded.
 */
function sdkEvent(
  applicationProperties: Record<string, unknown> | undefined,
  sdkProperties?: Record<string, unknown>,
): ReceivedEventData {
  return {
    body: Buffer.from('{}'),
    sequenceNumber: 7,
    offset: 4096,
    enqueuedTimeUtc: new Date(1_000),
    systemProperties: {},
    ...(sdkProperties ? { properties: sdkProperties } : {}),
    getRawAmqpMessage: () => ({ bodyType: 'data', body: Buffer.from('{}'), applicationProperties }),
  } as unknown as ReceivedEventData;
}

test('primitive application properties come through as the SDK copied them (no second copy)', () => {
  const raw = { source: 'app', count: 3, ok: true, missing: null };
  const sdkCopy = { ...raw };
  const event = toReceivedEvent(sdkEvent(raw, sdkCopy));
  assert.equal(event.properties, sdkCopy);
  assert.deepEqual(event.properties, raw);
});

test('binary and timestamp properties come from the raw map: bytes stay bytes, dates become ms', () => {
  const bytes = Buffer.from([1, 2, 3]);
  const raw = { name: 'x', blob: bytes, at: new Date(5_000), list: [new Date(6_000), 'y'] };
  // The SDK's copy turns the Buffer into an object of byte values.
  const sdkCopy = { name: 'x', blob: { 0: 1, 1: 2, 2: 3 }, at: 5_000, list: [6_000, 'y'] };
  const event = toReceivedEvent(sdkEvent(raw, sdkCopy));
  assert.deepEqual(event.properties, { name: 'x', blob: bytes, at: 5_000, list: [6_000, 'y'] });
  assert.ok(event.properties!.blob instanceof Uint8Array);
});

test('an event without application properties has none', () => {
  const event = toReceivedEvent(sdkEvent(undefined));
  assert.equal(event.properties, undefined);
  assert.equal(event.offset, '4096');
  assert.equal(event.sequenceNumber, 7);
});
