import type { TestContext } from 'node:test';
import {
  createAzureEventHubReceiver,
  type AzureEventHubReceiver,
  type ReceiverConfigInput,
} from '../../../src/index.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import type { SignalConsumer } from '../../../src/pipeline/consumer.ts';
import { waitUntil } from '../../helpers/wait-until.ts';

export const BACKENDS = ['polling', 'streaming'] as const;

/** A receiver stopped in the test's `after`, with fast retry settings. */
export function startReceiver(
  t: TestContext,
  config: ReceiverConfigInput,
  consumer: SignalConsumer = new InMemorySignalConsumer(),
): AzureEventHubReceiver {
  const receiver = createAzureEventHubReceiver(
    {
      poll_rate: 0.2,
      max_poll_events: 200,
      retry_on_failure: { initial_interval: '20ms', max_interval: '200ms', max_elapsed_time: '30s' },
      ...config,
    },
    consumer,
  );
  t.after(() => receiver.shutdown());
  return receiver;
}

export const SEQ = 'azure.eventhubs.message.sequence_number';
export const PID = 'messaging.destination.partition.id';

/** Sequence numbers per partition, in export order. */
export function byPartition(records: readonly ReadableLogRecord[]): Map<string, number[]> {
  const map = new Map<string, number[]>();
  for (const r of records) {
    const pid = String(r.attributes[PID]);
    const list = map.get(pid) ?? [];
    list.push(Number(r.attributes[SEQ]));
    map.set(pid, list);
  }
  return map;
}

/** Preloads `perPartition` small events into every partition. */
export function preload(
  emulator: { append(hub: string, pid: string, events: { body: string }[]): void },
  hub: string,
  partitions: number,
  perPartition: number,
): void {
  for (let p = 0; p < partitions; p++) {
    const events = Array.from({ length: perPartition }, (_, i) => ({ body: `p${p}-e${i}` }));
    emulator.append(hub, String(p), events);
  }
}

export async function until(cond: () => boolean, timeoutMs: number, what = 'condition'): Promise<void> {
  await waitUntil(cond, timeoutMs, what);
}
