import { z } from 'zod';
import type { ExtensionFactory } from './extension-factory.ts';

/**
 * The Go collector's `file_storage` extension, which Go receiver configs name in `storage:`. It is
 * accepted so those configs load unchanged, and does nothing: this receiver keeps checkpoints in
 * `blob_checkpoint_store` (the same blobs the Azure SDKs use). `validate` and the start log say so.
 */
export const fileStorageConfigSchema = z.looseObject({
  /** Where the Go extension keeps its files. Unused here. */
  directory: z.string().optional(),
});

export type FileStorageConfig = z.output<typeof fileStorageConfigSchema>;

export const fileStorageExtensionFactory: ExtensionFactory<FileStorageConfig> = {
  type: 'file_storage',
  stability: 'deprecated',
  configSchema: fileStorageConfigSchema,
  createDefaultConfig: () => ({}),
  configWarnings: () => [
    ": ignored; nothing is stored here. Checkpoints go to the receiver's blob_checkpoint_store " +
      '(without one they stay in memory); remove this extension once the receiver has one',
  ],
  create: async () => ({ start: async () => {}, shutdown: async () => {} }),
};
