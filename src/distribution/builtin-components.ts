import type { AnyExporterFactory, AnyReceiverFactory, Components } from './components.ts';
import { distributionExtensions, distributionProcessors } from './components.ts';

// The receiver and exporter modules are loaded by specifier so this distribution still starts (with
// fewer components) while one of them is being reworked; `components` shows what was found.
const RECEIVER_MODULE = '../receiver/factory.ts';
const EXPORTERS_MODULE = '../exporters/index.ts';

/** The factories this distribution ships: the Event Hubs receiver, the exporters, batch, health_check, azure_auth. */
export async function builtinComponents(): Promise<Components> {
  const receiver = (await import(RECEIVER_MODULE).catch(() => ({}))) as { azureEventHubReceiverFactory?: AnyReceiverFactory };
  const exporters = (await import(EXPORTERS_MODULE).catch(() => ({}))) as { builtinExporterFactories?: readonly AnyExporterFactory[] };
  return {
    receivers: receiver.azureEventHubReceiverFactory ? [receiver.azureEventHubReceiverFactory] : [],
    exporters: exporters.builtinExporterFactories ?? [],
    processors: distributionProcessors,
    extensions: distributionExtensions,
  };
}
