import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { parseDemoSignals, withDemoSignals } from '../../../scripts/local/demo-signals.ts';

test('--signals: a comma-separated list of logs, metrics, traces, in any order; anything else is refused', () => {
  assert.deepEqual(parseDemoSignals('logs'), ['logs']);
  assert.deepEqual(parseDemoSignals('traces, logs,metrics'), ['logs', 'metrics', 'traces']);
  assert.deepEqual(parseDemoSignals('metrics'), ['metrics']);
  assert.throws(() => parseDemoSignals('logs,profiles'), /unknown signal "profiles".*logs, metrics, traces/);
  assert.throws(() => parseDemoSignals(' , '), /at least one/);
});

test(
  'the demo config gets a pipeline per signal on the same receiver and exporters; the others are ' + 'removed',
  async () => {
    const raw = parse(await readFile(new URL('../../../config/local.yaml', import.meta.url), 'utf8')) as Record<
      string,
      any
    >;
    const before = structuredClone(raw);
    const all = withDemoSignals(raw, ['logs', 'metrics', 'traces']) as Record<string, any>;
    assert.deepEqual(raw, before, 'input unchanged');
    assert.deepEqual(all.service.pipelines, {
      logs: { receivers: ['azure_event_hub'], exporters: ['debug'] },
      metrics: { receivers: ['azure_event_hub'], exporters: ['debug'] },
      traces: { receivers: ['azure_event_hub'], exporters: ['debug'] },
    });
    assert.deepEqual(all.receivers, raw.receivers, 'one receiver, unchanged');
    const tracesOnly = withDemoSignals(raw, ['traces']) as Record<string, any>;
    assert.deepEqual(Object.keys(tracesOnly.service.pipelines), ['traces']);
    // A pipeline the config already has is kept; processors are copied with the rest.
    const own = {
      service: {
        pipelines: {
          logs: { receivers: ['r'], processors: ['batch'], exporters: ['e'] },
          metrics: { receivers: ['m'], exporters: ['x'] },
        },
      },
    };
    assert.deepEqual((withDemoSignals(own, ['logs', 'metrics', 'traces']) as any).service.pipelines, {
      logs: { receivers: ['r'], processors: ['batch'], exporters: ['e'] },
      metrics: { receivers: ['m'], exporters: ['x'] },
      traces: { receivers: ['r'], processors: ['batch'], exporters: ['e'] },
    });
  },
);
