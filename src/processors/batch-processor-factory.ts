import {
  batchProcessorConfigSchema,
  createBatchProcessor,
  type BatchProcessorConfig,
} from './batch-processor-config.ts';
import {
  DEFAULT_BATCH_TIMEOUT_MS,
  DEFAULT_MAX_CONCURRENT_EXPORTS,
  DEFAULT_SEND_BATCH_MAX_SIZE,
  DEFAULT_SEND_BATCH_SIZE,
} from './batch-processor.ts';
import type { ProcessorFactory } from './processor-factory.ts';
import { SIGNALS } from '../pipeline/signals.ts';

/** `batch`: combines batches from several partitions into fewer, larger exports (collector keys and defaults). */
export const batchProcessorFactory: ProcessorFactory<BatchProcessorConfig> = {
  type: 'batch',
  stability: 'beta',
  signals: SIGNALS,
  configSchema: batchProcessorConfigSchema,
  createDefaultConfig: () => ({
    send_batch_size: DEFAULT_SEND_BATCH_SIZE,
    send_batch_max_size: DEFAULT_SEND_BATCH_MAX_SIZE,
    timeout: DEFAULT_BATCH_TIMEOUT_MS,
    max_concurrent_exports: DEFAULT_MAX_CONCURRENT_EXPORTS,
  }),
  async create(_settings, config, next) {
    return createBatchProcessor(next, config);
  },
};
