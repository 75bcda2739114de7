/**
 * Child process of receiver-memory.bench.ts, so the receiver's RSS is measured alone (the emulator and
 * its backlog live in the parent). Plain JavaScript on the compiled package (dist/, `npm run build`): the
 * receiver is measured as it ships, without the TypeScript loader. Config comes as JSON in
 * RECEIVER_CONFIG; CONSUMER_DELAY_MS is how long each batch takes to "export". Every second it prints
 * `N <events drained>` and `M <process.memoryUsage() JSON, plus the process's CPU time and the count>`; at the end,
 * with `memory.limit_mib` set,
 * `G <the memory guard's pauses and forced collections>`. With IDLE=1 it only imports the same modules
 * and waits, for the baseline RSS. SIGTERM: graceful shutdown, then exit 0.
 *
 * RUNTIME=cli runs the receiver the way `otelcol-azure-eventhub run` does: in a worker thread with the
 * CLI's default heap ceiling, started by the CLI's own runInWorker (HEAP_LIMIT_MIB overrides the
 * ceiling). RUNTIME=embedded (the default) runs it on the main thread with Node's own heap sizing, as a
 * program that embeds the library does.
 */
import { EventEmitter } from 'node:events';
import { isMainThread, parentPort } from 'node:worker_threads';

const REPORT_INTERVAL_MS = 1_000;

if (isMainThread && process.env.RUNTIME === 'cli' && process.env.IDLE !== '1') {
  const { runInWorker } = await import('../../../dist/distribution/run-in-worker.js');
  const { DEFAULT_HEAP_LIMIT_MIB } = await import('../../../dist/distribution/heap-limit.js');
  const limit = Number(process.env.HEAP_LIMIT_MIB ?? DEFAULT_HEAP_LIMIT_MIB);
  process.exit(await runInWorker([], limit, { entry: new URL(import.meta.url) }));
}

const { createAzureEventHubReceiver } = await import('../../../dist/index.js');
// Signals: the process's own, or (in the CLI's worker) the ones the main thread forwards.
const signals = isMainThread ? process : new EventEmitter();
parentPort?.on('message', (message) => signals.emit(message.signal));

if (process.env.IDLE === '1') {
  process.stdout.write('READY\n');
  // Keep the process alive until the parent stops it.
  setInterval(() => undefined, 60_000);
  signals.on('SIGTERM', () => process.exit(0));
} else {
  const delayMs = Number(process.env.CONSUMER_DELAY_MS ?? 0);
  let drained = 0;
  /** @type {import('../../../src/pipeline/consumer.ts').SignalConsumer} */
  const consumer = {
    async consume(batch) {
      drained += batch.records.length;
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    },
  };
  const receiver = createAzureEventHubReceiver(JSON.parse(process.env.RECEIVER_CONFIG ?? '{}'), consumer);
  const report = setInterval(() => {
    const { user, system } = process.cpuUsage();
    process.stdout.write(
      `N ${drained}\nM ${JSON.stringify({ ...process.memoryUsage(), cpuMicros: user + system, drained })}\n`,
    );
  }, REPORT_INTERVAL_MS);
  const guardLine = () => {
    const m = receiver.stats().memory;
    if (m) process.stdout.write(`G ${JSON.stringify({ pauses: m.pauses, forcedGcs: m.forcedGcs })}\n`);
  };
  signals.on('SIGTERM', () => {
    clearInterval(report);
    guardLine();
    const forced = setTimeout(() => process.exit(143), 10_000);
    forced.unref();
    void receiver.shutdown().finally(() => {
      process.stdout.write(`N ${drained}\n`);
      process.exit(0);
    });
  });
  await receiver.start();
  process.stdout.write('READY\n');
}
