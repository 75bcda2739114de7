/**
 * Child-process entry of the counting proxy (see counting-proxy-process.ts): starts the proxy in front of
 * the Azurite port given in COUNTING_PROXY_TARGET_PORT and answers the parent over IPC, so that the proxy's
 * piping does not share an event loop with what the parent runs (the emulator, in the scale bench).
 */
import { startCountingProxy } from './counting-proxy.ts';
import type { CountingProxyRequest } from './counting-proxy-process.ts';

const proxy = await startCountingProxy(Number(process.env.COUNTING_PROXY_TARGET_PORT));
process.send!({ type: 'ready', port: proxy.port });
process.on('message', (message: CountingProxyRequest) => {
  if (message.type === 'length') process.send!({ id: message.id, value: proxy.requests.length });
  else if (message.type === 'since') process.send!({ id: message.id, value: proxy.requests.slice(message.from) });
  else if (message.type === 'stop') void proxy.stop().then(() => process.exit(0));
});
// The parent going away (a crashed bench) must not leave the proxy running.
process.on('disconnect', () => process.exit(0));
