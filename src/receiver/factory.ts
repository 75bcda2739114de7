import type { ReceiverFactory } from '../pipeline/factory.ts';
import { receiverConfigObject, receiverConfigSchema, type ReceiverConfig } from '../config/receiver-config.ts';
import { receiverConfigWarnings } from '../config/receiver-config-warnings.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import type { AzureEventHubReceiver, ReceiverCreateSettings } from './receiver.ts';
import { SIGNALS } from '../pipeline/signals.ts';

/** The receiver's type in collector configs, and the Go collector's older name for it. */
export const RECEIVER_TYPE = 'azure_event_hub';
export const RECEIVER_ALIASES = ['azureeventhub'] as const;

/** The factory triple the service registers: type, defaults, create. */
export const azureEventHubReceiverFactory: ReceiverFactory<
  ReceiverConfig,
  AzureEventHubReceiver,
  ReceiverCreateSettings
> = {
  type: RECEIVER_TYPE,
  aliases: RECEIVER_ALIASES,
  stability: 'beta',
  signals: SIGNALS,
  configSchema: receiverConfigSchema,
  createDefaultConfig: () => receiverConfigObject.parse({}),
  configWarnings: receiverConfigWarnings,
  async create(settings, config, next: SignalConsumer) {
    // The receiver, its backends and the Azure SDKs load when a receiver is made, not when a config is validated.
    const { AzureEventHubReceiverImpl } = await import('./azure-event-hub-receiver.ts');
    return new AzureEventHubReceiverImpl(config, next, settings);
  },
};
