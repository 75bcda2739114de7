import type { TokenCredential } from '@azure/core-auth';
import type { z } from 'zod';
import type { CreateSettings, ReceiverComponent, Stability } from '../pipeline/factory.ts';
import type { FeatureGate } from '../component/feature-gates.ts';
import type { ExportAttempt } from '../pipeline/retry.ts';

/** What the service tells extensions once everything is built (zpages shows it). */
export interface ServiceInfo {
  /** When the service began building, ms since the epoch. */
  readonly startedAt: number;
  readonly pipelines: readonly {
    readonly id: string;
    readonly receivers: readonly string[];
    readonly processors: readonly string[];
    readonly exporters: readonly string[];
  }[];
  /** Every configured component in service order, with the factory type and stability behind it. */
  readonly components: readonly {
    readonly kind: 'receivers' | 'processors' | 'exporters' | 'extensions';
    readonly id: string;
    readonly type: string;
    readonly stability: Stability;
  }[];
  /** The validated config of each receiver by id (for keys such as `retention`). */
  readonly receiverConfigs: ReadonlyMap<string, unknown>;
  readonly featureGates: readonly (FeatureGate & { readonly enabled: boolean })[];
  /** The Prometheus endpoint's bound address, when self-metrics are on. */
  readonly metricsAddress?: { readonly host: string; readonly port: number };
  /** `service.instance.id` the self-metrics carry, when they are on. */
  readonly serviceInstanceId?: string;
}

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
  /** Called once every component is built, before extensions start. */
  onServiceBuilt?(info: ServiceInfo): void;
  /** Called as each attempt of exporter `exporterId` ends, retries included (health names a failing exporter). */
  onExportAttempt?(exporterId: string, attempt: ExportAttempt): void;
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
