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
    assert.deepEqual(state.report(), { status: 'starting', receivers: { r: { status: 'starting', reason: 'hubNotReached', ownedPartitions: 0 } } });
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
    assert.deepEqual(state.report().receivers.r, { status: 'unhealthy', reason: 'hubUnreachable', error: 'still not found', ownedPartitions: 1 });
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
