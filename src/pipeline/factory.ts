import type { z } from 'zod';
import type { Logger } from '../component/logger.ts';
import type { Stability } from '../component/feature-gates.ts';
import type { SignalConsumer } from './consumer.ts';
import type { Signal } from './signals.ts';
import type { ExportAttempt } from './retry.ts';

export type { Stability } from '../component/feature-gates.ts';

/** What every created component gets from the service. */
export interface CreateSettings {
  /** The component id from the config, e.g. `file/audit`. */
  readonly id: string;
  readonly logger: Logger;
  /**
   * Exporters: told of every attempt as it ends, retries included (RetryOptions.onAttempt). The service counts
   * failed attempts (`otelcol_exporter_failed_attempts`) and tells health which exporter fails. Optional.
   */
  readonly onExportAttempt?: (attempt: ExportAttempt) => void;
}

/**
 * The collector's factory triple for a logs exporter: a `type`, the one place defaults live
 * (`createDefaultConfig`, pure, returns a fresh object), and `create`. `configSchema` validates the
 * user's section (unknown keys rejected); the service merges it over the defaults before `create`.
 */
export interface ExporterFactory<C = unknown> {
  readonly type: string;
  readonly stability: Stability;
  /**
   * The signals `consume` exports: a pipeline of another signal refuses this exporter at `validate`.
   * Default `['logs']` (an exporter written before metrics and traces existed).
   */
  readonly signals?: readonly Signal[];
  readonly configSchema: z.ZodType<C>;
  createDefaultConfig(): C;
  /**
   * Settings the validated section carries that this component accepts but does not use (Go-config keys
   * with no meaning here), one `key.path: what to do instead` line each, relative to the section (a line
   * starting with `:` is about the whole section). The CLI prints them at `validate` and logs them at
   * start. Optional; default none.
   */
  configWarnings?(config: C): readonly string[];
  create(settings: CreateSettings, config: C): Promise<SignalConsumer>;
}

/** A running receiver, as the service sees it. */
export interface ReceiverComponent {
  /** Returns quickly; reading happens in background loops. A start that fails half-way cleans up. */
  start(): Promise<void>;
  /**
   * Stops claiming, drains in-flight batches, writes final checkpoints, releases leases. Idempotent, safe without
   * start.
   */
  shutdown(): Promise<void>;
}

/** The receiver factory triple; `create` wires the receiver to the next consumer in the pipeline. */
export interface ReceiverFactory<
  C = unknown,
  R extends ReceiverComponent = ReceiverComponent,
  S extends CreateSettings = CreateSettings,
> {
  readonly type: string;
  /** Other names the type is registered under (e.g. `azureeventhub`). */
  readonly aliases: readonly string[];
  readonly stability: Stability;
  /** The signals the receiver can feed (as ExporterFactory.signals). Default `['logs']`. */
  readonly signals?: readonly Signal[];
  readonly configSchema: z.ZodType<C>;
  createDefaultConfig(): C;
  /** As ExporterFactory.configWarnings. */
  configWarnings?(config: C): readonly string[];
  create(settings: S, config: C, next: SignalConsumer): Promise<R>;
}
