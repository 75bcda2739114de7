/**
 * Child process of receiver-memory.bench.ts, so the receiver's RSS is measured alone (the emulator and
 * its backlog live in the parent). Plain JavaScript on the compiled package (dist/, `npm run build`): the
 * receiver is measured as it ships, without the TypeScript loader. Config comes as JSON in
 * RECEIVER_CONFIG; CONSUMER_DELAY_MS is how long each batch takes to "export". Every second it prints
 * `N <events drained>` and `M <process.memoryUsage() JSON>`. With IDLE=1 it only imports the same modules
 * and waits, for the baseline RSS. SIGTERM: graceful shutdown, then exit 0.
 */
import { createAzureEventHubReceiver } from '../../../dist/index.js';

const REPORT_INTERVAL_MS = 1_000;

if (process.env.IDLE === '1') {
  process.stdout.write('READY\n');
  // Keep the process alive until the parent stops it.
  setInterval(() => undefined, 60_000);
  process.on('SIGTERM', () => process.exit(0));
} else {
  const delayMs = Number(process.env.CONSUMER_DELAY_MS ?? 0);
  let drained = 0;
  /** @type {import('../../../src/pipeline/consumer.ts').LogsConsumer} */
  const consumer = {
    async consume(batch) {
      drained += batch.records.length;
      if (delayMs > 0) await new Promise((r) => setTimeout(r, delayMs));
    },
  };
  const receiver = createAzureEventHubReceiver(JSON.parse(process.env.RECEIVER_CONFIG ?? '{}'), consumer);
  const report = setInterval(() => process.stdout.write(`N ${drained}\nM ${JSON.stringify(process.memoryUsage())}\n`), REPORT_INTERVAL_MS);
  process.on('SIGTERM', () => {
    clearInterval(report);
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
