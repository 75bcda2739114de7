import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { waitUntil } from './cli-process.ts';
import { siblingModule } from '../helpers/sibling-module.ts';

/**
 * The script the other tests run: scripts/start-local.ts through tsx from the sources, the compiled
 * .test-build/scripts/start-local.js when the tests run compiled (`npm test`): tsx costs over 2 s of CPU
 * per process. The first test runs it as `npm start` does, through tsx, in every case.
 */
const SCRIPT = siblingModule(import.meta.url, '../../scripts/start-local');
const script = (...args: string[]) => [...SCRIPT.execArgv, SCRIPT.path, ...args];

// `npm start` runs this script through tsx; here with a short --duration so it stops by itself (after two
// status lines: one every 5 s).
test('npm start shows decoded Azure resource logs within 30 s, then stops cleanly', { timeout: 90_000 }, async (t) => {
  const started = Date.now();
  const child = spawn(
    process.execPath,
    ['--import', 'tsx', 'scripts/start-local.ts', '--duration', '15', '--rate', '10'],
    {
      env: {
        ...process.env,
        METRICS_ADDRESS: '127.0.0.1:0',
        HEALTH_ENDPOINT: '127.0.0.1:0',
        DEBUG_VERBOSITY: 'normal',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  let firstRecordAt: number | undefined;
  const onData = (chunk: Buffer) => {
    out += chunk.toString();
    // A decoded record line from the debug exporter carries the decoded attributes.
    if (
      firstRecordAt === undefined &&
      /azure\.category=.*cloud\.provider=azure|cloud\.provider=azure.*azure\.category=/.test(out)
    )
      firstRecordAt = Date.now();
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
  // Without --signals, the status line is as it has always been: records/s only, no count per signal.
  assert.match(out, /status: [\d.]+ records\/s \| events sent \d+, received \d+ \|/);
  assert.match(out, /stopped cleanly/);
  assert.doesNotMatch(out, /SharedAccessKey=(?!\*\*\*)[^;\s]+/, 'no key printed');
  assert.doesNotMatch(out, /AccountKey=/, 'no storage key printed');
});

test('npm start with the metrics port taken names the variable that moves it, without a stack trace', {
  timeout: 90_000,
}, async (t) => {
  const { createServer } = await import('node:net');
  const taken = createServer();
  await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
  t.after(() => taken.close());
  const address = `127.0.0.1:${(taken.address() as { port: number }).port}`;
  const child = spawn(process.execPath, script('--duration', '30'), {
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

const SIGNALS_TEST =
  'npm start -- --signals logs,metrics,traces: one receiver feeds logs, metrics and traces pipelines to the ' +
  'debug exporter';

test(SIGNALS_TEST, { timeout: 150_000 }, async (t) => {
  const flags = ['--signals', 'logs,metrics,traces', '--duration', '100', '--rate', '12', '--verbosity', 'basic'];
  const child = spawn(process.execPath, script(...flags), {
    env: { ...process.env, METRICS_ADDRESS: '127.0.0.1:0', HEALTH_ENDPOINT: '127.0.0.1:0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  // The waits below poll on unref'd timers: an early exit must end them, not leave an empty event loop.
  const early = exited.then((code) => Promise.reject(new Error(`npm start exited (${code}):\n${out.slice(-3000)}`)));
  early.catch(() => undefined);
  const address = async () => /metrics:\s+(http:\/\/\S+\/metrics)/.exec(out)?.[1];
  const url = await Promise.race([early, waitUntil(address, 60_000, 'the self-metrics address')]);
  // Every signal accepted by the one receiver and sent by the debug exporter of its own pipeline.
  const wanted = [
    /^otelcol_receiver_accepted_log_records_total\{[^}]*receiver="azure_event_hub"[^}]*\} [1-9]/m,
    /^otelcol_receiver_accepted_metric_points_total\{[^}]*receiver="azure_event_hub"[^}]*\} [1-9]/m,
    /^otelcol_receiver_accepted_spans_total\{[^}]*receiver="azure_event_hub"[^}]*\} [1-9]/m,
    /^otelcol_exporter_sent_log_records_total\{[^}]*exporter="debug"[^}]*\} [1-9]/m,
    /^otelcol_exporter_sent_metric_points_total\{[^}]*exporter="debug"[^}]*\} [1-9]/m,
    /^otelcol_exporter_sent_spans_total\{[^}]*exporter="debug"[^}]*\} [1-9]/m,
  ];
  let text = '';
  try {
    await Promise.race([
      early,
      waitUntil(
        async () => {
          text = await (await fetch(url, { signal: AbortSignal.timeout(5_000) })).text();
          return wanted.every((re) => re.test(text)) ? true : undefined;
        },
        90_000,
        'every signal accepted and exported',
      ),
    ]);
  } catch (error) {
    const missing = wanted.filter((re) => !re.test(text)).join(', ');
    const counters = text
      .split('\n')
      .filter((l) => /^otelcol_(receiver_accepted|exporter_sent)/.test(l))
      .join('\n');
    assert.fail(`${(error as Error).message}\nmissing: ${missing}\n${counters}\n${out.slice(-3000)}`);
  }
  const perSignal = new RegExp(
    String.raw`status: [\d.]+ records\/s, [\d.]+ points\/s, [\d.]+ spans\/s \| events sent \d+ \(logs` +
      String.raw` [1-9]\d*, metrics [1-9]\d*, traces [1-9]\d*\)`,
  );
  const statusLine = async () => (perSignal.test(out) ? true : undefined);
  await Promise.race([early, waitUntil(statusLine, 30_000, 'a status line with events sent per signal')]);
  child.kill('SIGINT');
  assert.equal(await exited, 0, out.slice(-2000));
  assert.match(out, /collector: config\/local\.yaml with pipelines logs, metrics, traces/);
  assert.match(out, /stopped cleanly/);
  assert.doesNotMatch(out, /SharedAccessKey=(?!\*\*\*)[^;\s]+/, 'no key printed');
  assert.doesNotMatch(out, /AccountKey=/, 'no storage key printed');
});

test('npm start -- --signals with an unknown signal says which ones exist and starts nothing', {
  timeout: 60_000,
}, async (t) => {
  const child = spawn(process.execPath, script('--signals', 'logs,profiles'), {
    env: process.env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (out += c.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  assert.equal(code, 2, out);
  assert.match(out, /--signals: unknown signal "profiles"; use a comma-separated list of logs, metrics, traces/);
  assert.doesNotMatch(out, /starting Azurite/);
});
