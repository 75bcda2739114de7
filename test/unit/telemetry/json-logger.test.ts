import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createJsonLogger } from '../../../src/telemetry/json-logger.ts';

function capture(options: Parameters<typeof createJsonLogger>[0] = {}) {
  const lines: string[] = [];
  const logger = createJsonLogger({
    now: () => Date.UTC(2026, 0, 2, 3, 4, 5, 678),
    write: (l) => lines.push(l),
    ...options,
  });
  return { logger, lines };
}

test('one JSON object per line with level, ts, msg, then bound and call fields', () => {
  const { logger, lines } = capture();
  logger.child({ component: 'receivers/azure_event_hub' }).info('partition owned', { partition: '3' });
  assert.equal(lines.length, 1);
  assert.ok(lines[0]!.endsWith('\n'));
  assert.deepEqual(JSON.parse(lines[0]!), {
    level: 'info',
    ts: '2026-01-02T03:04:05.678Z',
    msg: 'partition owned',
    component: 'receivers/azure_event_hub',
    partition: '3',
  });
  assert.deepEqual(Object.keys(JSON.parse(lines[0]!)).slice(0, 3), ['level', 'ts', 'msg']);
});

test('lines below the level are dropped', () => {
  const { logger, lines } = capture({ level: 'warn' });
  logger.debug('d');
  logger.info('i');
  logger.warn('w');
  logger.error('e');
  assert.deepEqual(
    lines.map((l) => JSON.parse(l).level),
    ['warn', 'error'],
  );
});

test('secrets in messages, fields and errors are redacted', () => {
  const { logger, lines } = capture();
  const conn = 'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=dG9wLXNlY3JldA==';
  logger.error(`connect failed for ${conn}`, {
    connection: conn,
    error: new Error(`bad AccountKey=YWNjb3VudC1rZXk=;x`),
    url: 'https://a.blob.core.windows.net/c?sv=1&sig=c2ln',
  });
  const text = lines.join('');
  for (const secret of ['dG9wLXNlY3JldA==', 'YWNjb3VudC1rZXk=', 'c2ln'])
    assert.ok(!text.includes(secret), `leaked ${secret}: ${text}`);
  const obj = JSON.parse(lines[0]!);
  assert.equal(obj.connection, 'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=***');
  assert.match(obj.error, /^Error: bad AccountKey=\*\*\*/);
});

test('console encoding writes readable lines; cycles and bigints do not throw', () => {
  const { logger, lines } = capture({ encoding: 'console' });
  const cyclic: Record<string, unknown> = { n: 1n };
  cyclic.self = cyclic;
  logger.info('hello', { cyclic });
  assert.match(lines[0]!, /^2026-01-02T03:04:05\.678Z\tinfo\thello\t\{"cyclic":\{"n":"1","self":"\[circular\]"\}\}\n$/);
});
