import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { format } from 'node:util';
import { guardedLogger, guardRheaLogs } from '../../../../src/backends/internal/rhea-log-guard.ts';

const require = createRequire(import.meta.url);
type Logger = ((...args: unknown[]) => void) & { log?: (...args: unknown[]) => void; enabled?: boolean };
const debug = require('debug') as { enable(namespaces: string): void; disable(): string };

describe('rhea log guard', () => {
  test("guards every logger of rhea's and rhea-promise's log modules, once", () => {
    guardRheaLogs();
    guardRheaLogs();
    for (const path of ['rhea/lib/log.js', 'rhea-promise/dist/lib/log.js']) {
      const log = require(path) as Record<string, unknown>;
      const names = Object.keys(log);
      assert.ok(names.length >= 6, `${path} still exports its loggers`);
      for (const name of names) {
        const inner = guardedLogger(log[name]);
        assert.ok(inner, `${path} ${name} is guarded`);
        assert.equal(guardedLogger(inner), undefined, `${path} ${name} is guarded once, not twice`);
      }
    }
  });

  test('a guarded logger stays silent while off and logs what it is given once enabled', () => {
    guardRheaLogs();
    const log = require('rhea/lib/log.js') as Record<string, Logger>;
    const inner = guardedLogger(log.frames) as Logger;
    const lines: string[] = [];
    const previousLog = inner.log;
    // debug hands its output function the arguments to format (its default one is util.format's).
    inner.log = (...args: unknown[]) => void lines.push(format(...args));
    const previous = debug.disable();
    try {
      log.frames!('[%s] off %s', 'c1', 'x');
      assert.deepEqual(lines, [], 'nothing is formatted or written while rhea:frames is off');
      debug.enable('rhea:frames');
      log.frames!('[%s] IN %s: %d', 'c1', 'transfer', 7);
      log.frames!('[%s] trailing', 'c2', undefined);
      assert.equal(lines.length, 2);
      assert.match(lines[0]!, /rhea:frames \[c1\] IN transfer: 7/);
      assert.match(lines[1]!, /rhea:frames \[c2\] trailing/);
    } finally {
      debug.disable();
      if (previous) debug.enable(previous);
      inner.log = previousLog;
    }
  });
});
