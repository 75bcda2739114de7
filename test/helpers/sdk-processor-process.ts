/**
 * An Azure SDK processor (see sdk-processor.ts) in a child process, for a real crash: SIGKILL leaves its
 * ownership claims behind, unreleased, as a crashed SDK processor does (closing the client in process
 * would release them: `EventHubConsumerClient.close()` closes its subscriptions first). Config comes as
 * JSON in SDK_PROCESSOR_CONFIG. Prints `R <partition> <sequence number>` for each processed event,
 * `O <partition>` / `C <partition>` when a partition opens or closes. SIGTERM: graceful stop, exit 0.
 */
import { BlobServiceClient } from '@azure/storage-blob';
import { SdkProcessor, type SdkProcessorOptions } from './sdk-processor.ts';

interface Config extends SdkProcessorOptions {
  readonly name: string;
  readonly connectionString: string;
  readonly storageConnectionString: string;
  readonly container: string;
}

const config = JSON.parse(process.env.SDK_PROCESSOR_CONFIG ?? '{}') as Config;
const service = BlobServiceClient.fromConnectionString(config.storageConnectionString);
const container = service.getContainerClient(config.container);
const processor = new SdkProcessor(config.name, config.connectionString, container, {
  ...config,
  onEvent: (e) => {
    // stdout on a pipe is synchronous on Linux: the parent sees each line before the batch is checkpointed.
    if (e.type === 'read') process.stdout.write(`R ${e.partitionId} ${e.sequenceNumber}\n`);
    else process.stdout.write(`${e.type === 'opened' ? 'O' : 'C'} ${e.partitionId}\n`);
  },
});
process.once('SIGTERM', () => void processor.stop().then(() => process.exit(0)));
