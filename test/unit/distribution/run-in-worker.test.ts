import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { forwardedSignals, runInWorker } from '../../../src/distribution/run-in-worker.ts';
import {
  chooseHeapLimit,
  DEFAULT_HEAP_LIMIT_MIB,
  HEAP_LIMIT_ENV,
  WORKER_YOUNG_GENERATION_MIB,
} from '../../../src/distribution/heap-limit.ts';
import { UsageError } from '../../../src/distribution/usage-error.ts';

const PROBE = pathToFileURL(join(import.meta.dirname, '../../fixtures/distribution/probe-worker.mjs'));
const MIB = 1024 * 1024;

function resultFile(): string {
  return join(mkdtempSync(join(tmpdir(), 'run-in-worker-')), 'result');
}

describe('chooseHeapLimit', () => {
  test('runs in a worker with the default ceiling when nothing is set', () => {
    assert.deepEqual(chooseHeapLimit({}, []), { kind: 'worker', mib: DEFAULT_HEAP_LIMIT_MIB });
    assert.deepEqual(chooseHeapLimit({ [HEAP_LIMIT_ENV]: ' ' }, []), { kind: 'worker', mib: DEFAULT_HEAP_LIMIT_MIB });
  });

  test('takes the ceiling from the environment; 0 keeps the main thread', () => {
    assert.deepEqual(chooseHeapLimit({ [HEAP_LIMIT_ENV]: '384' }, []), { kind: 'worker', mib: 384 });
    assert.deepEqual(chooseHeapLimit({ [HEAP_LIMIT_ENV]: '0' }, []), { kind: 'main', reason: 'disabled' });
  });

  test('a --max-old-space-size the user gave Node wins, on the command line or in NODE_OPTIONS', () => {
    assert.deepEqual(chooseHeapLimit({}, ['--max-old-space-size=128']), { kind: 'main', reason: 'node-flag' });
    assert.deepEqual(chooseHeapLimit({ NODE_OPTIONS: '--enable-source-maps --max_old_space_size=200' }, []), {
      kind: 'main',
      reason: 'node-flag',
    });
    assert.deepEqual(chooseHeapLimit({ NODE_OPTIONS: '--max-semi-space-size=4', [HEAP_LIMIT_ENV]: '512' }, []), {
      kind: 'worker',
      mib: 512,
    });
  });

  test('refuses values that are not a whole number of MiB, naming the variable and the value', () => {
    for (const bad of ['abc', '1.5', '-1', '32', '1e3']) {
      assert.throws(
        () => chooseHeapLimit({ [HEAP_LIMIT_ENV]: bad }, []),
        (error: Error) => {
          assert.ok(error instanceof UsageError);
          assert.match(
            error.message,
            new RegExp(`${HEAP_LIMIT_ENV} must be a whole number of MiB.*got '${bad.replace('.', '\\.')}'`),
          );
          return true;
        },
      );
    }
  });
});

describe('runInWorker', () => {
  test('the worker runs under the heap ceiling it was given', async () => {
    const file = resultFile();
    const code = await runInWorker(['heap', file], 160, { entry: PROBE, writeErr: () => {} });
    assert.equal(code, 0);
    const limit = Number(readFileSync(file, 'utf8'));
    // V8's limit is the old generation plus the young generation (capped too: V8 would give 48 MiB), far
    // below the main thread's (sized from the machine's memory).
    assert.ok(limit >= 160 * MIB, `heap_size_limit ${limit / MIB} MiB`);
    assert.ok(limit <= (160 + WORKER_YOUNG_GENERATION_MIB) * MIB, `heap_size_limit ${limit / MIB} MiB`);
  });

  test('SIGTERM and SIGINT reach the worker, and its exit code is returned', async () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      const file = resultFile();
      const signals = new EventEmitter();
      const done = runInWorker(['signal', file], 128, { entry: PROBE, signals, writeErr: () => {} });
      // Sent at once: the worker's port queues it until the probe listens.
      signals.emit(signal, signal);
      assert.equal(await done, 42);
      assert.equal(readFileSync(file, 'utf8'), signal);
      assert.equal(signals.listenerCount('SIGTERM'), 0, 'listeners removed once the worker exited');
    }
  });

  test('running out of heap ends with exit 1 and says which limit to raise', async () => {
    const lines: string[] = [];
    const code = await runInWorker(['oom', resultFile()], 64, { entry: PROBE, writeErr: (l) => lines.push(l) });
    assert.equal(code, 1);
    assert.equal(lines.length, 1);
    const line = JSON.parse(lines[0]!) as { level: string; msg: string };
    assert.equal(line.level, 'error');
    assert.match(line.msg, new RegExp(`heap reached its limit of 64 MiB; raise ${HEAP_LIMIT_ENV}`));
  });

  test('from the sources, the real CLI runs in the worker (tsx loaded there) and returns its exit code', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'run-in-worker-')), 'missing.yaml');
    const lines: string[] = [];
    const code = await runInWorker(['run', '--config', missing], 256, { writeErr: (l) => lines.push(l) });
    assert.equal(code, 2, `a config file that does not exist is a usage error, not a crash: ${lines.join('\n')}`);
    assert.equal(lines.length, 0);
  });

  test(
    'in the worker, a forwarded signal reaches its listener; one that comes before any listener ends the thread ' +
      'with 130 or 143',
    () => {
      const port = new EventEmitter();
      const exits: number[] = [];
      const signals = forwardedSignals(port, (code) => exits.push(code));
      port.emit('message', { signal: 'SIGINT' });
      port.emit('message', { signal: 'SIGTERM' });
      assert.deepEqual(exits, [130, 143], 'no handler yet: the default signal exit');
      const heard: string[] = [];
      signals.on('SIGTERM', (s: string) => heard.push(s));
      port.emit('message', { signal: 'SIGTERM' });
      port.emit('message', { signal: 'SIGHUP' });
      port.emit('message', undefined);
      assert.deepEqual(heard, ['SIGTERM']);
      assert.deepEqual(exits, [130, 143], 'a handled signal does not exit');
    },
  );
});
