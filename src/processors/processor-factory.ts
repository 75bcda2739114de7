import type { z } from 'zod';
import type { CreateSettings, Stability } from '../pipeline/factory.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import type { Signal } from '../pipeline/signals.ts';

/**
 * A logs processor factory: `create` wraps the next consumer of the pipeline and returns the consumer
 * the previous stage calls. The returned promise of `consume` must still mean "accepted downstream",
 * or the receiver would checkpoint past records that were never exported.
 */
export interface ProcessorFactory<C = unknown> {
  readonly type: string;
  readonly aliases?: readonly string[];
  readonly stability: Stability;
  /** The signals the processor handles (as ExporterFactory.signals). Default `['logs']`. */
  readonly signals?: readonly Signal[];
  readonly configSchema: z.ZodType<C>;
  createDefaultConfig(): C;
  /** Accepted-but-unused settings, one `key.path: message` line each (see ExporterFactory.configWarnings). */
  configWarnings?(config: C): readonly string[];
  create(settings: CreateSettings, config: C, next: SignalConsumer): Promise<SignalConsumer>;
}
