import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { HealthState } from '../../../src/telemetry/health-state.ts';

function setup() {
  let now = 1_000_000;
  const state = new HealthState({ unhealthyAfterMs: 10_000, now: () => now });
  return { state, advance: (ms: number) => (now += ms) };
}

describe('HealthState', () => {
  test('starting until the hub is reached and a partition is owned, then ready', () => {
    const { state } = setup();
    state.register('r');
    assert.deepEqual(state.report(), {
      status: 'starting',
      receivers: { r: { status: 'starting', reason: 'hubNotReached', ownedPartitions: 0 } },
    });
    state.update('r', { type: 'hubReached', partitionIds: ['0', '1'] });
    assert.equal(state.report().receivers.r!.reason, 'noPartitionsOwned');
    state.update('r', { type: 'partitionOpened', partitionId: '0' });
    assert.deepEqual(state.report(), { status: 'ready', receivers: { r: { status: 'ready', ownedPartitions: 1 } } });
  });

  test('confirmed standby (no partition to own) is ready too', () => {
    const { state } = setup();
    state.update('r', { type: 'hubReached', partitionIds: ['0'] });
    state.update('r', { type: 'standby' });
    assert.equal(state.report().status, 'ready');
  });

  test('stays ready while partitions move during rebalancing', () => {
    const { state } = setup();
    state.update('r', { type: 'partitionOpened', partitionId: '0' });
    state.update('r', { type: 'partitionClosed', partitionId: '0', reason: 'ownershipLost' });
    assert.equal(state.report().status, 'ready');
  });

  test('unhealthy with a reason once the hub stays unreachable past the threshold; recovers when reached', () => {
    const { state, advance } = setup();
    state.update('r', { type: 'partitionOpened', partitionId: '0' });
    state.update('r', { type: 'hubUnreachable', error: new Error('The messaging entity could not be found') });
    advance(9_999);
    assert.equal(state.report().status, 'ready', 'a short outage is tolerated');
    state.update('r', { type: 'hubUnreachable', error: new Error('still not found') });
    advance(1);
    assert.deepEqual(state.report().receivers.r, {
      status: 'unhealthy',
      reason: 'hubUnreachable',
      error: 'still not found',
      ownedPartitions: 1,
    });
    assert.equal(state.report().status, 'unhealthy');
    state.update('r', { type: 'hubReached', partitionIds: ['0'] });
    assert.equal(state.report().status, 'ready');
  });

  test('persistent checkpoint failures are unhealthy; one success clears them', () => {
    const { state, advance } = setup();
    state.update('r', { type: 'partitionOpened', partitionId: '0' });
    state.update('r', { type: 'checkpointFailed', partitionId: '0', error: new Error('lease lost') });
    advance(10_000);
    assert.equal(state.report().receivers.r!.reason, 'checkpointFailing');
    state.update('r', { type: 'checkpointWritten', partitionId: '0', sequenceNumber: 5 });
    assert.equal(state.report().status, 'ready');
  });

  test('the service is starting while any receiver is, unhealthy if any is, stopping after stopping()', () => {
    const { state } = setup();
    state.update('a', { type: 'partitionOpened', partitionId: '0' });
    state.register('b');
    assert.equal(state.report().status, 'starting');
    state.update('b', { type: 'standby' });
    state.update('b', { type: 'hubReached', partitionIds: [] });
    assert.equal(state.report().status, 'ready');
    state.stopping();
    assert.equal(state.report().status, 'stopping');
  });
});

describe('HealthState: permanent failures, retrying partitions, storage', () => {
  const permanent = (message: string, configKey: string) =>
    Object.assign(new Error(message), { permanent: true, configKey });

  test(
    'a permanent reader failure is unhealthy at once, naming the partition and the key; reading again clears ' + 'it',
    () => {
      const { state } = setup();
      state.update('r', { type: 'hubReached', partitionIds: ['0', '1'] });
      state.update('r', { type: 'partitionOpened', partitionId: '0' });
      state.update('r', { type: 'partitionOpened', partitionId: '1' });
      const error = permanent("consumer group 'nope' not found", 'group');
      state.update('r', {
        type: 'partitionState',
        partitionId: '1',
        state: 'retrying',
        since: 1_000_000,
        cause: 'reader',
        permanent: true,
        configKey: 'group',
        error,
      });
      const r = state.report();
      assert.equal(r.status, 'unhealthy');
      assert.equal(r.receivers.r!.reason, 'misconfigured');
      assert.equal(r.receivers.r!.configKey, 'group');
      assert.deepEqual(Object.keys(r.receivers.r!.partitions!), ['1']);
      assert.equal(r.receivers.r!.partitions!['1']!.cause, 'reader');
      state.update('r', { type: 'partitionState', partitionId: '1', state: 'reading', since: 1_000_000 });
      assert.equal(state.report().status, 'ready');
    },
  );

  test('a partition retrying transiently (or holding a refused batch) is degraded only after the bound', () => {
    let now = 1_000_000;
    const state = new HealthState({ degradedAfterMs: 5_000, now: () => now });
    state.update('r', { type: 'partitionOpened', partitionId: '0' });
    state.update('r', {
      type: 'partitionState',
      partitionId: '0',
      state: 'retrying',
      since: now,
      cause: 'export',
      permanent: false,
      error: new Error('503'),
    });
    now += 4_999;
    assert.equal(state.report().status, 'ready');
    assert.equal(state.report().receivers.r!.partitions!['0']!.state, 'retrying', 'named even before the bound');
    now += 1;
    assert.equal(state.report().status, 'degraded');
    assert.equal(state.report().receivers.r!.reason, 'partitionRetrying');
    // A refused batch flapping between permanent and transient keeps its start.
    state.update('r', {
      type: 'partitionState',
      partitionId: '0',
      state: 'retrying',
      since: now,
      cause: 'export',
      permanent: false,
      error: new Error('503'),
    });
    assert.equal(state.report().status, 'degraded');
    state.update('r', { type: 'partitionClosed', partitionId: '0', reason: 'yield' });
    assert.equal(state.report().status, 'ready');
  });

  test('a permanent hub or storage error is unhealthy at once; a transient storage failure after the threshold', () => {
    const { state, advance } = setup();
    state.update('r', { type: 'hubUnreachable', error: permanent('hub not found', 'event_hub.name') });
    assert.equal(state.report().receivers.r!.reason, 'misconfigured');
    assert.equal(state.report().receivers.r!.configKey, 'event_hub.name');
    state.update('r', { type: 'hubReached', partitionIds: ['0'] });
    state.update('r', { type: 'partitionOpened', partitionId: '0' });
    state.update('r', { type: 'storageFailing', error: new Error('storage request timed out') });
    advance(9_999);
    assert.equal(state.report().status, 'ready');
    advance(1);
    assert.equal(state.report().receivers.r!.reason, 'storageFailing');
    state.update('r', { type: 'storageRecovered' });
    assert.equal(state.report().status, 'ready');
    state.update('r', {
      type: 'storageFailing',
      error: permanent('container not found', 'blob_checkpoint_store.container_name'),
    });
    assert.equal(state.report().receivers.r!.configKey, 'blob_checkpoint_store.container_name');
  });

  test('one misconfigured receiver makes the service unhealthy and names it; the others stay ready', () => {
    const { state } = setup();
    state.update('good', { type: 'partitionOpened', partitionId: '0' });
    state.update('bad', { type: 'hubUnreachable', error: permanent('refused', 'connection') });
    const r = state.report();
    assert.equal(r.status, 'unhealthy');
    assert.equal(r.receivers.good!.status, 'ready');
    assert.equal(r.receivers.bad!.status, 'unhealthy');
  });
  test(
    'a memory pause (memory.limit_mib) that lasts past the degraded delay is degraded, naming the key; resuming ' +
      'clears it',
    () => {
      const { state, advance } = setup();
      state.update('r', { type: 'hubReached', partitionIds: ['0'] });
      state.update('r', { type: 'partitionOpened', partitionId: '0' });
      const MiB = 1024 * 1024;
      state.update('r', { type: 'memoryPaused', usageBytes: 150 * MiB, limitBytes: 128 * MiB });
      advance(29_999);
      assert.equal(state.report().status, 'ready', 'a brief pause is the limit working');
      state.update('r', { type: 'memoryPaused', usageBytes: 151 * MiB, limitBytes: 128 * MiB });
      advance(1);
      const r = state.report().receivers.r!;
      assert.equal(r.status, 'degraded');
      assert.equal(r.reason, 'memoryPaused');
      assert.equal(r.configKey, 'memory.limit_mib');
      assert.match(r.error ?? '', /151 MiB is above memory\.limit_mib 128/);
      state.update('r', { type: 'memoryResumed', usageBytes: 100 * MiB, limitBytes: 128 * MiB });
      assert.equal(state.report().status, 'ready');
    },
  );

  test('a partition waiting on the pipeline past degraded_after is exportStalled, naming the failing exporter', () => {
    let now = 1_000_000;
    const state = new HealthState({ degradedAfterMs: 30_000, now: () => now });
    state.update('r', { type: 'partitionOpened', partitionId: '0' });
    state.update('r', { type: 'partitionOpened', partitionId: '1' });
    const handedOver = now;
    now += 5_000;
    state.update('r', {
      type: 'partitionState',
      partitionId: '1',
      state: 'waiting',
      since: handedOver,
      cause: 'export',
    });
    state.exportAttempt('otlphttp/a', { ok: false, error: new Error('503 Service Unavailable'), retrying: true });
    now += 5_000;
    state.exportAttempt('otlphttp/a', { ok: false, error: new Error('503 again'), retrying: true });
    const early = state.report();
    assert.equal(early.status, 'ready', 'waiting 10 s of a 30 s allowance');
    assert.deepEqual(early.receivers.r!.partitions, {
      '1': {
        state: 'waiting',
        cause: 'export',
        permanent: false,
        seconds: 10,
        exporter: 'otlphttp/a',
        error: '503 again',
      },
    });
    now = handedOver + 30_000;
    const r = state.report().receivers.r!;
    assert.equal(r.status, 'degraded');
    assert.equal(r.reason, 'exportStalled');
    assert.equal(r.exporter, 'otlphttp/a');
    assert.equal(r.error, 'otlphttp/a: 2 failed attempts in a row: 503 again');
    // The exporter delivers: the batch is delivered and the partition reads again.
    state.exportAttempt('otlphttp/a', { ok: true });
    state.update('r', { type: 'partitionState', partitionId: '1', state: 'reading', since: now });
    assert.deepEqual(state.report(), { status: 'ready', receivers: { r: { status: 'ready', ownedPartitions: 2 } } });
  });

  test('a batch held by a stage while no exporter fails is still exportStalled after degraded_after, saying so', () => {
    let now = 1_000_000;
    const state = new HealthState({ degradedAfterMs: 2_000, now: () => now });
    state.update('r', { type: 'partitionOpened', partitionId: '0' });
    state.update('r', { type: 'partitionState', partitionId: '0', state: 'waiting', since: now, cause: 'export' });
    now += 7_000;
    const r = state.report().receivers.r!;
    assert.equal(r.reason, 'exportStalled');
    assert.equal(r.exporter, undefined);
    assert.match(r.error!, /handed to the pipeline 7s ago is not delivered yet/);
  });
});
