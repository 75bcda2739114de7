/*
 * A refusal names items; the pump dead-letters their events. Metric points and spans carry no sequence-number
 * attribute (the Go layout has none), so the decoder notes each one's event: a refused point or span names
 * exactly its own event, and the other events of the batch are not dead-lettered with it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import { PartialRefusalError } from '../../../src/pipeline/partial-refusal.ts';
import type { SignalBatch } from '../../../src/pipeline/signal-batch.ts';
import { refusedEvents } from '../../../src/receiver/internal/refused-events.ts';
import { FIXTURE_CONTEXT, FIXTURE_OBSERVED_MS, fixtureEvent } from '../../fixtures/decode/fixture-support.ts';

const ID = '/SUBSCRIPTIONS/S/RESOURCEGROUPS/RG/PROVIDERS/MICROSOFT.WEB/SITES/APP';
const metric = (name: string) => ({
  count: 1,
  total: 2,
  minimum: 2,
  maximum: 2,
  average: 2,
  resourceId: ID,
  time: '2025-07-14T12:45:00Z',
  metricName: name,
  timeGrain: 'PT1M',
});
const request = (id: string) => ({
  Type: 'AppRequests',
  time: '2025-07-14T12:45:00Z',
  OperationId: 'a'.repeat(32),
  Id: id,
  ParentId: '',
  Name: 'GET /',
  DurationMs: 5,
  Success: true,
  ResultCode: '200',
  _ResourceId: ID,
});

function decodedBatch() {
  const decode = createDecoder({
    format: 'azure',
    signals: new Set(['logs', 'metrics', 'traces']),
    now: () => FIXTURE_OBSERVED_MS,
  });
  const events = [
    fixtureEvent(JSON.stringify({ records: [metric('A')] }), { sequenceNumber: 10 }),
    fixtureEvent(JSON.stringify({ records: [request('1'.repeat(16)), metric('B')] }), { sequenceNumber: 11 }),
    fixtureEvent(JSON.stringify({ records: [request('2'.repeat(16))] }), { sequenceNumber: 12 }),
  ];
  const { records, metrics, spans } = decode(events, FIXTURE_CONTEXT);
  assert.equal(records.length, 0);
  assert.equal(metrics?.length, 10);
  assert.equal(spans?.length, 2);
  const batch: SignalBatch = {
    records,
    metrics,
    spans,
    source: { ...FIXTURE_CONTEXT, firstSequenceNumber: 10, lastSequenceNumber: 12 },
  };
  return { batch, events };
}

test('a refused metric point or span names its own event, not the whole batch', () => {
  const { batch, events } = decodedBatch();
  const error = new PartialRefusalError(
    [
      {
        records: [],
        metrics: batch.metrics!.filter((p) => p.name.startsWith('b_')),
        spans: [batch.spans![1]!],
        error: new Error('400'),
      },
    ],
    batch.metrics!.length - 5 + 1,
  );
  const refused = refusedEvents(error, batch, events);
  assert.ok(refused, 'the refusal maps to events');
  assert.deepEqual(
    refused.events.map((r) => [r.event.sequenceNumber, r.signals]),
    [
      [11, ['metrics']],
      [12, ['traces']],
    ],
  );
  assert.deepEqual(refused.refused, { records: 0, metricPoints: 5, spans: 1 });
});

test('an item the batch does not hold makes the mapping fail (the whole batch is then refused)', () => {
  const { batch, events } = decodedBatch();
  const stranger = { ...batch.spans![0]! };
  const error = new PartialRefusalError([{ records: [], spans: [stranger], error: new Error('400') }], 0);
  assert.equal(refusedEvents(error, batch, events), undefined);
});
