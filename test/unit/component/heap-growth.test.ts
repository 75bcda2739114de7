import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { hasOwnHeapGrowth, holdHeapGrowth } from '../../../src/component/heap-growth.ts';

test("the first holder sets the factor, the last release restores V8's own; releases are idempotent", () => {
  const flags: string[] = [];
  const options = { setFlags: (f: string) => void flags.push(f), nodeFlags: [] };
  const a = holdHeapGrowth(50, options)!;
  const b = holdHeapGrowth(50, options)!;
  assert.deepEqual(flags, ['--heap-growing-percent=50']);
  a();
  a();
  assert.deepEqual(flags, ['--heap-growing-percent=50'], 'b still holds it');
  b();
  assert.deepEqual(flags, ['--heap-growing-percent=50', '--heap-growing-percent=0']);
});

test('a process started with its own --heap-growing-percent keeps it', () => {
  const flags: string[] = [];
  assert.equal(
    holdHeapGrowth(50, { setFlags: (f) => void flags.push(f), nodeFlags: ['--heap-growing-percent=20'] }),
    undefined,
  );
  assert.deepEqual(flags, []);
  assert.equal(hasOwnHeapGrowth(['--max-old-space-size=512 --heap_growing_percent=10']), true);
  assert.equal(hasOwnHeapGrowth(['--max-old-space-size=512']), false);
});

test("this Node's V8 knows --heap-growing-percent (the guard relies on it; fails if a Node release drops it)", () => {
  const out = spawnSync(process.execPath, ['--v8-options'], { encoding: 'utf8' });
  assert.match(out.stdout, /--heap-growing-percent \(specifies heap growing factor/);
});
