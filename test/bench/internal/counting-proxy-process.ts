/**
 * The counting proxy (counting-proxy.ts) in a child process of its own. A bench that also runs the
 * emulator (thousands of AMQP links at 1024 partitions) would otherwise pipe every storage request through
 * the same event loop, so storage latency would partly measure the emulator. The child keeps every request
 * it saw; the parent asks for the count, or for the requests since a count, over IPC.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { CHILD_EXEC_ARGV, childModulePath } from './child-loader.ts';
import type { SeenRequest } from './counting-proxy.ts';

const CHILD = childModulePath('./counting-proxy-child.ts', import.meta.url);
const START_TIMEOUT_MS = 30_000;

/** Parent → child messages. */
export type CountingProxyRequest =
  | { readonly type: 'length'; readonly id: number }
  | { readonly type: 'since'; readonly id: number; readonly from: number }
  | { readonly type: 'stop' };

export interface RemoteCountingProxy {
  readonly port: number;
  /** How many requests the proxy has seen so far. */
  length(): Promise<number>;
  /** The requests seen since the `from`-th, in arrival order. */
  since(from: number): Promise<SeenRequest[]>;
  stop(): Promise<void>;
}

export async function startCountingProxyProcess(targetPort: number): Promise<RemoteCountingProxy> {
  const child: ChildProcess = fork(CHILD, [], {
    execArgv: [...CHILD_EXEC_ARGV],
    env: { ...process.env, COUNTING_PROXY_TARGET_PORT: String(targetPort) },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const killOnExit = (): void => void child.kill('SIGKILL');
  process.once('exit', killOnExit);
  const exited = new Promise<void>((resolve) => child.once('exit', () => (process.off('exit', killOnExit), resolve())));
  const pending = new Map<number, (value: unknown) => void>();
  let nextId = 0;
  const port = await new Promise<number>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`the counting proxy did not start within ${START_TIMEOUT_MS} ms`)),
      START_TIMEOUT_MS,
    );
    child.on('message', (message: { type?: string; port?: number; id?: number; value?: unknown }) => {
      if (message.type === 'ready') {
        clearTimeout(timer);
        resolve(message.port!);
      } else if (message.id !== undefined) {
        pending.get(message.id)?.(message.value);
        pending.delete(message.id);
      }
    });
    child.once('exit', (code) => reject(new Error(`the counting proxy exited with code ${code}`)));
  });
  const ask = <T>(request: { type: 'length' } | { type: 'since'; from: number }): Promise<T> =>
    new Promise<T>((resolve, reject) => {
      if (!child.connected) return reject(new Error('the counting proxy has exited'));
      const id = nextId++;
      pending.set(id, resolve as (value: unknown) => void);
      child.send({ ...request, id });
    });
  return {
    port,
    length: () => ask<number>({ type: 'length' }),
    since: (from) => ask<SeenRequest[]>({ type: 'since', from }),
    async stop() {
      if (child.connected) child.send({ type: 'stop' } satisfies CountingProxyRequest);
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
