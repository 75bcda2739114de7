import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createConnection } from 'node:net';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { openRheaConnection } from '../../helpers/rhea-connection.ts';

const connect = openRheaConnection;

test('the server accepts SASL ANONYMOUS (with a user name, as the SDK sends) and connections without SASL', async (t) => {
  const { emulator } = await startTestEmulator(t, { partitions: 1 });
  const withSasl = await connect(emulator.port, { username: 'RootManageSharedAccessKey' });
  const withoutSasl = await connect(emulator.port, {});
  assert.ok(withSasl.is_open() && withoutSasl.is_open());
  withSasl.close();
  withoutSasl.close();
});

test('the server announces an idle timeout and keeps an idle client alive with heartbeats', async (t) => {
  const { emulator } = await startTestEmulator(t, { partitions: 1 });
  // The client asks for frames at least every 200 ms and gives up after twice that without any.
  const connection = await connect(emulator.port, { idle_time_out: 200 });
  assert.ok(connection.remote.open.idle_time_out > 0, 'the server tells clients how often to send heartbeats');
  let closed = false;
  connection.on('connection_close', () => (closed = true));
  connection.on('disconnected', () => (closed = true));
  await new Promise((r) => setTimeout(r, 1_200));
  assert.equal(closed, false, 'heartbeats kept the idle connection open');
  assert.ok(connection.is_open());
  connection.close();
});

test('a receiver that drains its credit gets what exists, then its remaining credit is consumed', async (t) => {
  const { emulator, hubName } = await startTestEmulator(t, { partitions: 1 });
  emulator.append(hubName, '0', [{ body: 'a' }, { body: 'b' }]);
  const connection = await connect(emulator.port, {});
  t.after(() => connection.close());
  const receiver = connection.open_receiver({
    source: { address: `${hubName}/ConsumerGroups/$Default/Partitions/0` },
    credit_window: 0,
  });
  let received = 0;
  receiver.on('message', () => received++);
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no drain completion within 5 s (received ${received})`)), 5_000);
    receiver.once('receiver_open', () => {
      receiver.add_credit(10);
      receiver.drain_credit();
    });
    receiver.once('receiver_drained', () => {
      clearTimeout(timer);
      resolve();
    });
  });
  assert.equal(received, 2);
  assert.equal(receiver.credit, 0, 'the unused credit was consumed');
});

// A flow frame (performative 0x13) on channel 26, where this connection has no session: what the SDK
// sends when it adds credit to a link whose session already ended.
const FLOW_ON_UNKNOWN_CHANNEL = Buffer.from('000000240200001a005313d0000000140000000470000051297000000800437' + '0ffffffff', 'hex');

test('a frame on a channel without a session closes that connection and is reported, never printed', async (t) => {
  const printed: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void printed.push(args);
  t.after(() => (console.error = original));
  for (const report of [true, false]) {
    const messages: string[] = [];
    const { emulator } = await startTestEmulator(t, { partitions: 1, ...(report ? { onProtocolError: (m: string) => void messages.push(m) } : {}) });
    const connection = await connect(emulator.port, {});
    const gone = new Promise((resolve) => connection.once('disconnected', resolve));
    connection.socket.write(FLOW_ON_UNKNOWN_CHANNEL);
    await gone;
    if (report) assert.deepEqual(messages, ['ProtocolError: flow received on invalid channel 26']);
    // The emulator keeps serving other clients.
    const other = await connect(emulator.port, {});
    assert.ok(other.is_open());
    other.close();
  }
  assert.deepEqual(printed, [], 'nothing went to the console');
});

test('stop() ends while a client holds an accepted socket without an AMQP connection (a client reconnecting)', async (t) => {
  const { emulator } = await startTestEmulator(t, { partitions: 1 });
  const socket = createConnection({ host: '127.0.0.1', port: emulator.port });
  t.after(() => socket.destroy());
  await new Promise<void>((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
  // The client never sends a protocol header, so the server has no AMQP connection to close politely.
  let bound: NodeJS.Timeout | undefined;
  const stopped = await Promise.race([
    emulator.stop().then(() => true),
    new Promise<boolean>((resolve) => (bound = setTimeout(() => resolve(false), 20_000))),
  ]);
  clearTimeout(bound);
  assert.equal(stopped, true, 'stop() resolved');
  await closed;
});
