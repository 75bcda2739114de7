import type { ExporterFactory, ReceiverFactory, ReceiverComponent, CreateSettings } from '../pipeline/factory.ts';
import type { ExtensionFactory } from '../extensions/extension-factory.ts';
import type { ProcessorFactory } from '../processors/processor-factory.ts';
import type { Signal } from '../pipeline/signals.ts';
import { azureAuthExtensionFactory } from '../extensions/azure-auth/azure-auth-extension.ts';
import { azureEncodingExtensionFactory } from '../extensions/azure-encoding-extension.ts';
import { fileStorageExtensionFactory } from '../extensions/file-storage-extension.ts';
import { healthCheckExtensionFactory } from '../extensions/health-check/health-check-extension.ts';
import { pprofExtensionFactory } from '../extensions/pprof/pprof-extension.ts';
import { zpagesExtensionFactory } from '../extensions/zpages/zpages-extension.ts';
import { batchProcessorFactory } from '../processors/batch-processor-factory.ts';
import { memoryLimiterProcessorFactory } from '../processors/memory-limiter-processor-factory.ts';

export type AnyReceiverFactory = ReceiverFactory<any, ReceiverComponent, any>;
export type AnyExporterFactory = ExporterFactory<any>;
export type AnyProcessorFactory = ProcessorFactory<any>;
export type AnyExtensionFactory = ExtensionFactory<any>;

/** The factories a distribution knows, by kind; the CLI maps config keys to them by type (or alias). */
export interface Components {
  readonly receivers: readonly AnyReceiverFactory[];
  readonly exporters: readonly AnyExporterFactory[];
  readonly processors: readonly AnyProcessorFactory[];
  readonly extensions: readonly AnyExtensionFactory[];
}

export type ComponentKind = keyof Components;

/** A factory of any kind, as far as lookup and listing go. */
export interface NamedFactory {
  readonly type: string;
  readonly aliases?: readonly string[];
  readonly stability: string;
  /** Signals the component handles; default logs only (extensions have none). */
  readonly signals?: readonly Signal[];
}

/** The signals a receiver, processor or exporter factory handles: its `signals`, or logs. */
export function factorySignals(factory: NamedFactory): readonly Signal[] {
  return factory.signals ?? ['logs'];
}

/** The factory whose type or alias is `type`. */
export function findFactory<F extends NamedFactory>(factories: readonly F[], type: string): F | undefined {
  return factories.find((f) => f.type === type || (f.aliases ?? []).includes(type));
}

/** Every type and alias of `factories`, for "did you mean" and the list of known types. */
export function knownTypes(factories: readonly NamedFactory[]): string[] {
  return factories.flatMap((f) => [f.type, ...(f.aliases ?? [])]);
}

/** Extensions and processors this folder ships; receivers and exporters are added by `builtinComponents`. */
export const distributionExtensions: readonly AnyExtensionFactory[] = [
  healthCheckExtensionFactory,
  azureAuthExtensionFactory,
  azureEncodingExtensionFactory,
  zpagesExtensionFactory,
  pprofExtensionFactory,
  fileStorageExtensionFactory,
];
export const distributionProcessors: readonly AnyProcessorFactory[] = [
  batchProcessorFactory,
  memoryLimiterProcessorFactory,
];

/** Settings type a receiver factory in the registry is created with. */
export type { CreateSettings };
