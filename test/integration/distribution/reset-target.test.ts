// hubResolver against the emulator: the checkpoint a `checkpoints reset` target resolves to (the parsing of
// targets is unit-tested in test/unit/distribution/reset-target.test.ts).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHubClient } from '../../../src/backends/create-hub-client.ts';
import { hubResolver } from '../../../src/distribution/internal/reset-target.ts';
import { startTestEmulator, type TestEmulator } from '../../helpers/emulator.ts';
import type { HubClient } from '../../../src/backends/consumer.ts';

test('hubResolver turns targets into checkpoints with real offsets (emulator)', { timeout: 30_000 }, async (t) => {
  const eh = await startTestEmulator(t, { partitions: 2 });
  const hub = createHubClient('polling', {
    connectionString: eh.connectionString,
    consumerGroup: eh.consumerGroup,
    retry: { maxRetries: 0, timeoutMs: 10_000 },
  });
  // The emulator's and the SDK's sockets are unref'ed; a ref'ed timer keeps the loop alive while reading.
  const keepAlive = setInterval(() => {}, 1_000);
  try {
    await check(eh, hub);
  } finally {
    await hub.close();
    clearInterval(keepAlive);
  }
});

async function check(eh: TestEmulator, hub: HubClient): Promise<void> {
  eh.emulator.append(
    eh.hubName,
    '0',
    ['a', 'b', 'c'].map((body) => ({ body })),
  );
  await new Promise((r) => setTimeout(r, 30));
  const between = new Date();
  await new Promise((r) => setTimeout(r, 30));
  eh.emulator.append(
    eh.hubName,
    '0',
    ['d', 'e'].map((body) => ({ body })),
  );
  const resolve = hubResolver(hub);
  const props = await hub.getPartitionProperties('0');

  assert.deepEqual(await resolve('0', { kind: 'latest' }), { sequenceNumber: 4, offset: props.lastEnqueuedOffset });
  assert.deepEqual(
    await resolve('1', { kind: 'latest' }),
    { sequenceNumber: -1, offset: '-1' },
    'an empty partition resets to before its first event',
  );
  const beforeTime = await resolve('0', { kind: 'time', time: between });
  assert.equal(beforeTime.sequenceNumber, 2, 'the last event enqueued before the time');
  const atSeq = await resolve('0', { kind: 'sequenceNumber', sequenceNumber: 2 });
  assert.equal(atSeq.sequenceNumber, 1);
  assert.notEqual(atSeq.offset, beforeTime.offset);
  assert.deepEqual(await resolve('0', { kind: 'sequenceNumber', sequenceNumber: 0 }), {
    sequenceNumber: -1,
    offset: '-1',
  });
  assert.deepEqual(await resolve('0', { kind: 'sequenceNumber', sequenceNumber: 99 }), {
    sequenceNumber: 4,
    offset: props.lastEnqueuedOffset,
  });
  assert.deepEqual(
    await resolve('0', { kind: 'time', time: new Date(Date.now() + 60_000) }),
    { sequenceNumber: 4, offset: props.lastEnqueuedOffset },
    'a future time skips everything',
  );
}
