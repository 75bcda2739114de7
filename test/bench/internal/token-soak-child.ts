/**
 * The reading side of the token soak (token-soak.bench.ts), alone in a process so that its RSS is the
 * backend's: one HubClient of TOKEN_SOAK_KIND with SAS tokens living TOKEN_SOAK_LIFETIME_MS, a reader per
 * partition counting events by id. Answers `{ type: 'report', sent? }` over IPC with its counts (and, given
 * what was sent, how many are missing); `{ type: 'finish' }` closes everything and exits.
 */
import { createHubClient } from '../../../src/backends/create-hub-client.ts';
import type { BackendKind } from '../../../src/backends/consumer.ts';
import { CountingReaders } from '../../helpers/token-soak.ts';

const env = process.env;
const client = createHubClient(env.TOKEN_SOAK_KIND as BackendKind, {
  connectionString: env.TOKEN_SOAK_CONNECTION_STRING!,
  sasTokenLifetimeMs: Number(env.TOKEN_SOAK_LIFETIME_MS),
});
const readers = new CountingReaders(client, Number(env.TOKEN_SOAK_PARTITIONS));
await readers.start();

process.on('message', (message: { type: 'report' | 'finish'; sent?: number[] }) => {
  if (message.type === 'report') {
    process.send!({
      type: 'report',
      counts: readers.counts(),
      errors: readers.errors,
      ...(message.sent ? { missing: readers.missing(message.sent) } : {}),
    });
    return;
  }
  void (async () => {
    await readers.close();
    await client.close();
    process.send!({ type: 'finished' }, () => process.exit(0));
  })();
});
process.send!({ type: 'ready' });
