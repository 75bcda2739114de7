import { builtinExporterFactories } from '../exporters/factories.ts';
import { azureEventHubReceiverFactory } from '../receiver/factory.ts';
import type { AnyReceiverFactory, Components } from './components.ts';
import { distributionExtensions, distributionProcessors } from './components.ts';

/**
 * The factories this distribution ships: the Event Hubs receiver (`azure_event_hub`, alias
 * `azureeventhub`), the exporters (`debug`, `file`, `otlphttp`, `otlp`), the `batch` processor and the
 * `health_check`, `azure_auth`, `zpages` and `pprof` extensions.
 */
export async function builtinComponents(): Promise<Components> {
  return {
    receivers: [azureEventHubReceiverFactory as AnyReceiverFactory],
    exporters: builtinExporterFactories,
    processors: distributionProcessors,
    extensions: distributionExtensions,
  };
}
