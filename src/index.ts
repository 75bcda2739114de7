/**
 * The public API for embedding: create a receiver from a config object (the same keys as the
 * `azure_event_hub` section of the collector YAML) and a consumer (any OpenTelemetry JS
 * `LogRecordExporter`, or a `SignalConsumer`), then `start()` and `shutdown()`.
 */
import type { LogRecordExporter } from '@opentelemetry/sdk-logs';
import { receiverConfigWarnings, unusedSignalKeyWarnings } from './config/receiver-config-warnings.ts';
import { parseReceiverConfig } from './config/parse-receiver-config.ts';
import type { ReceiverConfigInput } from './config/receiver-config.ts';
import { fromLogRecordExporter } from './pipeline/exporter-adapter.ts';
import type { SignalConsumer } from './pipeline/consumer.ts';
import { AzureEventHubReceiverImpl } from './receiver/azure-event-hub-receiver.ts';
import type { AzureEventHubReceiver, ReceiverCreateSettings } from './receiver/receiver.ts';
import { noopLogger } from './component/logger.ts';
import { ConfigError } from './component/errors.ts';

export type { AzureEventHubReceiver, ReceiverCreateSettings } from './receiver/receiver.ts';
export type {
  ReceiverStatus,
  ReceiverStats,
  PartitionStats,
  PartitionState,
  ReceiverCounters,
  HubPartitionLag,
  RestartReason,
} from './receiver/receiver-status.ts';
export type { HealthReport, ReceiverHealth, PartitionHealth, HealthStatus } from './telemetry/health-state.ts';
export { HealthState } from './telemetry/health-state.ts';
export type { ReceiverConfig, ReceiverConfigInput } from './config/receiver-config.ts';
export type { SignalConsumer } from './pipeline/consumer.ts';
export type { SignalBatch, BatchSource, EncodedLogs } from './pipeline/signal-batch.ts';
export type { Logger } from './component/logger.ts';
export type { DeadLetterEntry, DeadLetterStore } from './pipeline/dead-letter.ts';
export type { Checkpoint, CheckpointStore, CheckpointScope } from './ownership/checkpoint.ts';
export { PermanentError, ConfigError } from './component/errors.ts';
export { InMemorySignalConsumer } from './pipeline/in-memory-consumer.ts';
/** @deprecated The earlier name: a consumer and a batch carry logs, metrics and spans. Use `SignalConsumer`. */
export type { SignalConsumer as LogsConsumer } from './pipeline/consumer.ts';
/** @deprecated Use `SignalBatch`. */
export type { SignalBatch as LogBatch } from './pipeline/signal-batch.ts';
/** @deprecated Use `InMemorySignalConsumer`. */
export { InMemorySignalConsumer as InMemoryLogsConsumer } from './pipeline/in-memory-consumer.ts';
export { fromLogRecordExporter } from './pipeline/exporter-adapter.ts';
export { withRetry } from './pipeline/retry.ts';
export { fanOut } from './pipeline/fan-out.ts';
export { routeSignals, type SignalHead, type SignalRouter } from './pipeline/signal-router.ts';
export type { Signal, MetricPoint, SpanRecord } from './pipeline/signals.ts';
export { limitRequestBytes, type RequestBytesLimitOptions } from './pipeline/request-bytes-limit.ts';
export { PartialRefusalError, RequestTooLargeError, type Refusal } from './pipeline/partial-refusal.ts';
export { EncodedLogsRefusedError } from './pipeline/encoded-logs-refusal.ts';
export { createDecoder } from './decode/create-decoder.ts';
export { createFeatureGates, STREAMING_GATE_ID, FEATURE_GATES_ENV } from './component/feature-gates.ts';
export { azureEventHubReceiverFactory, RECEIVER_TYPE } from './receiver/factory.ts';

export interface CreateReceiverOptions extends Partial<Omit<ReceiverCreateSettings, 'id'>> {
  /** Component id used in logs. Default `azure_event_hub`. */
  readonly id?: string;
}

function isLogRecordExporter(value: unknown): value is LogRecordExporter {
  return (
    typeof (value as LogRecordExporter).export === 'function' && typeof (value as SignalConsumer).consume !== 'function'
  );
}

/**
 * Validates `config` (throws a ConfigError listing every problem with its path) and creates a receiver
 * that hands decoded log records to `consumer` (and metric points and spans when `options.signals` includes
 * metrics or traces; route them to pipelines per signal with `routeSignals`). Nothing connects until `start()`.
 */
export function createAzureEventHubReceiver(
  config: ReceiverConfigInput,
  consumer: SignalConsumer | LogRecordExporter,
  options: CreateReceiverOptions = {},
): AzureEventHubReceiver {
  const parsed = parseReceiverConfig(config);
  const signals = options.signals ?? new Set(['logs'] as const);
  if (isLogRecordExporter(consumer) && [...signals].some((s) => s !== 'logs')) {
    // A LogRecordExporter would be handed metric points and spans it cannot export.
    throw new ConfigError([
      'signals: a LogRecordExporter exports log records only; pass a SignalConsumer for metrics and traces',
    ]);
  }
  const next = isLogRecordExporter(consumer) ? fromLogRecordExporter(consumer) : consumer;
  const logger = options.logger ?? noopLogger;
  // Keys accepted for Go-config compatibility that change nothing are said once, as the CLI says them.
  for (const warning of [...receiverConfigWarnings(parsed), ...unusedSignalKeyWarnings(parsed, signals)])
    logger.warn(warning);
  return new AzureEventHubReceiverImpl(parsed, next, { ...options, id: options.id ?? 'azure_event_hub', logger });
}
