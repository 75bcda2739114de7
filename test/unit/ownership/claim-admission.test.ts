import { test } from 'node:test';
import assert from 'node:assert/strict';
import { performance } from 'node:perf_hooks';
import { ClaimAdmission, MAX_CLAIMS_IN_FLIGHT } from '../../../src/ownership/internal/claim-admission.ts';
import { ClaimRamp } from '../../../src/ownership/internal/claim-ramp.ts';
import { RenewalPressure } from '../../../src/ownership/internal/renewal-pressure.ts';
import type { OwnershipEvent } from '../../../src/ownership/coordinator.ts';

interface Harness {
  readonly admission: ClaimAdmission;
  readonly pressure: RenewalPressure;
  readonly advance: (ms: number) => void;
  readonly events: OwnershipEvent[];
}

/** An admission over a RenewalPressure on a clock the test moves by hand, recording its events; 7 owned. */
function admission(): Harness {
  let now = 1_000;
  const pressure = new RenewalPressure(2_000, () => now);
  const events: OwnershipEvent[] = [];
  const admission = new ClaimAdmission(
    pressure,
    (e) => events.push(e),
    () => 7,
  );
  return { admission, pressure, advance: (ms) => void (now += ms), events };
}

const pids = (n: number): string[] => Array.from({ length: n }, (_, i) => String(i));

/** A claim that succeeds a turn of the event loop later, counting the most claims in flight at once. */
function countingClaim(): { claim: () => Promise<boolean>; most: () => number } {
  let active = 0;
  let most = 0;
  const claim = async (): Promise<boolean> => {
    most = Math.max(most, ++active);
    await new Promise((resolve) => setImmediate(resolve));
    active--;
    return true;
  };
  return { claim, most: () => most };
}

test('claim admission: at most MAX_CLAIMS_IN_FLIGHT claims run at once, topped up as each ends', async () => {
  const { admission: a } = admission();
  const { claim, most } = countingClaim();
  const { results, deferred } = await a.claimAll({
    pids: pids(100),
    claim,
    running: () => true,
    listedAt: performance.now(),
    maxViewAgeMs: 60_000,
  });
  assert.equal(deferred, false);
  assert.equal(most(), MAX_CLAIMS_IN_FLIGHT);
  assert.deepEqual(
    results,
    pids(100).map(() => true),
  );
});

test(
  'claim admission: late renewals defer claims, told once per pause; the window halves; resume told ' + 'once',
  async () => {
    const { admission: a, pressure, advance, events } = admission();
    const late = pressure.begin();
    advance(2_001);
    const claimNow = async (): Promise<boolean> => true;
    const input = {
      pids: pids(4),
      claim: claimNow,
      running: () => true,
      listedAt: performance.now(),
      maxViewAgeMs: 60_000,
    };
    const first = await a.claimAll(input);
    assert.deepEqual(first, { results: [undefined, undefined, undefined, undefined], deferred: true });
    await a.claimAll(input);
    assert.deepEqual(events, [{ type: 'claimsPaused', lateMs: 2_001, owned: 7, deferred: 4 }]);
    assert.equal(a.resumable, false, 'renewals are still late');
    late('renewed');
    advance(2_000);
    assert.equal(a.resumable, true);
    const { claim, most } = countingClaim();
    const after = await a.claimAll({ ...input, pids: pids(40), claim });
    assert.equal(after.deferred, false);
    assert.equal(most(), MAX_CLAIMS_IN_FLIGHT / 2, 'the window was halved at the pause');
    a.resume();
    a.resume();
    assert.deepEqual(
      events.map((e) => e.type),
      ['claimsPaused', 'claimsResumed'],
    );
    assert.equal(a.resumable, false);
  },
);

test('claim admission: no claim starts from a listing older than the view age, nor once not running', async () => {
  const { admission: a } = admission();
  let calls = 0;
  const claim = async (): Promise<boolean> => (calls++, true);
  const listedAt = performance.now() - 10;
  const stale = await a.claimAll({ pids: pids(3), claim, running: () => true, listedAt, maxViewAgeMs: 5 });
  assert.deepEqual(stale.results, [undefined, undefined, undefined]);
  assert.equal(stale.deferred, false);
  const stopped = await a.claimAll({
    pids: pids(3),
    claim,
    running: () => false,
    listedAt: performance.now(),
    maxViewAgeMs: 60_000,
  });
  assert.deepEqual(stopped.results, [undefined, undefined, undefined]);
  assert.equal(calls, 0);
});

test('claim ramp: one claim while members join, doubling from a stable view, lifted when a member leaves', () => {
  const ramp = new ClaimRamp();
  assert.equal(ramp.observe(['b']), 1, 'first round: no earlier view');
  ramp.claimed(true);
  assert.equal(ramp.observe(['b']), 1, 'first stable round');
  ramp.claimed(true);
  assert.equal(ramp.observe(['b']), 2);
  ramp.claimed(true);
  assert.equal(ramp.observe(['b']), 4);
  ramp.claimed(true);
  assert.equal(ramp.observe(['b', 'c']), 1, 'a newcomer resets the ramp');
  ramp.claimed(true);
  assert.equal(ramp.observe(['b']), MAX_CLAIMS_IN_FLIGHT, 'a departure lifts it');
  ramp.claimed(false);
  assert.equal(ramp.observe(['b']), 1, 'a round that claimed nothing resets it');
});
