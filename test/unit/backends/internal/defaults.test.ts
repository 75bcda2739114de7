import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { resolveRetry, resolveWindow } from '../../../../src/backends/internal/defaults.ts';
import { ownBodyBytes, toBodyBytes } from '../../../../src/backends/internal/body-bytes.ts';

describe('resolveWindow', () => {
  test('defaults to 300 with a third per batch, caps the batch at the prefetch', () => {
    assert.deepEqual(resolveWindow(undefined, undefined), { prefetch: 300, batch: 100 });
    assert.deepEqual(resolveWindow(10, undefined), { prefetch: 10, batch: 4 });
    assert.deepEqual(resolveWindow(10, 50), { prefetch: 10, batch: 10 });
    assert.deepEqual(resolveWindow(0, 0), { prefetch: 1, batch: 1 });
  });
});

describe('resolveRetry', () => {
  test('defaults: 3 retries, 1 s doubling to 30 s, 60 s per operation', () => {
    assert.deepEqual(resolveRetry(undefined), {
      maxRetries: 3,
      retryDelayMs: 500,
      maxRetryDelayMs: 30000,
      timeoutMs: 60000,
    });
  });
});

describe('toBodyBytes', () => {
  test('keeps bytes, unwraps data sections, encodes values', () => {
    const buf = Buffer.from([1, 2, 3]);
    assert.equal(toBodyBytes(buf), buf);
    assert.deepEqual([...toBodyBytes({ typecode: 0x75, content: buf })], [1, 2, 3]);
    assert.deepEqual([...toBodyBytes({ typecode: 0x75, content: [Buffer.from([1]), Buffer.from([2])] })], [1, 2]);
    assert.equal(Buffer.from(toBodyBytes('hé')).toString('utf8'), 'hé');
    assert.equal(Buffer.from(toBodyBytes({ a: 1 })).toString('utf8'), '{"a":1}');
    assert.equal(toBodyBytes(undefined).length, 0);
  });
});

describe('ownBodyBytes', () => {
  test('a body that is a view into a larger read gets memory of its own; a whole buffer is kept', () => {
    const read = Buffer.alloc(64 * 1024, 7);
    read.write('{"records":[]}', 1000);
    const view = read.subarray(1000, 1014);
    const own = ownBodyBytes(view);
    assert.notEqual(own.buffer, read.buffer, 'no longer keeps the 64 KiB read alive');
    assert.ok(own.buffer.byteLength < read.buffer.byteLength);
    assert.equal(Buffer.from(own).toString('utf8'), '{"records":[]}');
    read.fill(0);
    assert.equal(Buffer.from(own).toString('utf8'), '{"records":[]}', 'a copy, not a view');

    const whole = new Uint8Array(new ArrayBuffer(16));
    assert.equal(ownBodyBytes(whole), whole);
  });

  test("a view into a buffer no larger than Node's pool slab is kept: it is a copy already", () => {
    const copied = Buffer.from('{"records":[]}');
    assert.ok(copied.buffer.byteLength <= Buffer.poolSize && copied.byteLength < copied.buffer.byteLength);
    assert.equal(ownBodyBytes(copied), copied, 'not copied twice');
    const read = Buffer.alloc(Buffer.poolSize + 1);
    assert.notEqual(ownBodyBytes(read.subarray(0, 10)).buffer, read.buffer, 'a larger read is still copied out');
  });
});
