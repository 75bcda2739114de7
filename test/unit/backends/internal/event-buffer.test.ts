import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { EventBuffer } from '../../../../src/backends/internal/event-buffer.ts';
import { BackendError, OwnershipLostError } from '../../../../src/backends/consumer.ts';
import type { ReceivedEvent } from '../../../../src/backends/consumer.ts';
import { exposedGc } from '../../../../src/component/exposed-gc.ts';

function ev(n: number): ReceivedEvent {
  return { body: new Uint8Array([n]), sequenceNumber: n, offset: String(n * 10), enqueuedTime: new Date(0) };
}
const seqs = (events: ReceivedEvent[]): number[] => events.map((e) => e.sequenceNumber);
const live = (): AbortSignal => new AbortController().signal;

// The buffer's wait timers are unref()ed (they must not keep a process alive); keep this one alive.
const keepAlive = setInterval(() => {}, 1000);
after(() => clearInterval(keepAlive));

describe('EventBuffer', () => {
  test('returns buffered events at once, at most max, in order', async () => {
    const b = new EventBuffer();
    b.pushAll([ev(0), ev(1), ev(2)]);
    assert.deepEqual(seqs(await b.receive(2, 1000, live())), [0, 1]);
    assert.deepEqual(seqs(await b.receive(5, 1000, live())), [2]);
    assert.equal(b.length, 0);
  });

  test('resolves [] after the wait when idle', async () => {
    const b = new EventBuffer();
    const started = Date.now();
    assert.deepEqual(await b.receive(10, 30, live()), []);
    assert.ok(Date.now() - started >= 25);
  });

  test('a waiting receive gets events pushed in the same tick as one batch', async () => {
    const b = new EventBuffer();
    const p = b.receive(10, 5000, live());
    b.push(ev(0));
    b.push(ev(1));
    b.push(ev(2));
    assert.deepEqual(seqs(await p), [0, 1, 2]);
  });

  test('rejects promptly with the signal reason on abort, and when already aborted', async () => {
    const b = new EventBuffer();
    const ac = new AbortController();
    const p = b.receive(10, 60_000, ac.signal);
    const reason = new Error('stop');
    ac.abort(reason);
    await assert.rejects(p, (e) => e === reason);
    await assert.rejects(b.receive(1, 10, ac.signal), (e) => e === reason);
    // An aborted wait does not leave a waiter behind.
    b.push(ev(0));
    assert.deepEqual(seqs(await b.receive(1, 10, live())), [0]);
  });

  test('fail rejects the waiting and every later receive, dropping buffered events', async () => {
    const b = new EventBuffer();
    const p = b.receive(10, 60_000, live());
    const err = new OwnershipLostError('taken');
    b.fail(err);
    await assert.rejects(p, (e) => e === err);
    b.push(ev(1));
    await assert.rejects(b.receive(1, 10, live()), (e) => e === err);
    assert.equal(b.length, 0);
  });

  test('close resolves a waiter with [] and makes later receives reject as closed', async () => {
    const b = new EventBuffer();
    const p = b.receive(10, 60_000, live());
    b.close();
    assert.deepEqual(await p, []);
    await assert.rejects(b.receive(1, 10, live()), (e) => e instanceof BackendError && e.code === 'ReaderClosed');
  });

  test('whenEmpty resolves only after every event was taken (the polling hand-off)', async () => {
    const b = new EventBuffer();
    b.pushAll([ev(0), ev(1), ev(2)]);
    let drained = false;
    const done = b.whenEmpty().then(() => {
      drained = true;
    });
    await b.receive(2, 10, live());
    await new Promise((r) => setImmediate(r));
    assert.equal(drained, false);
    await b.receive(2, 10, live());
    await done;
    assert.equal(drained, true);
  });

  test('whenEmpty resolves on fail and close', async () => {
    const b = new EventBuffer();
    b.push(ev(0));
    const w = b.whenEmpty();
    b.fail(new Error('x'));
    await w;
    const c = new EventBuffer();
    c.push(ev(0));
    const w2 = c.whenEmpty();
    c.close();
    await w2;
  });

  test('onTaken runs after each take (credit top-up hook)', async () => {
    const b = new EventBuffer();
    let calls = 0;
    b.onTaken = () => calls++;
    b.pushAll([ev(0), ev(1)]);
    await b.receive(1, 10, live());
    await b.receive(1, 10, live());
    assert.equal(calls, 2);
  });

  test('rejects a second concurrent receive', async () => {
    const b = new EventBuffer();
    const ac = new AbortController();
    const p = b.receive(1, 60_000, ac.signal);
    await assert.rejects(b.receive(1, 10, live()), /already pending/);
    ac.abort();
    await assert.rejects(p);
  });

  test('holds no event it handed out: its slots are reused, not kept (nor the array rebuilt)', async () => {
    const gc = exposedGc();
    assert.ok(gc, 'a full collection is needed to see what the buffer still holds');
    const b = new EventBuffer();
    const refs: WeakRef<ReceivedEvent>[] = [];
    // A first fill, taken partly, then entirely; a second, smaller fill reuses the first's slots.
    const fill = (from: number, count: number) => {
      for (let i = from; i < from + count; i++) {
        const e = ev(i);
        refs.push(new WeakRef(e));
        b.push(e);
      }
    };
    fill(0, 300);
    assert.deepEqual(
      seqs(await b.receive(100, 10, live())),
      Array.from({ length: 100 }, (_, i) => i),
    );
    assert.equal((await b.receive(1000, 10, live())).length, 200);
    fill(300, 50);
    const kept = await b.receive(20, 10, live());
    assert.deepEqual(
      seqs(kept),
      Array.from({ length: 20 }, (_, i) => 300 + i),
    );
    await new Promise((resolve) => setImmediate(resolve));
    gc();
    const alive = refs.flatMap((r) => {
      const e = r.deref();
      return e === undefined ? [] : [e.sequenceNumber];
    });
    // Alive: the 20 this test still holds and the 30 still buffered; nothing the buffer handed out before.
    assert.deepEqual(
      alive,
      Array.from({ length: 50 }, (_, i) => 300 + i),
    );
    assert.deepEqual(
      seqs(await b.receive(1000, 10, live())),
      Array.from({ length: 30 }, (_, i) => 320 + i),
    );
  });

  test('keeps order across many pushes and takes (compaction)', async () => {
    const b = new EventBuffer();
    const out: number[] = [];
    let n = 0;
    for (let round = 0; round < 50; round++) {
      for (let i = 0; i < 100; i++) b.push(ev(n++));
      out.push(...seqs(await b.receive(70, 10, live())));
    }
    while (b.length) out.push(...seqs(await b.receive(1000, 10, live())));
    assert.deepEqual(
      out,
      Array.from({ length: n }, (_, i) => i),
    );
  });
});
