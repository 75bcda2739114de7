import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { limitRequestBytes, MIN_SPLIT_BYTES } from '../../../src/pipeline/request-bytes-limit.ts';
import { isPartialRefusal, isRequestTooLarge, RequestTooLargeError } from '../../../src/pipeline/partial-refusal.ts';
import { PermanentError, isPermanentError } from '../../../src/component/errors.ts';
import { RetriesExhaustedError } from '../../../src/pipeline/retry.ts';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { makeRecord, makeSource } from './records.ts';
import type { Logger } from '../../../src/component/logger.ts';

/** A request's size in this test: 100 bytes of envelope plus each body's length. */
const measure = (records: readonly ReadableLogRecord[]) => 100 + records.reduce((n, r) => n + String(r.body).length, 0);

/** Records with bodies of the given lengths, named by index: body `i` repeated. */
function batchOf(lengths: number[]): SignalBatch {
  return {
    records: lengths.map((l, i) => makeRecord(String(i % 10).repeat(l), { index: i })),
    source: makeSource('3', 10, 10 + lengths.length - 1),
  };
}
const indexes = (records: readonly ReadableLogRecord[]) => records.map((r) => r.attributes.index as number);

/** Records each request; `answer` decides each one's fate. */
function server(
  answer: (records: readonly ReadableLogRecord[]) => Error | undefined = () => undefined,
): SignalConsumer & { requests: number[][] } {
  const requests: number[][] = [];
  return {
    requests,
    async consume(batch: SignalBatch) {
      requests.push(indexes(batch.records));
      const error = answer(batch.records);
      if (error) throw error;
    },
  };
}

describe('limitRequestBytes', () => {
  test('a batch below the bound goes out as is, in one request', async () => {
    const next = server();
    await limitRequestBytes(next, { maxBytes: 1_000, measure }).consume(batchOf([100, 100, 100]));
    assert.deepEqual(next.requests, [[0, 1, 2]]);
  });

  test('a larger batch is split in halves until every request fits, in order', async () => {
    const next = server();
    const sizes: number[] = [];
    await limitRequestBytes(next, { maxBytes: 1_000, measure }).consume(batchOf(Array(8).fill(300)));
    for (const r of next.requests) sizes.push(100 + r.length * 300);
    assert.deepEqual(next.requests.flat(), [0, 1, 2, 3, 4, 5, 6, 7]);
    assert.ok(
      sizes.every((s) => s <= 1_000),
      `request sizes ${sizes}`,
    );
    assert.deepEqual(next.requests, [
      [0, 1],
      [2, 3],
      [4, 5],
      [6, 7],
    ]);
  });

  test('one record over the bound is refused at once with its size and the bound; the rest is delivered', async () => {
    const next = server();
    const error = await limitRequestBytes(next, { maxBytes: 1_000, measure, name: 'otlp/x' })
      .consume(batchOf([100, 5_000, 100, 100]))
      .catch((e: unknown) => e);
    assert.ok(isPartialRefusal(error), String(error));
    assert.ok(isPermanentError(error));
    assert.equal(error.delivered, 3);
    assert.deepEqual(
      error.refusals.map((r) => indexes(r.records)),
      [[1]],
    );
    const reason = error.refusals[0]!.error;
    assert.ok(isRequestTooLarge(reason));
    assert.match(reason.message, /otlp\/x: record of 5100 bytes is larger than max_request_bytes \(1000 bytes\)/);
    assert.deepEqual(next.requests.flat().sort(), [0, 2, 3], 'the large record was never sent');
  });

  test('a batch of one record over the bound rejects with the RequestTooLargeError itself', async () => {
    const next = server();
    const error = await limitRequestBytes(next, { maxBytes: 1_000, measure })
      .consume(batchOf([2_000]))
      .catch((e: unknown) => e);
    assert.ok(error instanceof RequestTooLargeError);
    assert.equal(next.requests.length, 0);
  });

  test('maxBytes 0 never measures and never splits', async () => {
    const next = server();
    let measured = 0;
    await limitRequestBytes(next, { maxBytes: 0, measure: (r) => (measured++, measure(r)) }).consume(
      batchOf([5_000, 5_000]),
    );
    assert.deepEqual(next.requests, [[0, 1]]);
    assert.equal(measured, 0);
  });

  test('a server size refusal splits the request and sends the halves instead of the same bytes', async () => {
    // The server takes at most 2 records per request and names no limit (an HTTP 413).
    const next = server((r) => (r.length > 2 ? new RequestTooLargeError('413 Payload Too Large') : undefined));
    const big = Array(6).fill(MIN_SPLIT_BYTES / 2);
    await limitRequestBytes(next, { maxBytes: 0, measure }).consume(batchOf(big));
    assert.deepEqual(next.requests, [[0, 1, 2, 3, 4, 5], [0, 1, 2], [0, 1], [2], [3, 4, 5], [3, 4], [5]]);
  });

  test(
    'a server naming its limit: parts are cut to it at once, and for later batches; the lower limit is ' + 'logged',
    async () => {
      const limit = 1_000;
      const next = server((r) =>
        measure(r) > limit
          ? new RequestTooLargeError(`received message larger than max (${measure(r)} vs. ${limit})`, {
              limitBytes: limit,
            })
          : undefined,
      );
      const warnings: string[] = [];
      const logger = { warn: (m: string) => warnings.push(m) } as unknown as Logger;
      const limited = limitRequestBytes(next, { maxBytes: 100_000, measure, logger });
      await limited.consume(batchOf(Array(8).fill(300)));
      assert.deepEqual(next.requests, [
        [0, 1, 2, 3, 4, 5, 6, 7],
        [0, 1],
        [2, 3],
        [4, 5],
        [6, 7],
      ]);
      next.requests.length = 0;
      await limited.consume(batchOf(Array(4).fill(300)));
      assert.deepEqual(
        next.requests,
        [
          [0, 1],
          [2, 3],
        ],
        'the next batch is cut before it is sent',
      );
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!, /over 1000 bytes/);
    },
  );

  test("a single record the server still refuses for its size is refused with the server's reason", async () => {
    const next = server((r) => (measure(r) > 10_000 ? new RequestTooLargeError('413 Payload Too Large') : undefined));
    const error = await limitRequestBytes(next, { maxBytes: 0, measure })
      .consume(batchOf([100, 70_000, 100]))
      .catch((e: unknown) => e);
    assert.ok(isPartialRefusal(error));
    assert.deepEqual(
      error.refusals.map((r) => [indexes(r.records), r.error.message]),
      [[[1], '413 Payload Too Large']],
    );
    assert.equal(error.delivered, 2);
  });

  test(
    `below ${MIN_SPLIT_BYTES} bytes a size refusal is not split further (a quota, not a size): the part is ` +
      `refused`,
    async () => {
      const next = server(() => new RequestTooLargeError('8 RESOURCE_EXHAUSTED: quota'));
      const error = await limitRequestBytes(next, { maxBytes: 0, measure })
        .consume(batchOf(Array(100).fill(10)))
        .catch((e: unknown) => e);
      assert.ok(error instanceof RequestTooLargeError);
      assert.equal(next.requests.length, 1, 'one request, not 199');
    },
  );

  test('another permanent failure refuses its part only; the following parts are still sent', async () => {
    const next = server((r) => (indexes(r).includes(1) ? new PermanentError('400 bad value') : undefined));
    const error = await limitRequestBytes(next, { maxBytes: 1_000, measure })
      .consume(batchOf(Array(6).fill(300)))
      .catch((e: unknown) => e);
    assert.ok(isPartialRefusal(error));
    // Parts of 3 records (1000 bytes each): [0, 1, 2] refused, [3, 4, 5] delivered.
    assert.deepEqual(
      error.refusals.map((r) => indexes(r.records)),
      [[0, 1, 2]],
    );
    assert.equal(error.delivered, 3);
    assert.deepEqual(next.requests, [
      [0, 1, 2],
      [3, 4, 5],
    ]);
  });

  test('retries exhausted on one part refuse it and every part after it at once', async () => {
    const exhausted = new RetriesExhaustedError(3, 1_000, new Error('503'));
    const next = server((r) => (indexes(r).includes(4) ? exhausted : undefined));
    const error = await limitRequestBytes(next, { maxBytes: 1_000, measure })
      .consume(batchOf(Array(12).fill(300)))
      .catch((e: unknown) => e);
    assert.ok(isPartialRefusal(error));
    assert.deepEqual(
      error.refusals.map((r) => [indexes(r.records), r.error]),
      [[[3, 4, 5, 6, 7, 8, 9, 10, 11], exhausted]],
    );
    assert.deepEqual(
      next.requests,
      [
        [0, 1, 2],
        [3, 4, 5],
      ],
      'nothing sent after the exhausted part',
    );
  });

  test('a retryable failure rejects as is (the caller retries the batch), a first permanent one too', async () => {
    const retryable = new Error('503');
    await assert.rejects(
      limitRequestBytes(
        server(() => retryable),
        { maxBytes: 1_000, measure },
      ).consume(batchOf([300, 300, 300, 300])),
      (e) => e === retryable,
    );
    const permanent = new PermanentError('401');
    await assert.rejects(
      limitRequestBytes(
        server(() => permanent),
        { maxBytes: 0, measure },
      ).consume(batchOf([300])),
      (e) => e === permanent,
    );
  });
});
