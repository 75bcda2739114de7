import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { ReceivedEvent } from '../../../src/backends/consumer.ts';
import { noopLogger } from '../../../src/component/logger.ts';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import type { DecoderOptions } from '../../../src/decode/decoder.ts';
import { SAMPLE_CATEGORIES, sampleResourceLogBody } from '../../../scripts/local/samples.ts';
import { encodeLogsRequest } from '../../../src/exporters/internal/otlp-proto-encoder.ts';
import {
  DecodePool,
  decodeWorkerCount,
  MAX_CONSECUTIVE_WORKER_FAILURES,
} from '../../../src/receiver/internal/decode-pool.ts';
import { decodeLogsRequest } from '../../helpers/otlp-logs-proto.ts';
import { siblingModule } from '../../helpers/sibling-module.ts';

const context = { namespace: 'ns.example', eventHubName: 'hub', consumerGroup: '$Default', partitionId: '3' };
const options: DecoderOptions = { format: 'azure', applySemanticConventions: true };

function events(count: number): ReceivedEvent[] {
  const time = new Date('2026-05-14T09:12:44Z');
  return Array.from({ length: count }, (_, i) => ({
    body: Buffer.from(
      i === 7
        ? '{"records": [ not json'
        : sampleResourceLogBody(SAMPLE_CATEGORIES[i % SAMPLE_CATEGORIES.length]!, {
            records: 1 + (i % 3),
            index: i,
            time,
          }),
    ),
    sequenceNumber: 100 + i,
    offset: String(1000 + i),
    enqueuedTime: new Date(time.getTime() + i),
    properties: { origin: 'test', n: i },
  }));
}

/** The records of a request, without the observed time (the decode's clock), as comparable objects. */
function records(bytes: Uint8Array): unknown[] {
  const request = decodeLogsRequest(bytes);
  return request.resourceLogs.flatMap((rl: any) =>
    rl.scopeLogs.flatMap((sl: any) =>
      sl.logRecords.map((r: any) => {
        const { observedTimeUnixNano: _observed, ...rest } = r;
        return { resource: rl.resource, scope: sl.scope, ...rest };
      }),
    ),
  );
}

test(
  'decode_workers: auto is one fewer than the cores (none on one core), at most two; numbers are taken as they ' +
    'are',
  () => {
    assert.equal(decodeWorkerCount('auto', 2), 1);
    assert.equal(decodeWorkerCount('auto', 1), 0);
    assert.equal(decodeWorkerCount('auto', 3), 2);
    assert.equal(decodeWorkerCount('auto', 8), 2, 'two keep the pipeline thread busy');
    assert.equal(decodeWorkerCount(0, 8), 0);
    assert.equal(decodeWorkerCount(3, 2), 3);
  },
);

test('a worker decodes and encodes the same records as the pipeline thread, with the same counts', async (t) => {
  const pool = new DecodePool({ size: 2, decoder: options, logger: noopLogger });
  t.after(() => pool.close());
  const batch = events(40);
  const here = createDecoder(options)(batch, context);
  const [a, b] = await Promise.all([pool.run(batch.slice(0, 20), context), pool.run(batch.slice(20), context)]);
  assert.equal(a.encodedLogs.records + b.encodedLogs.records, here.records.length);
  assert.equal(a.stats.failedEvents + b.stats.failedEvents, here.stats.failedEvents);
  assert.equal(here.stats.failedEvents, 1, 'the malformed event is counted');
  // Two requests concatenated are one request holding both: the same records, in order.
  const both = Buffer.concat([a.encodedLogs.bytes, b.encodedLogs.bytes]);
  const expected = [
    ...records(encodeLogsRequest(createDecoder(options)(batch.slice(0, 20), context).records)),
    ...records(encodeLogsRequest(createDecoder(options)(batch.slice(20), context).records)),
  ];
  assert.deepEqual(records(both), expected);
  assert.ok(expected.length > 40);
});

test('a worker that dies fails its job; after repeated deaths the pool turns itself off', async (t) => {
  const logged: string[] = [];
  const logger = { ...noopLogger, warn: (message: string) => void logged.push(message), child: () => logger };
  const entry = siblingModule(import.meta.url, 'fixtures/exiting-decode-worker').url;
  const pool = new DecodePool({ size: 1, decoder: options, logger, entry });
  t.after(() => pool.close());
  for (let i = 0; i < MAX_CONSECUTIVE_WORKER_FAILURES; i++) {
    assert.equal(pool.usable, true);
    await assert.rejects(pool.run(events(2), context), /decode worker ended: exit code 3/);
  }
  assert.equal(pool.usable, false);
  await assert.rejects(pool.run(events(2), context), /decode workers are off/);
  assert.equal(logged.length, MAX_CONSECUTIVE_WORKER_FAILURES);
});

test('closing the pool fails the jobs still out and refuses new ones', async () => {
  const pool = new DecodePool({ size: 1, decoder: options, logger: noopLogger });
  const failed = assert.rejects(pool.run(events(5), context), /decode workers closed/);
  await pool.close();
  await failed;
  await assert.rejects(pool.run(events(1), context), /off/);
});
