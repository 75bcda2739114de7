import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HealthState } from '../../../src/telemetry/health-state.ts';
import { startHealthCheckServer } from '../../../src/extensions/health-check/health-check-server.ts';

test('answers 503 until ready, then 200, on / and /health; 404 elsewhere; errors redacted', async (t) => {
  let now = 0;
  const state = new HealthState({ unhealthyAfterMs: 1_000, now: () => now });
  state.register('azure_event_hub');
  const server = await startHealthCheckServer(state, { endpoint: '127.0.0.1:0', path: '/probe' });
  t.after(() => server.close());
  const get = async (path: string) => {
    const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { signal: AbortSignal.timeout(5_000) });
    return { status: res.status, body: await res.text() };
  };

  let r = await get('/probe');
  assert.equal(r.status, 503);
  assert.equal(JSON.parse(r.body).receivers.azure_event_hub.reason, 'hubNotReached');
  state.update('azure_event_hub', { type: 'partitionOpened', partitionId: '1' });
  assert.equal((await get('/probe')).status, 200);
  assert.equal((await get('/health')).status, 200);
  assert.equal((await get('/other')).status, 404);

  state.update('azure_event_hub', {
    type: 'hubUnreachable',
    error: new Error('auth failed for SharedAccessKey=c2VjcmV0;x'),
  });
  now += 1_000;
  r = await get('/health');
  assert.equal(r.status, 503);
  const body = JSON.parse(r.body);
  assert.equal(body.status, 'unhealthy');
  assert.equal(body.receivers.azure_event_hub.reason, 'hubUnreachable');
  assert.ok(!r.body.includes('c2VjcmV0'), r.body);
});

test(
  'liveness answers on /livez apart from readiness: an unhealthy receiver is still live; a wedged one is ' + 'not',
  async (t) => {
    const state = new HealthState({ unhealthyAfterMs: 0 });
    state.update('r', { type: 'partitionOpened', partitionId: '0' });
    state.update('r', { type: 'storageFailing', error: new Error('storage down') });
    let report: { status: 'live' | 'wedged'; wedged?: Record<string, Record<string, number>> } = { status: 'live' };
    const server = await startHealthCheckServer(state, { endpoint: '127.0.0.1:0', liveness: () => report });
    t.after(() => server.close());
    const get = async (path: string) => {
      const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { signal: AbortSignal.timeout(5_000) });
      return { status: res.status, body: JSON.parse(await res.text()) };
    };
    assert.equal((await get('/readyz')).status, 503, 'storage failing: not ready');
    assert.deepEqual(
      await get('/livez'),
      { status: 200, body: { status: 'live' } },
      'but alive: a restart would not bring storage back',
    );
    report = { status: 'wedged', wedged: { r: { '0': 130 } } };
    assert.deepEqual(await get('/livez'), { status: 503, body: report });
  },
);
