import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HealthState } from '../../../src/telemetry/health-state.ts';
import { startHealthCheckServer } from '../../../src/telemetry/health-check-server.ts';

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

  state.update('azure_event_hub', { type: 'hubUnreachable', error: new Error('auth failed for SharedAccessKey=c2VjcmV0;x') });
  now += 1_000;
  r = await get('/health');
  assert.equal(r.status, 503);
  const body = JSON.parse(r.body);
  assert.equal(body.status, 'unhealthy');
  assert.equal(body.receivers.azure_event_hub.reason, 'hubUnreachable');
  assert.ok(!r.body.includes('c2VjcmV0'), r.body);
});
