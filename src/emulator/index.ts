/** The local Event Hubs–compatible emulator: public API. See docs/emulator.md. */
import { EmulatorServer } from './emulator-server.ts';
import type { Emulator, EmulatorOptions } from './types.ts';

export type {
  ClaimAudit,
  Emulator,
  EmulatorCaptureConfig,
  EmulatorEventInput,
  ExpiredLinkRecord,
  EmulatorFaults,
  EmulatorHubConfig,
  EmulatorOptions,
  FaultCondition,
  PutTokenRecord,
  ReceiverAudit,
  ReceiverLinkRecord,
} from './types.ts';
export { EMULATOR_TIERS, tierQuotas, type EmulatorTier, type TierQuotas } from './tier-quotas.ts';
export { DEFAULT_KEY, DEFAULT_KEY_NAME, MAX_MESSAGE_SIZE_BYTES } from './emulator-server.ts';

/** Starts an emulator and resolves once it listens. */
export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const server = new EmulatorServer(options);
  await server.start();
  return server;
}
