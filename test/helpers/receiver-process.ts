/**
 * A receiver instance as a child process, for fleet tests that need a real crash (kill -9).
 * Config comes as JSON in RECEIVER_CONFIG. Every record the consumer accepts is printed as
 * `R <partition> <sequence number>` before `consume` resolves (stdout on a pipe is synchronous on
 * Linux), so the parent sees exactly what was acknowledged. Status events print as `S <json>`.
 * SIGTERM: graceful shutdown, then exit 0.
 */
import { createAzureEventHubReceiver } from '../../src/index.ts';
import type { SignalConsumer } from '../../src/pipeline/consumer.ts';

const config = JSON.parse(process.env.RECEIVER_CONFIG ?? '{}');
const consumer: SignalConsumer = {
  async consume(batch) {
    let out = '';
    for (const r of batch.records)
      out +=
        `R ${r.attributes['messaging.destination.partition.id']} ` +
        `${r.attributes['azure.eventhubs.message.sequence_number']}\n`;
    process.stdout.write(out);
  },
};
// The `R` lines name each record's event through the event metadata, off by default for the azure format.
const receiver = createAzureEventHubReceiver({ event_metadata: 'messaging', ...config }, consumer);
receiver.onStatus((s) => {
  const { type } = s;
  if (
    type === 'partitionOpened' ||
    type === 'partitionClosed' ||
    type === 'checkpointWritten' ||
    type === 'standby' ||
    type === 'hubReached'
  ) {
    process.stdout.write(`S ${JSON.stringify({ ...s, error: undefined, at: Date.now() })}\n`);
  } else if (type === 'foreignOwners') {
    const partitions = Object.fromEntries(s.partitions);
    process.stdout.write(`S ${JSON.stringify({ type, partitions, at: Date.now() })}\n`);
  }
});
let stopping = false;
process.on('SIGTERM', () => {
  if (stopping) process.exit(143);
  stopping = true;
  void receiver.shutdown().then(() => {
    process.stdout.write('S {"type":"stopped"}\n');
    process.exit(0);
  });
});
// Event-loop delay, for benches that load the machine (scale.bench.ts): a starved loop sends renewals late.
// Opt-in, so that other fleet tests see the same status lines as before.
if (process.env.RECEIVER_LOOP_DELAY_MS) {
  const { monitorEventLoopDelay } = await import('node:perf_hooks');
  const delay = monitorEventLoopDelay({ resolution: 20 });
  delay.enable();
  setInterval(() => {
    const ms = (ns: number): number => Math.round(ns / 1e6);
    process.stdout.write(
      `S ${JSON.stringify({ type: 'loopDelay', p99: ms(delay.percentile(99)), max: ms(delay.max), at: Date.now() })}\n`,
    );
    delay.reset();
  }, Number(process.env.RECEIVER_LOOP_DELAY_MS)).unref();
}
await receiver.start();
process.stdout.write('S {"type":"started"}\n');
