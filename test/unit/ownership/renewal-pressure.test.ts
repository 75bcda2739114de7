import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RenewalPressure, defaultRenewalLatencyLimitMs } from '../../../src/ownership/internal/renewal-pressure.ts';
import { resolveCoordinatorTimings } from '../../../src/ownership/internal/coordinator-timings.ts';

/** A RenewalPressure on a clock the test moves by hand. */
function withClock(limitMs: number): { pressure: RenewalPressure; advance: (ms: number) => void } {
  let now = 1_000;
  return { pressure: new RenewalPressure(limitMs, () => now), advance: (ms) => void (now += ms) };
}

test('renewal pressure: renewals answered within the limit never hold claims back', () => {
  const { pressure, advance } = withClock(2_000);
  for (let i = 0; i < 5; i++) {
    const ended = pressure.begin();
    advance(1_900);
    assert.equal(pressure.congested(), false);
    ended('renewed');
  }
  const gone = pressure.begin();
  advance(100);
  gone('gone'); // a definite answer in time: the lease is lost, but storage is not slow
  assert.equal(pressure.congested(), false);
  assert.equal(pressure.inFlight, 0);
});

test('renewal pressure: a renewal in flight past the limit holds claims until it is answered', () => {
  const { pressure, advance } = withClock(2_000);
  const fast = pressure.begin();
  const slow = pressure.begin();
  advance(500);
  fast('renewed');
  advance(1_501);
  assert.equal(pressure.congested(), true, 'in flight for 2,001 ms');
  assert.equal(pressure.lateMs(), 2_001);
  advance(3_000);
  slow('renewed');
  assert.equal(pressure.congested(), true, 'it took 5 s: still late for one limit after its answer');
  advance(2_001);
  assert.equal(pressure.congested(), false, 'no late renewal within the last limit');
});

test(
  'renewal pressure: a renewal tick that fires past the limit (a busy event loop) holds claims for one ' + 'limit',
  () => {
    const { pressure, advance } = withClock(2_000);
    pressure.tickLate(1_999);
    assert.equal(pressure.congested(), false);
    pressure.tickLate(3_500);
    assert.equal(pressure.lateMs(), 3_500);
    advance(2_001);
    assert.equal(pressure.congested(), false);
  },
);

test('renewal pressure: a failure without an answer counts as late however fast it came', () => {
  const { pressure, advance } = withClock(2_000);
  const ended = pressure.begin();
  advance(5);
  ended('failed');
  assert.equal(pressure.congested(), true);
  advance(2_001);
  assert.equal(pressure.congested(), false);
});

test("renewal pressure: default limit is a quarter of the slack before a claim's deadline", () => {
  assert.equal(defaultRenewalLatencyLimitMs(15_000, 2_000, 5_000), 2_000); // slack 8 s
  assert.equal(defaultRenewalLatencyLimitMs(15_000, 2_000, 7_500), 1_375); // slack 5.5 s
  assert.equal(defaultRenewalLatencyLimitMs(60_000, 2_000, 20_000), 9_500); // slack 38 s
  // default lease 30 s, renew 10 s: slack 18 s
  assert.equal(resolveCoordinatorTimings({}).renewalLatencyLimitMs, 4_500);
  assert.equal(resolveCoordinatorTimings({ renewalLatencyLimitMs: 300 }).renewalLatencyLimitMs, 300);
  assert.throws(
    () => resolveCoordinatorTimings({ renewalLatencyLimitMs: 0 }),
    /renewalLatencyLimitMs \(0\) must be positive/,
  );
});
