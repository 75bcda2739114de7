/**
 * Azurite's blob service persisted on disk (`--location`), so a storage outage can be played as a user
 * meets it: the process stopped, then started again with its data, on the same port (the tests' launcher,
 * scripts/local/azurite.ts, with a `location`).
 * Clients reach it through a TCP proxy (test/integration/ownership/helpers/tcp-proxy.ts) that drops their
 * connections the moment the outage starts, so Azurite's graceful stop (which saves its data) has no open
 * connection left to serve.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startAzurite } from '../../../helpers/azurite.ts';
import { startTcpProxy } from '../../../integration/ownership/helpers/tcp-proxy.ts';

export interface DiskAzurite {
  /** The port clients use (the gate's). */
  readonly port: number;
  readonly connectionString: string;
  /** Cuts every client connection, refuses new ones, and stops the process gracefully (its data is saved to disk). */
  stop(): Promise<void>;
  /** Starts it again on the same port with the same data. */
  restart(): Promise<void>;
  /** Stops it and deletes its data. */
  dispose(): Promise<void>;
}

export async function startDiskAzurite(): Promise<DiskAzurite> {
  const location = mkdtempSync(join(tmpdir(), 'fleet-faults-azurite-'));
  let azurite = await startAzurite({ location, startTimeoutMs: 30_000 });
  const storagePort = azurite.port;
  const gate = await startTcpProxy(storagePort);
  return {
    port: gate.port,
    connectionString: azurite.connectionString.replace(`:${storagePort}/`, `:${gate.port}/`),
    async stop() {
      gate.cut();
      await azurite.stop();
    },
    async restart() {
      gate.cut();
      await azurite.stop();
      azurite = await startAzurite({ location, port: storagePort, startTimeoutMs: 30_000 });
      gate.restore();
    },
    async dispose() {
      await gate.close();
      await azurite.stop();
      rmSync(location, { recursive: true, force: true });
    },
  };
}
