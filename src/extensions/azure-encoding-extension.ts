import { z } from 'zod';
import type { Extension, ExtensionFactory } from './extension-factory.ts';

/**
 * The `azure_encoding` section, as the Go extension spells it. Only `logs` affects this receiver; `traces`,
 * `metrics` and `format` are accepted so a Go config loads unchanged.
 */
export const azureEncodingConfigSchema = z.strictObject({
  logs: z
    .strictObject({
      /** Go reference-time layouts tried after ISO 8601. Default none. */
      time_formats: z.array(z.string()).default([]),
      /** Decode only these categories. Default all. */
      include_categories: z.array(z.string()).default([]),
      /** Drop these categories (wins over include_categories). Default none. */
      exclude_categories: z.array(z.string()).default([]),
    })
    .prefault({}),
  traces: z.looseObject({}).optional(),
  metrics: z.looseObject({}).optional(),
  /** Go: `eventhub` (default) or `blobstorage`; both wrappers are read here whatever it says. */
  format: z.enum(['eventhub', 'blobstorage']).default('eventhub'),
});

export type AzureEncodingConfig = z.output<typeof azureEncodingConfigSchema>;

/**
 * `azure_encoding`: a receiver's `encoding: azure_encoding[/name]` selects the `azure_encoding` decoder format
 * with this section's `logs` options (resolve-config copies them onto the receiver). Nothing runs.
 */
export const azureEncodingExtensionFactory: ExtensionFactory<AzureEncodingConfig> = {
  type: 'azure_encoding',
  stability: 'alpha',
  configSchema: azureEncodingConfigSchema,
  createDefaultConfig: () => ({
    logs: { time_formats: [], include_categories: [], exclude_categories: [] },
    format: 'eventhub',
  }),
  async create(): Promise<Extension> {
    return { start: async () => {}, shutdown: async () => {} };
  },
};
