import type { TokenCredential } from '@azure/core-auth';
import type { z } from 'zod';
import type { CreateSettings, ReceiverComponent, Stability } from '../component/factory.ts';

/**
 * A running extension. The service starts extensions before any receiver and shuts them down last.
 * Optional hooks let an extension watch receivers (health) or lend credentials (auth).
 */
export interface Extension {
  start(): Promise<void>;
  /** Idempotent; safe without start. */
  shutdown(): Promise<void>;
  /** Called for every receiver the service created, before extensions start. */
  onReceiverCreated?(receiverId: string, receiver: ReceiverComponent): void;
  /** Called when the service begins shutting down, before receivers stop. */
  onShutdownBegin?(): void;
  /** Auth extensions: the credential a receiver's `auth: <this id>` resolves to. */
  credential?(): TokenCredential;
}

/** The extension factory triple, like receivers and exporters: type, defaults, create. */
export interface ExtensionFactory<C = unknown> {
  readonly type: string;
  /** Other names the type is registered under. Default none. */
  readonly aliases?: readonly string[];
  readonly stability: Stability;
  readonly configSchema: z.ZodType<C>;
  createDefaultConfig(): C;
  /** Accepted-but-unused settings, one `key.path: message` line each (see ExporterFactory.configWarnings). */
  configWarnings?(config: C): readonly string[];
  create(settings: CreateSettings, config: C): Promise<Extension>;
}
