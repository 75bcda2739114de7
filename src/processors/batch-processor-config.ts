import { z } from 'zod';
import { durationMs } from '../component/duration.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import {
  BatchProcessor,
  DEFAULT_BATCH_TIMEOUT_MS,
  DEFAULT_MAX_CONCURRENT_EXPORTS,
  DEFAULT_SEND_BATCH_MAX_SIZE,
  DEFAULT_SEND_BATCH_SIZE,
} from './batch-processor.ts';

/** The YAML section of the `batch` processor, with the collector's keys and defaults. */
export const batchProcessorConfigSchema = z
  .strictObject({
    send_batch_size: z.number().int().positive().default(DEFAULT_SEND_BATCH_SIZE),
    send_batch_max_size: z.number().int().min(0).default(DEFAULT_SEND_BATCH_MAX_SIZE),
    timeout: durationMs.default(DEFAULT_BATCH_TIMEOUT_MS),
    max_concurrent_exports: z
      .number()
      .int()
      .min(1, 'must be at least 1 (1 = one export at a time, as the collector)')
      .default(DEFAULT_MAX_CONCURRENT_EXPORTS),
  })
  .refine((c) => c.send_batch_max_size === 0 || c.send_batch_max_size >= c.send_batch_size, {
    message: 'send_batch_max_size must be 0 or at least send_batch_size; raise it or lower send_batch_size',
    path: ['send_batch_max_size'],
  });

export type BatchProcessorConfig = z.output<typeof batchProcessorConfigSchema>;

/** Wraps `next` in a batch processor configured from the parsed YAML section. */
export function createBatchProcessor(next: SignalConsumer, config: BatchProcessorConfig): BatchProcessor {
  return new BatchProcessor(next, {
    sendBatchSize: config.send_batch_size,
    sendBatchMaxSize: config.send_batch_max_size,
    timeoutMs: config.timeout,
    maxConcurrentExports: config.max_concurrent_exports,
  });
}
