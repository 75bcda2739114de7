/**
 * Embedding the receiver in your own Node program.
 *
 *   npx tsx examples/embedding.ts                   # against a local emulator it starts itself
 *   EVENTHUB_CONNECTION='Endpoint=sb://...;EntityPath=hub' npx tsx examples/embedding.ts
 *
 * Any OpenTelemetry JS LogRecordExporter works as the consumer (here the SDK's ConsoleLogRecordExporter
 * wrapped to count records); so does an object with `consume(batch)`.
 */
import { ConsoleLogRecordExporter, type ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { ExportResultCode, type ExportResult } from '@opentelemetry/core';
import { EventHubProducerClient } from '@azure/event-hubs';
import { createAzureEventHubReceiver } from '../src/index.ts';
import { startEmulator } from '../src/emulator/index.ts';
import { sampleResourceLogBody } from '../scripts/local/samples.ts';

// 1. A hub to read: yours, or a local emulator with a few Azure resource logs in it.
let connection = process.env.EVENTHUB_CONNECTION || undefined;
const emulator = connection ? undefined : await startEmulator({ port: 0, hubs: [{ name: 'example', partitions: 2 }] });
if (emulator) {
  connection = emulator.connectionString('example');
  const producer = new EventHubProducerClient(connection);
  await producer.sendBatch([
    { body: Buffer.from(sampleResourceLogBody('keyvault-audit', { records: 2 })) },
    { body: Buffer.from(sampleResourceLogBody('activity-administrative')) },
  ]);
  await producer.close();
}

// 2. An exporter: any LogRecordExporter. This one prints and counts.
let exported = 0;
const consoleExporter = new ConsoleLogRecordExporter();
const exporter = {
  export(records: ReadableLogRecord[], done: (result: ExportResult) => void) {
    exported += records.length;
    for (const r of records)
      console.log(
        `${r.severityText ?? '-'} ${String(r.attributes['azure.category'] ?? '')} ` +
          `${String(r.attributes['azure.operation.name'] ?? '')}`,
      );
    done({ code: ExportResultCode.SUCCESS });
  },
  shutdown: () => consoleExporter.shutdown(),
  forceFlush: () => consoleExporter.forceFlush(),
};

// 3. The receiver: the same keys as the collector YAML's azure_event_hub section.
const receiver = createAzureEventHubReceiver(
  {
    connection,
    format: 'azure',
    start_position: 'earliest',
    // For a fleet, add: blob_checkpoint_store: { connection: '<storage connection string>', container_name:
    // 'checkpoints' }
    // Keeps this thread's memory (V8 heap in use + Buffers) near 128 MiB without a Node flag
    // (docs/embedding.md#memory).
    memory: { limit_mib: 128 },
  },
  exporter,
);
receiver.onStatus((status) => {
  if (status.type === 'partitionOpened') console.error(`reading partition ${status.partitionId}`);
});
await receiver.start();

// 4. Run until Ctrl-C (or, against the emulator, until the sample records arrived).
const done = new Promise<void>((resolve) => {
  process.once('SIGINT', resolve);
  if (emulator) {
    const timer = setInterval(() => exported >= 3 && (clearInterval(timer), resolve()), 100);
  }
});
await done;
await receiver.shutdown(); // drains, writes final checkpoints, releases leases
await emulator?.stop();
console.error(`exported ${exported} records`);
