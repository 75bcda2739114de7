import type { CliIo } from '../cli-io.ts';
import type { Components } from '../components.ts';
import { UsageError } from '../usage-error.ts';

/** `checkpoints`: placeholder until the ownership admin functions land. */
export async function checkpointsCommand(_args: readonly string[], _io: CliIo, _components: Components): Promise<number> {
  throw new UsageError('checkpoints is not available in this build yet');
}
