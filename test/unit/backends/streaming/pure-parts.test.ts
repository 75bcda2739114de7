import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { toSelectorFilter } from '../../../../src/backends/streaming/event-position-filter.ts';
import { TOKEN_RENEWAL_MARGIN_MS } from '../../../../src/backends/internal/token-lifetime.ts';
import {
  MIN_TOKEN_REFRESH_DELAY_MS,
  SAS_REFRESH_INTERVAL_MS,
  tokenRefreshDelayMs,
} from '../../../../src/backends/streaming/token-refresh.ts';
import { creditToGrant } from '../../../../src/backends/streaming/credit-window.ts';
import { lastEnqueuedFromMessage, messageToEvent } from '../../../../src/backends/streaming/message-to-event.ts';

describe('toSelectorFilter', () => {
  test('builds the selector for each start position', () => {
    assert.equal(toSelectorFilter({ kind: 'earliest' }), "amqp.annotation.x-opt-offset > '-1'");
    assert.equal(toSelectorFilter({ kind: 'latest' }), "amqp.annotation.x-opt-offset > '@latest'");
    assert.equal(
      toSelectorFilter({ kind: 'sequenceNumber', sequenceNumber: 42, inclusive: true }),
      "amqp.annotation.x-opt-sequence-number >= '42'",
    );
    assert.equal(
      toSelectorFilter({ kind: 'sequenceNumber', sequenceNumber: 42, inclusive: false }),
      "amqp.annotation.x-opt-sequence-number > '42'",
    );
    assert.equal(
      toSelectorFilter({ kind: 'offset', offset: '1024', inclusive: true }),
      "amqp.annotation.x-opt-offset >= '1024'",
    );
    assert.equal(
      toSelectorFilter({ kind: 'offset', offset: '1024', inclusive: false }),
      "amqp.annotation.x-opt-offset > '1024'",
    );
    assert.equal(
      toSelectorFilter({ kind: 'enqueuedTime', enqueuedTime: new Date(1_700_000_000_123) }),
      "amqp.annotation.x-opt-enqueued-time > '1700000000123'",
    );
  });

  test('refuses values that would break out of the quoted literal', () => {
    assert.throws(() => toSelectorFilter({ kind: 'offset', offset: "1' OR 1=1 --", inclusive: false }), RangeError);
    assert.throws(
      () => toSelectorFilter({ kind: 'sequenceNumber', sequenceNumber: 1.5, inclusive: false }),
      RangeError,
    );
    assert.throws(() => toSelectorFilter({ kind: 'enqueuedTime', enqueuedTime: new Date('nope') }), RangeError);
  });
});

describe('tokenRefreshDelayMs', () => {
  const now = 1_000_000_000_000;
  test('SAS claims renew every 45 minutes, sooner when the token expires earlier', () => {
    assert.equal(
      tokenRefreshDelayMs({ type: 'sas', expiresOnTimestamp: now + 3_600_000 }, now),
      SAS_REFRESH_INTERVAL_MS,
    );
    assert.equal(tokenRefreshDelayMs({ type: 'sas', expiresOnTimestamp: 0 }, now), SAS_REFRESH_INTERVAL_MS);
    assert.equal(
      tokenRefreshDelayMs({ type: 'sas', expiresOnTimestamp: now + 10 * 60_000 }, now),
      10 * 60_000 - TOKEN_RENEWAL_MARGIN_MS,
    );
  });

  test('jwt claims renew two minutes before expiry, or at refreshAfter when earlier', () => {
    assert.equal(
      tokenRefreshDelayMs({ type: 'jwt', expiresOnTimestamp: now + 3_600_000 }, now),
      3_600_000 - TOKEN_RENEWAL_MARGIN_MS,
    );
    assert.equal(
      tokenRefreshDelayMs(
        { type: 'jwt', expiresOnTimestamp: now + 3_600_000, refreshAfterTimestamp: now + 1_800_000 },
        now,
      ),
      1_800_000,
    );
  });

  test('tokens living less than 8 minutes renew at three quarters of their life', () => {
    assert.equal(tokenRefreshDelayMs({ type: 'sas', expiresOnTimestamp: now + 120_000 }, now), 90_000);
    assert.equal(tokenRefreshDelayMs({ type: 'jwt', expiresOnTimestamp: now + 20_000 }, now), 15_000);
    assert.equal(tokenRefreshDelayMs({ type: 'jwt', expiresOnTimestamp: now + 8 * 60_000 }, now), 6 * 60_000);
  });

  test('never schedules faster than the floor, even for an expired token', () => {
    assert.equal(tokenRefreshDelayMs({ type: 'jwt', expiresOnTimestamp: now - 1 }, now), MIN_TOKEN_REFRESH_DELAY_MS);
  });
});

describe('creditToGrant', () => {
  test('tops up to the window, never beyond it', () => {
    assert.equal(creditToGrant(300, 0, 0, 100), 300);
    assert.equal(creditToGrant(300, 300, 0, 100), 0);
    assert.equal(creditToGrant(300, 250, 50, 100), 0);
    assert.equal(creditToGrant(300, 100, 0, 100), 200);
  });

  test('holds back small grants while credit is outstanding, but never stalls an idle link', () => {
    assert.equal(creditToGrant(300, 0, 250, 100), 0);
    assert.equal(creditToGrant(300, 0, 200, 100), 100);
    assert.equal(creditToGrant(300, 290, 0, 100), 10);
  });
});

describe('messageToEvent', () => {
  test('reads the position annotations and keeps the body bytes', () => {
    const body = Buffer.from('{"records":[]}');
    const enqueued = new Date(1_700_000_000_000);
    const e = messageToEvent({
      body: { typecode: 0x75, content: body } as never,
      message_annotations: {
        'x-opt-sequence-number': 7,
        'x-opt-offset': '4096',
        'x-opt-enqueued-time': enqueued,
        'x-opt-partition-key': 'k',
        'x-opt-publisher': 'p',
      },
      application_properties: { a: 1, when: new Date(5) },
      message_id: 'm1',
      content_type: 'application/json',
    });
    assert.deepEqual(Buffer.from(e.body), body);
    assert.equal(e.sequenceNumber, 7);
    assert.equal(e.offset, '4096');
    assert.equal(e.enqueuedTime.getTime(), enqueued.getTime());
    assert.equal(e.partitionKey, 'k');
    assert.deepEqual(e.properties, { a: 1, when: 5 });
    assert.equal(e.messageId, 'm1');
    assert.equal(e.contentType, 'application/json');
    assert.deepEqual(e.systemProperties, { 'x-opt-publisher': 'p', messageId: 'm1', contentType: 'application/json' });
  });

  test('reads runtime metrics from delivery annotations', () => {
    const info = lastEnqueuedFromMessage({
      delivery_annotations: {
        last_enqueued_sequence_number: 99,
        last_enqueued_offset: '123',
        last_enqueued_time_utc: new Date(10),
        runtime_info_retrieval_time_utc: new Date(20),
      },
    });
    assert.deepEqual(info, { sequenceNumber: 99, offset: '123', enqueuedOn: new Date(10), retrievedOn: new Date(20) });
    assert.equal(lastEnqueuedFromMessage({}), undefined);
  });
});
