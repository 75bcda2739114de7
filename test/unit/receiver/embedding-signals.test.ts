import { test } from 'node:test';
import assert from 'node:assert/strict';
import { InMemoryLogRecordExporter } from '@opentelemetry/sdk-logs';
import { ConfigError, createAzureEventHubReceiver } from '../../../src/index.ts';
import { InMemorySignalConsumer } from '../../../src/pipeline/in-memory-consumer.ts';
import type { Logger } from '../../../src/component/logger.ts';

const connection =
  'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=ZW1iZWQ=;EntityPath=h';

test(
  'an embedder asking for metrics or traces gets them only from the azure format, into a ' + 'SignalConsumer',
  async () => {
    const warnings: string[] = [];
    const logger: Logger = {
      debug() {},
      info() {},
      error() {},
      warn: (m) => void warnings.push(m),
      child: () => logger,
    };
    const ok = createAzureEventHubReceiver(
      { connection, metric_aggregation: 'average', time_formats: { metrics: ['2006'] } },
      new InMemorySignalConsumer(),
      { signals: new Set(['logs', 'metrics']), logger },
    );
    await ok.shutdown();
    assert.deepEqual(warnings, [], 'metrics keys are used when metrics are fed');

    assert.throws(
      () =>
        createAzureEventHubReceiver({ connection, format: 'raw' }, new InMemorySignalConsumer(), {
          signals: new Set(['traces']),
        }),
      (e: unknown) =>
        e instanceof ConfigError &&
        /format: raw produces log records only, so it cannot feed a traces pipeline/.test(e.message),
    );
    assert.throws(
      () =>
        createAzureEventHubReceiver({ connection }, new InMemoryLogRecordExporter(), {
          signals: new Set(['logs', 'metrics']),
        }),
      (e: unknown) => e instanceof ConfigError && /a LogRecordExporter exports log records only/.test(e.message),
    );
  },
);

test('the consumer names of earlier versions still work: InMemoryLogsConsumer is InMemorySignalConsumer', async () => {
  const { InMemoryLogsConsumer, InMemorySignalConsumer: exported } = await import('../../../src/index.ts');
  assert.equal(InMemoryLogsConsumer, exported);
  assert.equal(exported, InMemorySignalConsumer);
  const receiver = createAzureEventHubReceiver({ connection }, new InMemoryLogsConsumer());
  await receiver.shutdown();
});
