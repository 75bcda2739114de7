/**
 * The emulator serves AMQP over WebSockets as the service does: `wss://host:port/$servicebus/websocket`,
 * subprotocol AMQPWSB10, which is what the unmodified SDK builds from `Endpoint=sb://host:port` when given
 * `webSocketOptions` (always TLS). Also: the CLI's `--websocket-port`, refusals of other paths and
 * subprotocols, the abrupt-drop fault, and stop().
 */
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:https';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import WebSocket from 'ws';
import { EventHubConsumerClient, EventHubProducerClient, earliestEventPosition } from '@azure/event-hubs';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { createSelfSignedCert, trustAnyCertificate } from '../backends/self-signed-cert.ts';
import { FAST_RETRY, collectEvents, waitFor } from './sdk-helpers.ts';

const BIN = join(dirname(fileURLToPath(import.meta.url)), '..', '..', '..', 'bin', 'eventhubs-emulator.js');
const WS = { webSocket: WebSocket };

let tls: { cert: Buffer; key: Buffer };
before(() => {
  tls = createSelfSignedCert();
  trustAnyCertificate();
});

/** The HTTP status a WebSocket handshake to `path` with `protocols` ends with (101 when upgraded). */
function handshakeStatus(port: number, path: string, protocols: string[]): Promise<number> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${port}${path}`, protocols);
    ws.on('open', () => {
      ws.terminate();
      resolve(101);
    });
    ws.on('unexpected-response', (_req, res) => {
      resolve(res.statusCode ?? 0);
      ws.terminate();
    });
    ws.on('error', (e) => (/Unexpected server response/.test(e.message) ? undefined : reject(e)));
  });
}

test("the unmodified SDK produces and consumes over wss; the path and the subprotocol are the service's", async (t) => {
  const { emulator, hubName, track } = await startTestEmulator(t, { partitions: 2, tls, websocketPort: 0 });
  assert.ok(emulator.websocketPort! > 0 && emulator.websocketPort !== emulator.port);
  const cs = emulator.connectionString(hubName, { websockets: true });
  assert.ok(cs.includes(`:${emulator.websocketPort};`), cs);
  const producer = track(new EventHubProducerClient(cs, { webSocketOptions: WS, retryOptions: FAST_RETRY }));
  await producer.sendBatch([{ body: 'a' }, { body: 'b' }], { partitionId: '1' });
  const consumer = track(
    new EventHubConsumerClient('$Default', cs, { webSocketOptions: WS, retryOptions: FAST_RETRY }),
  );
  const events = await collectEvents(consumer, '1', earliestEventPosition, 2);
  assert.deepEqual(
    events.map((e) => e.body),
    ['a', 'b'],
  );
  assert.equal(emulator.audit.records.filter((r) => r.hub === hubName).length, 1);

  assert.equal(await handshakeStatus(emulator.websocketPort!, '/$servicebus/websocket', ['AMQPWSB10']), 101);
  assert.equal(await handshakeStatus(emulator.websocketPort!, '/other', ['AMQPWSB10']), 404);
  assert.equal(await handshakeStatus(emulator.websocketPort!, '/$servicebus/websocket', ['mqtt']), 400);
  // The binding's registered name, which the Go SDKs offer.
  assert.equal(await handshakeStatus(emulator.websocketPort!, '/$servicebus/websocket', ['amqp']), 101);
  const plain = await new Promise<number>((resolve, reject) => {
    request(
      { host: '127.0.0.1', port: emulator.websocketPort, path: '/$servicebus/websocket', rejectUnauthorized: false },
      (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      },
    )
      .on('error', reject)
      .end();
  });
  assert.equal(plain, 426, 'a plain GET is told to upgrade');
});

test('the abrupt-drop fault cuts WebSocket connections too; the SDK reconnects', async (t) => {
  const { emulator, hubName, track } = await startTestEmulator(t, { partitions: 1, tls, websocketPort: 0 });
  const cs = emulator.connectionString(hubName, { websockets: true });
  const producer = track(new EventHubProducerClient(cs, { webSocketOptions: WS, retryOptions: FAST_RETRY }));
  await producer.sendBatch([{ body: 'before' }]);
  assert.ok(emulator.faults.dropConnections() >= 1, 'the WebSocket connection was dropped');
  await producer.sendBatch([{ body: 'after' }]);
  assert.equal((await producer.getPartitionProperties('0')).lastEnqueuedSequenceNumber, 1);
});

test('stop() ends WebSocket connections and frees the port', async (t) => {
  const { emulator, hubName } = await startTestEmulator(t, { partitions: 1, tls, websocketPort: 0 });
  const ws = new WebSocket(`wss://127.0.0.1:${emulator.websocketPort}/$servicebus/websocket`, ['AMQPWSB10']);
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
  const closed = new Promise((resolve) => ws.once('close', resolve));
  assert.ok(emulator.connectionString(hubName, { websockets: true }));
  await emulator.stop();
  await closed;
  await assert.rejects(
    handshakeStatus(emulator.websocketPort!, '/$servicebus/websocket', ['AMQPWSB10']),
    /ECONNREFUSED/,
  );
});

test('an emulator without websocketPort has no WebSocket connection string', async (t) => {
  const { emulator, hubName } = await startTestEmulator(t, { partitions: 1 });
  assert.equal(emulator.websocketPort, undefined);
  assert.throws(() => emulator.connectionString(hubName, { websockets: true }), /websocketPort/);
});

test('the CLI with --websocket-port prints a second connection string, for WebSockets', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'emulator-ws-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'cert.pem'), tls.cert);
  writeFileSync(join(dir, 'key.pem'), tls.key);
  const child = spawn(
    process.execPath,
    [
      BIN,
      '--port',
      '0',
      '--websocket-port',
      '0',
      '--hub',
      'logs:1',
      '--tls-cert',
      join(dir, 'cert.pem'),
      '--tls-key',
      join(dir, 'key.pem'),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  t.after(() => child.kill('SIGKILL'));
  let out = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  await waitFor(() => out.split('\n').length >= 3, 20_000, 'two lines of output');
  const [amqp, ws] = out.split('\n') as [string, string];
  const port = (line: string) => Number(/^Endpoint=sb:\/\/127\.0\.0\.1:(\d+);/.exec(line)?.[1]);
  assert.ok(port(amqp) > 0 && port(ws) > 0 && port(amqp) !== port(ws), out);
  const producer = new EventHubProducerClient(ws, 'logs', { webSocketOptions: WS, retryOptions: FAST_RETRY });
  try {
    assert.deepEqual((await producer.getEventHubProperties()).partitionIds, ['0']);
  } finally {
    await producer.close();
  }
  child.kill('SIGTERM');
  assert.equal(await exited, 0);
});
