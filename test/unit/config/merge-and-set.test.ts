import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mergeConfig } from '../../../src/config/merge-config.ts';
import { applySetOverride, parseSetOverride } from '../../../src/config/set-override.ts';
import { parseComponentId } from '../../../src/config/component-id.ts';

describe('mergeConfig', () => {
  test('maps merge recursively, later scalars and lists replace earlier ones', () => {
    const a = {
      receivers: { r: { group: 'a', partition: '1' } },
      service: { pipelines: { logs: { exporters: ['x', 'y'] } } },
    };
    const b = { receivers: { r: { group: 'b' }, s: {} }, service: { pipelines: { logs: { exporters: ['z'] } } } };
    assert.deepEqual(mergeConfig(a, b), {
      receivers: { r: { group: 'b', partition: '1' }, s: {} },
      service: { pipelines: { logs: { exporters: ['z'] } } },
    });
    assert.deepEqual(a.receivers.r, { group: 'a', partition: '1' }, 'inputs untouched');
  });
});

describe('--set', () => {
  test('parses a dotted path and a YAML value; component ids keep their slash', () => {
    const o = parseSetOverride('receivers.azure_event_hub/audit.max_poll_events=500');
    assert.deepEqual(o, { path: ['receivers', 'azure_event_hub/audit', 'max_poll_events'], value: 500 });
    assert.deepEqual(parseSetOverride('service.pipelines.logs.exporters=[debug, file]'), {
      path: ['service', 'pipelines', 'logs', 'exporters'],
      value: ['debug', 'file'],
    });
    assert.deepEqual(parseSetOverride('a.b=x=y'), { path: ['a', 'b'], value: 'x=y' });
    assert.deepEqual(parseSetOverride('a.b='), { path: ['a', 'b'], value: '' });
  });

  test('rejects flags without = or with empty path segments', () => {
    assert.ok('error' in parseSetOverride('a.b'));
    assert.ok('error' in parseSetOverride('a..b=1'));
    assert.ok('error' in parseSetOverride('=1'));
  });

  test('applies over a config, creating maps and replacing scalars on the way', () => {
    const cfg = { receivers: { r: { group: 'a' } }, x: 1 };
    const out = applySetOverride(cfg, { path: ['receivers', 'r', 'ownership', 'strategy'], value: 'greedy' });
    assert.deepEqual(out, { receivers: { r: { group: 'a', ownership: { strategy: 'greedy' } } }, x: 1 });
    assert.deepEqual(applySetOverride(cfg, { path: ['x', 'y'], value: 2 }).x, { y: 2 });
    assert.deepEqual(cfg, { receivers: { r: { group: 'a' } }, x: 1 }, 'input untouched');
  });
});

describe('parseComponentId', () => {
  test('type and type/name', () => {
    assert.deepEqual(parseComponentId('azure_event_hub'), { type: 'azure_event_hub', name: '', id: 'azure_event_hub' });
    assert.deepEqual(parseComponentId('azure_event_hub/audit'), {
      type: 'azure_event_hub',
      name: 'audit',
      id: 'azure_event_hub/audit',
    });
  });
  test('rejects empty names and bad types', () => {
    assert.ok('error' in parseComponentId('azure_event_hub/'));
    assert.ok('error' in parseComponentId('1abc'));
    assert.ok('error' in parseComponentId('a b'));
  });
});
