import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createAzureEventHubReceiver } from '../../../src/index.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { Logger } from '../../../src/component/logger.ts';

test(
  'an embedder is told about Go keys that change nothing, through its logger, when the receiver is ' + 'created',
  async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      error() {},
      warn: (m) => void warnings.push(m),
      child: () => logger,
    };
    const receiver = createAzureEventHubReceiver(
      {
        connection:
          'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=ZW1iZWQ=;EntityPath=h',
        storage: 'file_storage',
        time_formats: { traces: ['2006'] },
      },
      new InMemorySignalConsumer(),
      { logger },
    );
    await receiver.shutdown();
    assert.deepEqual(warnings, [
      'storage: ignored (no storage extensions here); use blob_checkpoint_store to keep checkpoints; without it ' +
        'checkpoints stay in memory and a restart begins at start_position',
      'time_formats.traces: unused: no traces pipeline lists this receiver (it applies to traces only)',
    ]);
  },
);
