import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DeliveryWindow } from '../../../src/receiver/internal/delivery-window.ts';
import { InFlightBudget } from '../../../src/receiver/internal/in-flight-budget.ts';

/** A promise and its settle functions. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  let reject!: (error: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

const tick = () => new Promise((resolve) => setImmediate(resolve));

test('batches are marked in order, only once every earlier one was delivered', async () => {
  const w = new DeliveryWindow({ batches: 3, bytes: 1_000 });
  const exports = [deferred<boolean>(), deferred<boolean>(), deferred<boolean>()];
  const marked: number[] = [];
  for (const i of [0, 1, 2])
    w.add(
      i,
      10,
      () => exports[i]!.promise,
      (b) => marked.push(b),
    );
  exports[2]!.resolve(true);
  exports[1]!.resolve(true);
  await tick();
  assert.deepEqual(marked, [], 'batch 0 is not delivered yet');
  exports[0]!.resolve(true);
  assert.equal(await w.drain(), true);
  assert.deepEqual(marked, [0, 1, 2]);
  assert.equal(w.size, 0);
  assert.equal(w.bytes, 0);
});

test('after a batch that was not delivered nothing later is marked, even what was delivered', async () => {
  const w = new DeliveryWindow({ batches: 3, bytes: 1_000 });
  const marked: number[] = [];
  w.add(
    0,
    10,
    async () => true,
    (b) => marked.push(b),
  );
  w.add(
    1,
    10,
    async () => false,
    (b) => marked.push(b),
  );
  w.add(
    2,
    10,
    async () => true,
    (b) => marked.push(b),
  );
  assert.equal(await w.drain(), false);
  assert.deepEqual(marked, [0]);
  assert.equal(await w.room(10), true, 'the window is empty again');
});

test('batches decoded elsewhere are handed to their export in the order they were added', async () => {
  const w = new DeliveryWindow({ batches: 3, bytes: 1_000 });
  const decoded = [deferred<number>(), deferred<number>(), deferred<number>()];
  const handed: number[] = [];
  for (const i of [0, 1, 2]) {
    w.add(
      decoded[i]!.promise,
      10,
      async (b) => (handed.push(b), true),
      () => {},
    );
  }
  decoded[2]!.resolve(2);
  decoded[1]!.resolve(1);
  await tick();
  assert.deepEqual(handed, []);
  decoded[0]!.resolve(0);
  await w.drain();
  assert.deepEqual(handed, [0, 1, 2]);
});

test(
  'room waits for the oldest batch when the window is full by count or by bytes; one batch always ' + 'fits',
  async () => {
    const w = new DeliveryWindow({ batches: 2, bytes: 100 });
    assert.equal(w.isFull(500), false, 'an empty window takes a batch of any size');
    const first = deferred<boolean>();
    w.add(
      'a',
      60,
      () => first.promise,
      () => {},
    );
    assert.equal(w.isFull(30), false);
    assert.equal(w.isFull(50), true, '60 + 50 bytes is over 100');
    const second = deferred<boolean>();
    w.add(
      'b',
      30,
      () => second.promise,
      () => {},
    );
    assert.equal(w.isFull(1), true, 'two batches');
    assert.equal(w.unsettled, 2);
    let roomy = false;
    const waiting = w.room(1).then((ok) => (roomy = ok));
    second.resolve(true);
    await tick();
    assert.equal(roomy, false, 'the second batch delivered does not free room before the first');
    assert.equal(w.unsettled, 1);
    first.resolve(true);
    await waiting;
    assert.equal(roomy, true);
  },
);

test('an export that throws rejects room and drain', async () => {
  const w = new DeliveryWindow({ batches: 1, bytes: 1_000 });
  w.add(
    0,
    10,
    async () => {
      throw new Error('dead-letter store failed');
    },
    () => {},
  );
  await assert.rejects(w.room(10), /dead-letter store failed/);
  await assert.rejects(w.drain(), /dead-letter store failed/);
});

test("a receiver's budget lets a partition's first batch go always and a second only while it has room", async () => {
  const budget = new InFlightBudget({ batches: 3, bytes: 1_000 });
  const a = new DeliveryWindow({ batches: 2, bytes: 1_000, shared: budget });
  const b = new DeliveryWindow({ batches: 2, bytes: 1_000, shared: budget });
  const c = new DeliveryWindow({ batches: 2, bytes: 1_000, shared: budget });
  const held = [deferred<boolean>(), deferred<boolean>(), deferred<boolean>(), deferred<boolean>()];
  a.add(
    0,
    10,
    () => held[0]!.promise,
    () => {},
  );
  assert.equal(a.isFull(10), false, 'a second batch of a fits: the receiver holds 1 of 3');
  a.add(
    1,
    10,
    () => held[1]!.promise,
    () => {},
  );
  b.add(
    2,
    10,
    () => held[2]!.promise,
    () => {},
  );
  assert.equal(budget.batches, 3);
  assert.equal(b.isFull(10), true, 'the budget is spent: no second batch for b');
  assert.equal(c.isFull(10), false, "c's first batch goes regardless");
  c.add(
    3,
    10,
    () => held[3]!.promise,
    () => {},
  );
  assert.equal(budget.batches, 4);
  let roomForB = false;
  void b.room(10).then(() => (roomForB = true));
  held[0]!.resolve(true);
  await tick();
  assert.equal(roomForB, false, "another partition's batch done: b still waits for its own oldest");
  held[2]!.resolve(true);
  await b.room(10);
  assert.equal(b.size, 0);
  for (const h of [held[1]!, held[3]!]) h.resolve(true);
  await Promise.all([a.drain(), c.drain()]);
  assert.equal(budget.batches, 0);
  assert.equal(budget.bytes, 0);
});

test("the receiver's byte budget bounds a second batch too", () => {
  const budget = new InFlightBudget({ batches: 16, bytes: 100 });
  const w = new DeliveryWindow({ batches: 4, bytes: 1_000, shared: budget });
  w.add(
    0,
    60,
    () => new Promise<boolean>(() => {}),
    () => {},
  );
  assert.equal(w.isFull(40), false);
  assert.equal(w.isFull(41), true);
});
