import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { createConnection } from 'node:net';
import rhea from 'rhea';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { openRheaConnection } from '../../helpers/rhea-connection.ts';

const require = createRequire(import.meta.url);
const connect = openRheaConnection;

test(
  'the server accepts SASL ANONYMOUS (with a user name, as the SDK sends) and connections without ' + 'SASL',
  async (t) => {
    const { emulator } = await startTestEmulator(t, { partitions: 1 });
    const withSasl = await connect(emulator.port, { username: 'RootManageSharedAccessKey' });
    const withoutSasl = await connect(emulator.port, {});
    assert.ok(withSasl.is_open() && withoutSasl.is_open());
    withSasl.close();
    withoutSasl.close();
  },
);

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
const FLOW_ON_UNKNOWN_CHANNEL = Buffer.from(
  '000000240200001a005313d0000000140000000470000051297000000800437' + '0ffffffff',
  'hex',
);

test('a frame on a channel without a session closes that connection and is reported, never printed', async (t) => {
  const printed: unknown[][] = [];
  const original = console.error;
  console.error = (...args: unknown[]) => void printed.push(args);
  t.after(() => (console.error = original));
  for (const report of [true, false]) {
    const messages: string[] = [];
    const { emulator } = await startTestEmulator(t, {
      partitions: 1,
      ...(report ? { onProtocolError: (m: string) => void messages.push(m) } : {}),
    });
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

test(
  'stop() ends while a client holds an accepted socket without an AMQP connection (a client ' + 'reconnecting)',
  async (t) => {
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
  },
);

/** The SASL mechanisms a server offers: the first SASL frame after the SASL protocol header. */
function offeredMechanisms(port: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ host: '127.0.0.1', port });
    let bytes = Buffer.alloc(0);
    const timer = setTimeout(() => reject(new Error('no SASL mechanisms frame within 5 s')), 5_000);
    socket.on('error', reject);
    socket.on('connect', () => socket.write(Buffer.from('AMQP\x03\x01\x00\x00', 'latin1')));
    socket.on('data', (chunk) => {
      bytes = Buffer.concat([bytes, chunk]);
      if (bytes.length < 12 || bytes.length < 8 + bytes.readUInt32BE(8)) return;
      clearTimeout(timer);
      socket.destroy();
      const frame = bytes.subarray(8, 8 + bytes.readUInt32BE(8));
      const performative = new (rhea as any).types.Reader(frame.subarray(frame[4]! * 4)).read();
      const list = performative.value[0];
      resolve((Array.isArray(list.value) ? list.value : [list]).map((m: any) => String(m.value ?? m)));
    });
  });
}

test(
  'the server offers the service SASL mechanisms and authenticates MSSBCBS; PLAIN checks the key when keys are ' +
    'set',
  async (t) => {
    const { emulator } = await startTestEmulator(t, {
      partitions: 1,
      sasKeys: { RootManageSharedAccessKey: 'right-key' },
    });
    assert.deepEqual(await offeredMechanisms(emulator.port), ['MSSBCBS', 'PLAIN', 'ANONYMOUS', 'EXTERNAL']);
    // A client that asks for MSSBCBS by name (as azure-uamqp-c does), with an empty initial response.
    const mssbcbs = {
      MSSBCBS: () => ({
        start: (callback: (error: unknown, response: Buffer) => void) => callback(undefined, Buffer.alloc(0)),
      }),
    };
    const cbsConnection = await connect(emulator.port, { sasl_mechanisms: mssbcbs });
    assert.ok(cbsConnection.is_open());
    cbsConnection.close();
    const plain = await connect(emulator.port, { username: 'RootManageSharedAccessKey', password: 'right-key' });
    assert.ok(plain.is_open());
    plain.close();
    await assert.rejects(connect(emulator.port, { username: 'RootManageSharedAccessKey', password: 'wrong-key' }));
  },
);

/** Attaches a request sender and a reply receiver on `node`; resolves once both are open. */
async function requester(
  connection: any,
  node: string,
): Promise<{ sender: any; replies: any[]; next(): Promise<any> }> {
  const replies: any[] = [];
  const waiting: Array<(m: any) => void> = [];
  const receiver = connection.open_receiver({
    source: { address: node },
    target: { address: `${node}-replies` },
    credit_window: 10,
  });
  receiver.on('message', (ctx: any) => {
    const resolve = waiting.shift();
    if (resolve) resolve(ctx.message);
    else replies.push(ctx.message);
  });
  const sender = connection.open_sender({ target: { address: node } });
  await Promise.all([
    new Promise((r) => receiver.once('receiver_open', r)),
    new Promise((r) => sender.once('sendable', r)),
  ]);
  return {
    sender,
    replies,
    next: () =>
      replies.length > 0 ? Promise.resolve(replies.shift()) : new Promise((resolve) => waiting.push(resolve)),
  };
}

test(
  '$cbs and $management requests without reply_to are settled, then answered on the requester receiver of that ' +
    'node',
  async (t) => {
    const { emulator, hubName } = await startTestEmulator(t, { partitions: 2 });
    const connection = await connect(emulator.port, {});
    t.after(() => connection.close());
    // The frames this client receives, in wire order (rhea hands each decoded frame to connection.on_<name>).
    const received: string[] = [];
    for (const name of ['transfer', 'disposition']) {
      const original = connection[`on_${name}`];
      connection[`on_${name}`] = function (frame: any) {
        const p = frame.performative;
        received.push(
          name === 'transfer' ? `transfer on ${p.handle}` : `disposition of ${p.first}-${p.last ?? p.first}`,
        );
        return original.call(this, frame);
      };
    }
    const cbs = await requester(connection, '$cbs');
    const management = await requester(connection, '$management');
    cbs.sender.send({
      message_id: 'put-1',
      body: 'token',
      application_properties: { operation: 'put-token', name: `sb://127.0.0.1/${hubName}`, type: 'jwt' },
    });
    management.sender.send({
      message_id: 'read-1',
      body: 'x',
      application_properties: { operation: 'READ', name: hubName, type: 'com.microsoft:eventhub' },
    });
    const [cbsReply, managementReply] = await Promise.all([cbs.next(), management.next()]);
    assert.equal(cbsReply.correlation_id, 'put-1');
    assert.equal(cbsReply.application_properties['status-code'], 202);
    assert.equal(managementReply.correlation_id, 'read-1');
    assert.equal(managementReply.application_properties['status-code'], 200);
    assert.equal(managementReply.body.partition_count, 2);
    // The service settles a request before it answers (azure-uamqp-c fails an operation otherwise): each
    // request's disposition (delivery ids 0 and 1 of this session, one range or two) comes before any reply.
    const firstReply = received.findIndex((f) => f.startsWith('transfer'));
    const settledFirst = new Set<number>();
    for (const frame of received.slice(0, firstReply)) {
      const [from, to] = frame.replace('disposition of ', '').split('-').map(Number);
      for (let id = from!; id <= to!; id++) settledFirst.add(id);
    }
    assert.deepEqual([...settledFirst].sort(), [0, 1], `frames: ${received.join(', ')}`);
  },
);

test('a selector filter is found by its descriptor, whatever the client names it in the filter map', async (t) => {
  const { emulator, hubName } = await startTestEmulator(t, { partitions: 1 });
  emulator.append(hubName, '0', [{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
  const connection = await connect(emulator.port, {});
  t.after(() => connection.close());
  const types = (rhea as any).types;
  const expression = "amqp.annotation.x-opt-sequence-number > '0'";
  const filters = {
    // rhea's own helper: key `jms-selector`, numeric descriptor 0x0000468C00000004.
    'jms-selector': (rhea as any).filter.selector(expression),
    // Qpid Proton's Selector: key `selector`, symbolic descriptor.
    selector: {
      selector: types.described(types.wrap_symbol('apache.org:selector-filter:string'), types.wrap_string(expression)),
    },
  };
  for (const [name, filter] of Object.entries(filters)) {
    const receiver = connection.open_receiver({
      source: { address: `${hubName}/ConsumerGroups/$Default/Partitions/0`, filter },
      credit_window: 10,
    });
    const sequenceNumbers = await new Promise<number[]>((resolve, reject) => {
      const got: number[] = [];
      const timer = setTimeout(() => reject(new Error(`${name}: received ${got.join(',')} within 5 s`)), 5_000);
      receiver.on('message', (ctx: any) => {
        got.push(Number(ctx.message.message_annotations['x-opt-sequence-number']));
        if (got.length === 2) {
          clearTimeout(timer);
          resolve(got);
        }
      });
    });
    assert.deepEqual(sequenceNumbers, [1, 2], `${name}: events after sequence number 0`);
    receiver.close();
  }
});

test('a Detach that comes after the client ended its session is dropped; the connection stays open', async (t) => {
  const protocolErrors: string[] = [];
  const { emulator, hubName } = await startTestEmulator(t, {
    partitions: 1,
    onProtocolError: (m) => protocolErrors.push(m),
  });
  const connection = await connect(emulator.port, {});
  t.after(() => connection.close());
  // As the Python SDK closes a management client: End for the session, then Detach for a link of it.
  const session = connection.create_session();
  session.begin();
  const link = session.attach_receiver({ source: { address: '$management' }, target: { address: 'late-replies' } });
  await new Promise((resolve) => link.once('receiver_open', resolve));
  const channel = session.local.channel;
  session.close();
  await new Promise((resolve) => session.once('session_close', resolve));
  const frames = require('rhea/lib/frames.js');
  connection._write_frame(channel, frames.detach({ handle: link.local.handle, closed: true }));
  // The connection still serves requests afterwards.
  const management = await requester(connection, '$management');
  management.sender.send({
    message_id: 'after-late-detach',
    body: 'x',
    application_properties: { operation: 'READ', name: hubName, type: 'com.microsoft:eventhub' },
  });
  const reply = (await Promise.race([
    management.next(),
    new Promise((_, reject) =>
      setTimeout(
        () => reject(new Error(`no reply within 5 s; protocol errors: ${protocolErrors.join('; ')}`)),
        5_000,
      ).unref(),
    ),
  ])) as any;
  assert.equal(reply.correlation_id, 'after-late-detach');
  assert.ok(connection.is_open());
  assert.deepEqual(protocolErrors, []);
});

test("echoing a client's empty source or target leaves rhea's shared empty list alone", async (t) => {
  const { emulator } = await startTestEmulator(t, { partitions: 1 });
  const connection = await connect(emulator.port, {});
  t.after(() => connection.close());
  // An empty target (list0 on the wire), as the SDK's $cbs and $management receivers send it.
  const receiver = connection.open_receiver({ source: { address: '$management' }, target: {} });
  await new Promise((resolve) => receiver.once('receiver_open', resolve));
  const types = (rhea as any).types;
  assert.deepEqual(types.List0().value, [], 'rhea hands one array to every empty list in the process');
  assert.equal(receiver.remote.attach.target?.value?.length ?? 7, 7, 'the echoed target has 7 fields');
});
