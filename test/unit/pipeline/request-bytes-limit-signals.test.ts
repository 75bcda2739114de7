import { test } from 'node:test';
import assert from 'node:assert/strict';
import { limitRequestBytes } from '../../../src/pipeline/request-bytes-limit.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { isPartialRefusal, RequestTooLargeError } from '../../../src/pipeline/partial-refusal.ts';
import type { SpanRecord } from '../../../src/pipeline/signals.ts';
import { mixedBatch, makeSpan } from '../exporters/signal-items.ts';

test(
  'bounding spans: parts hold only spans, split to the bound; a span over it is refused alone, as ' + 'spans',
  async () => {
    const seen: SignalBatch[] = [];
    // 100 bytes per span, except the one named `huge`.
    const measure = (spans: readonly SpanRecord[]) => spans.reduce((n, s) => n + (s.name === 'huge' ? 10_000 : 100), 0);
    const limited = limitRequestBytes(
      { consume: async (b) => void seen.push(b) },
      { maxBytes: 1024, measure, signal: 'traces' },
    );
    const batch = mixedBatch(3, 2, 30);
    const huge = makeSpan({ name: 'huge' });
    const withHuge = { ...batch, spans: [...batch.spans!.slice(0, 15), huge, ...batch.spans!.slice(15)] };
    const error = await limited.consume(withHuge).then(
      () => undefined,
      (e: unknown) => e,
    );
    assert.ok(isPartialRefusal(error));
    assert.deepEqual(
      error.refusals.map((r) => [r.records.length, r.spans]),
      [[0, [huge]]],
    );
    assert.ok(error.refusals[0]!.error instanceof RequestTooLargeError);
    assert.match(error.message, /span of 10000 bytes is larger than max_request_bytes \(1024 bytes\)/);
    assert.equal(error.delivered, 30);
    for (const part of seen) {
      assert.deepEqual([part.records.length, part.metrics], [0, undefined], 'only spans are handed on');
      assert.ok(measure(part.spans!) <= 1024);
    }
    assert.deepEqual(
      seen.flatMap((p) => p.spans!),
      batch.spans,
      'every other span once, in order',
    );
  },
);

test('a batch of one signal that fits goes on as it is (the same object)', async () => {
  const seen: SignalBatch[] = [];
  const limited = limitRequestBytes(
    { consume: async (b) => void seen.push(b) },
    { maxBytes: 1024, measure: () => 10, signal: 'metrics' },
  );
  const batch = mixedBatch(0, 5, 0);
  await limited.consume(batch);
  assert.equal(seen[0], batch);
});
