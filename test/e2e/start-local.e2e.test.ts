import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';

// `npm start` runs this script; here with a short --duration so it stops by itself.
test('npm start shows decoded Azure resource logs within 30 s, then stops cleanly', { timeout: 90_000 }, async (t) => {
  const started = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-local.ts', '--duration', '25', '--rate', '10'], {
    env: { ...process.env, METRICS_ADDRESS: '127.0.0.1:0', HEALTH_ENDPOINT: '127.0.0.1:0', DEBUG_VERBOSITY: 'normal' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  let firstRecordAt: number | undefined;
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    // A decoded record line from the debug exporter carries the event metadata attributes.
    if (firstRecordAt === undefined && /messaging\.system=eventhubs.*azure\.eventhubs\.message\.sequence_number=/.test(out)) firstRecordAt = Date.now();
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 0, out.slice(-2000));
  assert.ok(firstRecordAt !== undefined, `no decoded record was printed:\n${out.slice(-2000)}`);
  const seconds = (firstRecordAt - started) / 1000;
  t.diagnostic(`first decoded record after ${seconds.toFixed(1)} s`);
  assert.ok(seconds <= 30, `first decoded record after ${seconds} s`);
  assert.match(out, /cloud\.provider=azure/, 'records were decoded in the azure format');
  assert.match(out, /status: .* partitions owned 4\/4/);
  assert.match(out, /stopped cleanly/);
  assert.doesNotMatch(out, /SharedAccessKey=(?!\*\*\*)[^;\s]+/, 'no key printed');
  assert.doesNotMatch(out, /AccountKey=/, 'no storage key printed');
});

test('npm start with the metrics port taken names the variable that moves it, without a stack trace', { timeout: 90_000 }, async (t) => {
  const { createServer } = await import('node:net');
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => taken.close());
  const address = `127.0.0.1:${(taken.address() as { port: number }).port}`;
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/start-local.ts', '--duration', '30'], {
    env: { ...process.env, METRICS_ADDRESS: address, HEALTH_ENDPOINT: '127.0.0.1:0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 1, out.slice(-2000));
  assert.match(out, new RegExp(`${address.replace(/\./g, '\\.')} is already in use.*set METRICS_ADDRESS`));
  assert.doesNotMatch(out, /\n\s+at /, 'no stack trace');
});
