/**
 * Frame-level conformance of the emulator's AMQP 1.0 output. Real clients (the Azure SDK and bare rhea)
 * talk to the emulator through a recording proxy; the test's own decoder (no rhea) reads every frame the
 * server sent, and the checks hold them to the AMQP 1.0 spec and to the form of the Azure service that
 * strict stacks (pyamqp, Qpid Proton, azure-uamqp-c) rely on: docs/emulator.md, "Frame conformance".
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import {
  EventHubConsumerClient,
  EventHubProducerClient,
  earliestEventPosition,
  type EventPosition,
} from '@azure/event-hubs';
import { plain, type AmqpFrame, type ProtocolHeader } from '../../helpers/amqp-frame-decoder.ts';
import { compositeField, describedName, field } from '../../helpers/amqp-frame-rules.ts';
import { startTestEmulator, type TestEmulator, type TestEmulatorOptions } from '../../helpers/emulator.ts';
import { startRecordingProxy, type RecordedUnit, type RecordingProxy } from '../../helpers/recording-proxy.ts';
import { closeable, openRheaConnection } from '../../helpers/rhea-connection.ts';
import { FAST_RETRY, collectEvents, waitFor } from './sdk-helpers.ts';
import {
  assertRefusal,
  checkServerFrames,
  closed,
  errorCondition,
  replyStatus,
  serverFrames,
  symbolOf,
  waitForDetach,
} from './frame-conformance-checks.ts';

const NO_RETRY = { ...FAST_RETRY, maxRetries: 0 };

interface Proxied extends TestEmulator {
  proxy: RecordingProxy;
  /** A connection string for `hub` (default: the test hub) that goes through the proxy. */
  via(hub?: string, replace?: [string, string]): string;
}

async function proxiedEmulator(t: TestContext, opts: TestEmulatorOptions = {}): Promise<Proxied> {
  const emulator = await startTestEmulator(t, opts);
  const proxy = await startRecordingProxy({ port: emulator.emulator.port });
  // Registered after the emulator's cleanup: clients close (through the proxy), the emulator stops, then this.
  t.after(() => proxy.close());
  const via = (hub = emulator.hubName, replace?: [string, string]): string => {
    const cs = emulator.emulator.connectionString(hub).replace(`:${emulator.emulator.port};`, `:${proxy.port};`);
    return replace ? cs.replace(replace[0], replace[1]) : cs;
  };
  return { ...emulator, proxy, via };
}

/** Closes the clients, waits for the server's answers, then runs the checks every session gets. */
async function finish(
  t: TestContext,
  { proxy }: Proxied,
  ...clients: Array<{ close(): Promise<unknown> }>
): Promise<void> {
  for (const client of clients.reverse()) await client.close();
  await closed(proxy);
  await checkServerFrames(t, proxy);
}

const headers = (proxy: RecordingProxy, from: 'client' | 'server', connection: number) =>
  proxy.units
    .filter((r) => r.from === from && r.connection === connection && r.unit.kind === 'header')
    .map((r) => (r.unit as ProtocolHeader).protocolId);

function serverOpen(proxy: RecordingProxy, connection: number): AmqpFrame {
  const open = proxy.frames('server', connection).find((f) => f.performative === 'open');
  assert.ok(open, `the server sent an open on connection ${connection}`);
  return open;
}

test(
  'SASL: the server offers MSSBCBS, PLAIN, ANONYMOUS, EXTERNAL; the Open carries the service limits; the bare AMQP ' +
    'header works',
  async (t) => {
    const e = await proxiedEmulator(t, { partitions: 1 });
    const producer = e.track(new EventHubProducerClient(e.via(), { retryOptions: FAST_RETRY }));
    assert.equal((await producer.getEventHubProperties()).name, e.hubName);
    const bare = await openRheaConnection(e.proxy.port);

    await t.test('SASL header, mechanisms in order, a two-field outcome, then the AMQP header', () => {
      const sasl = e.proxy.frames('server', 0).filter((f) => f.type === 1);
      assert.deepEqual(
        {
          headers: headers(e.proxy, 'server', 0),
          sasl: sasl.map((f) => `${f.performative}/${f.fields.length}`),
          mechanisms: plain(sasl[0]!.fields[0]!),
          code: field(sasl[1]!, 'code')?.value,
        },
        {
          headers: [3, 0],
          sasl: ['sasl-mechanisms/1', 'sasl-outcome/2'],
          mechanisms: ['MSSBCBS', 'PLAIN', 'ANONYMOUS', 'EXTERNAL'],
          code: 0,
        },
      );
    });
    const openSummary = (open: AmqpFrame) => ({
      fields: open.fields.length,
      'container-id': field(open, 'container-id')?.type,
      'max-frame-size': `${field(open, 'max-frame-size')?.type} ${field(open, 'max-frame-size')?.value}`,
      'channel-max': `${field(open, 'channel-max')?.type} ${field(open, 'channel-max')?.value}`,
      'idle-time-out':
        field(open, 'idle-time-out')?.type === 'uint' && Number(field(open, 'idle-time-out')!.value) > 0
          ? 'uint > 0'
          : field(open, 'idle-time-out')?.type,
    });
    const expectedOpen = {
      fields: 10,
      'container-id': 'string',
      'max-frame-size': 'uint 65536',
      'channel-max': 'ushort 4999',
      'idle-time-out': 'uint > 0',
    };
    await t.test('the Open: container-id, max-frame-size 65536, channel-max 4999, idle-time-out, all 10 fields', () => {
      assert.deepEqual(openSummary(serverOpen(e.proxy, 0)), expectedOpen);
    });
    await t.test('a client sending the bare AMQP header gets the AMQP header and the same Open, no SASL', () => {
      assert.deepEqual(headers(e.proxy, 'client', 1), [0]);
      assert.deepEqual(headers(e.proxy, 'server', 1), [0]);
      assert.equal(e.proxy.frames('server', 1).filter((f) => f.type === 1).length, 0);
      assert.deepEqual(openSummary(serverOpen(e.proxy, 1)), expectedOpen);
    });
    await finish(t, e, producer, closeable(bare));
  },
);

test('claims and management reads: $cbs put-token, hub and partition properties', async (t) => {
  const e = await proxiedEmulator(t, { partitions: 2 });
  const producer = e.track(new EventHubProducerClient(e.via(), { retryOptions: FAST_RETRY }));
  assert.deepEqual((await producer.getEventHubProperties()).partitionIds, ['0', '1']);
  assert.equal((await producer.getPartitionProperties('1')).partitionId, '1');
  await t.test('replies are transfers carrying status codes 202 ($cbs) and 200 ($management)', () => {
    const statuses = serverFrames(e.proxy)
      .filter((l) => l.frame.performative === 'transfer')
      .map((l) => replyStatus(l.frame));
    assert.ok(statuses.includes(202) && statuses.includes(200), `statuses ${JSON.stringify(statuses)}`);
  });
  await finish(t, e, producer);
});

test('producers: send to the hub and to a partition', async (t) => {
  const e = await proxiedEmulator(t, { partitions: 2 });
  const producer = e.track(new EventHubProducerClient(e.via(), { retryOptions: FAST_RETRY }));
  await producer.sendBatch([{ body: 'round robin' }]);
  await producer.sendBatch([{ body: 'keyed' }], { partitionKey: 'k' });
  await producer.sendBatch([{ body: 'to 1' }, { body: 'to 1 again' }], { partitionId: '1' });
  await t.test('each send is accepted by a settled disposition', () => {
    const dispositions = serverFrames(e.proxy).filter((l) => l.frame.performative === 'disposition');
    assert.ok(dispositions.length >= 3);
    for (const { frame } of dispositions) assert.equal(describedName(field(frame, 'state')!), 'accepted');
  });
  await finish(t, e, producer);
});

test('consumers: start at an offset, a sequence number and an enqueued time', async (t) => {
  const e = await proxiedEmulator(t, { partitions: 1 });
  e.emulator.append(
    e.hubName,
    '0',
    [0, 1, 2, 3, 4].map((i) => ({ body: JSON.stringify({ i }) })),
  );
  const consumer = e.track(new EventHubConsumerClient('$Default', e.via()));
  const all = await collectEvents(consumer, '0', earliestEventPosition, 5);
  const positions: EventPosition[] = [
    { offset: all[1]!.offset },
    { sequenceNumber: 2 },
    { enqueuedOn: new Date(all[0]!.enqueuedTimeUtc.getTime() - 1) },
  ];
  for (const position of positions) assert.ok((await collectEvents(consumer, '0', position, 1)).length >= 1);
  await t.test('events arrive in transfers on the consumer links', () => {
    assert.ok(serverFrames(e.proxy).filter((l) => l.frame.performative === 'transfer').length >= 8);
  });
  await finish(t, e, consumer);
});

/** Sends one request to `node` ($cbs or $management) from a bare rhea client, with no reply_to. */
async function requestWithoutReplyTo(
  e: Proxied,
  node: string,
  applicationProperties: Record<string, unknown>,
  body?: string,
): Promise<AmqpFrame> {
  const connection = await openRheaConnection(e.proxy.port, { username: 'RootManageSharedAccessKey' });
  e.track(closeable(connection));
  const receiver = connection.open_receiver({ source: { address: node }, credit_window: 10 });
  await new Promise((resolve) => receiver.once('receiver_open', resolve));
  const sender = connection.open_sender({ target: { address: node } });
  await new Promise((resolve) => sender.once('sendable', resolve));
  const before = e.proxy.units.length;
  sender.send({
    message_id: `${node}-request`,
    application_properties: applicationProperties,
    ...(body !== undefined ? { body } : {}),
  });
  const connectionIndex = e.proxy.connections - 1;
  // The reply link: the server's attach whose source is the node, on this connection.
  const replyAttach = e.proxy
    .frames('server', connectionIndex)
    .find(
      (f) => f.performative === 'attach' && symbolOf(compositeField(field(f, 'source'), 'source', 'address')) === node,
    );
  assert.ok(replyAttach, `the server attached a link with source ${node}`);
  const reply = await e.proxy.waitFor(
    (r) =>
      e.proxy.units.indexOf(r) >= before &&
      r.connection === connectionIndex &&
      r.from === 'server' &&
      r.unit.kind === 'frame' &&
      r.unit.performative === 'transfer' &&
      r.unit.channel === replyAttach.channel &&
      field(r.unit, 'handle')?.value === field(replyAttach, 'handle')?.value,
    3_000,
    `a reply from ${node} on the requester's receiver link`,
  );
  return reply.unit as AmqpFrame;
}

test("$cbs and $management answer a request without reply_to on the requester's receiver link", async (t) => {
  const e = await proxiedEmulator(t, { partitions: 1 });
  await t.test('$cbs put-token', async () => {
    const audience = `sb://127.0.0.1:${e.proxy.port}/${e.hubName}`;
    const putToken = { operation: 'put-token', name: audience, type: 'servicebus.windows.net:sastoken' };
    const reply = await requestWithoutReplyTo(
      e,
      '$cbs',
      putToken,
      'SharedAccessSignature sr=x&sig=y&se=9999999999&skn=z',
    );
    assert.equal(replyStatus(reply), 202);
  });
  await t.test('$management READ', async () => {
    const reply = await requestWithoutReplyTo(e, '$management', {
      operation: 'READ',
      name: e.hubName,
      type: 'com.microsoft:eventhub',
    });
    assert.equal(replyStatus(reply), 200);
  });
  await finish(t, e);
});

/**
 * Runs `provoke` (a client `client` of `address` that will be refused), waits for the detach with `condition`, checks
 * its form.
 */
async function refusal(
  t: TestContext,
  e: Proxied,
  name: string,
  condition: string,
  client: 'receiver' | 'sender',
  address: string,
  provoke: () => unknown,
): Promise<void> {
  await t.test(
    `${name}: an attach with a null ${client === 'receiver' ? 'source' : 'target'}, then a detach with ${condition}`,
    async () => {
      const since = e.proxy.units.length;
      void Promise.resolve(provoke()).catch(() => undefined);
      await waitForDetach(e.proxy, condition, since);
      assertRefusal(e.proxy, condition, client, address, since);
    },
  );
}

test('refusals: unknown hub, unknown consumer group, unknown partition, bad start filter', async (t) => {
  const e = await proxiedEmulator(t, { partitions: 2 });
  const clients: Array<{ close(): Promise<unknown> }> = [];
  const subscribe = (
    consumerGroup: string,
    hub: string,
    partitionId: string,
    startPosition: EventPosition = earliestEventPosition,
  ) => {
    const consumer = e.track(new EventHubConsumerClient(consumerGroup, e.via(hub), { retryOptions: NO_RETRY }));
    clients.push(consumer);
    const handlers = { processEvents: async () => undefined, processError: async () => undefined };
    clients.push(e.track(consumer.subscribe(partitionId, handlers, { startPosition, maxWaitTimeInSeconds: 1 })));
  };
  const send = (hub: string, partitionId: string) => {
    const producer = e.track(new EventHubProducerClient(e.via(hub), { retryOptions: NO_RETRY }));
    clients.push(producer);
    return producer.sendBatch([{ body: 'x' }], { partitionId });
  };
  await refusal(
    t,
    e,
    'a consumer of an unknown hub',
    'amqp:not-found',
    'receiver',
    'nosuchhub/ConsumerGroups/$Default/Partitions/0',
    () => subscribe('$Default', 'nosuchhub', '0'),
  );
  await refusal(t, e, 'a producer to an unknown hub', 'amqp:not-found', 'sender', 'nosuchhub/Partitions/0', () =>
    send('nosuchhub', '0'),
  );
  await refusal(
    t,
    e,
    'a consumer in an unknown consumer group',
    'amqp:not-found',
    'receiver',
    `${e.hubName}/ConsumerGroups/nosuchgroup/Partitions/0`,
    () => subscribe('nosuchgroup', e.hubName, '0'),
  );
  await refusal(
    t,
    e,
    'a consumer of an unknown partition',
    'com.microsoft:argument-out-of-range',
    'receiver',
    `${e.hubName}/ConsumerGroups/$Default/Partitions/9`,
    () => subscribe('$Default', e.hubName, '9'),
  );
  await refusal(
    t,
    e,
    'a producer to an unknown partition',
    'com.microsoft:argument-out-of-range',
    'sender',
    `${e.hubName}/Partitions/9`,
    () => send(e.hubName, '9'),
  );
  await refusal(
    t,
    e,
    'a start filter the service cannot parse',
    'com.microsoft:argument-error',
    'receiver',
    `${e.hubName}/ConsumerGroups/$Default/Partitions/1`,
    () => subscribe('$Default', e.hubName, '1', { offset: '1234-5566' }),
  );
  await finish(t, e, ...clients);
});

test(
  'refusals with SAS keys: a wrong key gets 401 from $cbs and fails SASL PLAIN, a link without a claim is ' + 'refused',
  async (t) => {
    const e = await proxiedEmulator(t, { partitions: 1, sasKeys: { sender: 'c2VjcmV0LWtleS1mb3ItdGVzdHM=' } });
    const wrongKey = e.track(
      new EventHubProducerClient(e.via(undefined, ['c2VjcmV0LWtleS1mb3ItdGVzdHM=', 'd3Jvbmc=']), {
        retryOptions: NO_RETRY,
      }),
    );
    await assert.rejects(wrongKey.getEventHubProperties(), (err: any) => err.code === 'UnauthorizedError');
    await t.test('the $cbs reply says 401', () => {
      const statuses = serverFrames(e.proxy)
        .filter((l) => l.frame.performative === 'transfer')
        .map((l) => replyStatus(l.frame));
      assert.deepEqual(statuses, [401]);
    });
    await t.test('SASL PLAIN with a wrong key: a sasl-outcome with code 1 (auth) and both fields', async () => {
      await assert.rejects(openRheaConnection(e.proxy.port, { username: 'sender', password: 'd3Jvbmc=' }));
      const outcome = e.proxy.frames('server', e.proxy.connections - 1).find((f) => f.performative === 'sasl-outcome');
      assert.deepEqual(outcome && { fields: outcome.fields.length, code: field(outcome, 'code')?.value }, {
        fields: 2,
        code: 1,
      });
    });
    const connection = await openRheaConnection(e.proxy.port, { username: 'sender' });
    const unclaimed = e.track(closeable(connection));
    await refusal(t, e, 'a producer link without a claim', 'amqp:unauthorized-access', 'sender', e.hubName, () =>
      connection.open_sender({ target: { address: e.hubName } }),
    );
    await refusal(
      t,
      e,
      'a consumer link without a claim',
      'amqp:unauthorized-access',
      'receiver',
      `${e.hubName}/ConsumerGroups/$Default/Partitions/0`,
      () => connection.open_receiver({ source: { address: `${e.hubName}/ConsumerGroups/$Default/Partitions/0` } }),
    );
    await finish(t, e, wrongKey, unclaimed);
  },
);

test('owner levels: a lower epoch is refused, a higher one detaches the owner with amqp:link:stolen', async (t) => {
  const e = await proxiedEmulator(t, { partitions: 1 });
  e.emulator.append(e.hubName, '0', [{ body: '"a"' }]);
  const clients: Array<{ close(): Promise<unknown> }> = [];
  const subscribe = (ownerLevel: number, received?: () => void) => {
    const consumer = e.track(new EventHubConsumerClient('$Default', e.via(), { retryOptions: NO_RETRY }));
    const handlers = {
      processEvents: async (events: unknown[]) => void (events.length > 0 && received?.()),
      processError: async () => undefined,
    };
    clients.push(
      consumer,
      e.track(
        consumer.subscribe('0', handlers, {
          startPosition: earliestEventPosition,
          ownerLevel,
          maxWaitTimeInSeconds: 1,
        }),
      ),
    );
  };
  let owning = false;
  subscribe(5, () => (owning = true));
  await waitFor(() => owning, 10_000, 'the owner (epoch 5) to receive');
  await refusal(
    t,
    e,
    'a lower owner level',
    'amqp:link:stolen',
    'receiver',
    `${e.hubName}/ConsumerGroups/$Default/Partitions/0`,
    () => subscribe(4),
  );
  await t.test(
    'the owner, stolen by a higher owner level, gets a detach with closed=true and a complete error',
    async () => {
      const stolenDetaches = () =>
        serverFrames(e.proxy).filter(
          (l) => l.frame.performative === 'detach' && errorCondition(field(l.frame, 'error')) === 'amqp:link:stolen',
        );
      const before = stolenDetaches().length;
      subscribe(6);
      await e.proxy.waitFor(() => stolenDetaches().length > before, 10_000, 'the stolen detach');
      const stolen = stolenDetaches().at(-1)!.frame;
      assert.equal(field(stolen, 'closed')?.value, true);
      assert.match(
        String(compositeField(field(stolen, 'error'), 'error', 'description')?.value),
        /higher epoch of '6'/,
      );
    },
  );
  await finish(t, e, ...clients);
});

test('a batch over 1 MB is refused with amqp:link:message-size-exceeded and a complete error', async (t) => {
  const e = await proxiedEmulator(t, { partitions: 1 });
  const producer = e.track(new EventHubProducerClient(e.via(), { retryOptions: NO_RETRY }));
  await assert.rejects(
    producer.sendBatch([{ body: Buffer.alloc(1_100_000, 7) }], { partitionId: '0' }),
    (err: any) => err.code === 'MessageTooLargeError',
  );
  await t.test('the error (in a rejected disposition or a detach) has condition, description and info', () => {
    const carrying = serverFrames(e.proxy)
      .map((l) => l.frame)
      .filter((f) => f.performative === 'disposition' || f.performative === 'detach');
    const errors = carrying.map((f) =>
      f.performative === 'detach' ? field(f, 'error') : compositeField(field(f, 'state'), 'rejected', 'error'),
    );
    const tooLarge = errors.filter((err) => errorCondition(err) === 'amqp:link:message-size-exceeded');
    assert.equal(tooLarge.length, 1);
    assert.equal(
      tooLarge[0]!.type === 'described' && tooLarge[0]!.value.type === 'list' ? tooLarge[0]!.value.value.length : -1,
      3,
    );
  });
  await finish(t, e, producer);
});

/**
 * A bare receiver on partition 0 whose credit goes out with its attach, in one write (a credit window would
 * wait for the server's attach). The events are there, so a server writing transfers before its attach
 * shows it: rhea then drops the connection ("Invalid handle"), so this resolves on a drop too.
 */
async function eagerReceiver(e: Proxied, credit: number): Promise<{ connection: any; received: () => number }> {
  const connection = await openRheaConnection(e.proxy.port);
  connection.on('disconnected', () => undefined);
  const receiver = connection.open_receiver({
    source: { address: `${e.hubName}/ConsumerGroups/$Default/Partitions/0` },
    credit_window: 0,
  });
  receiver.add_credit(credit);
  let received = 0;
  receiver.on('message', () => received++);
  await waitFor(() => received === credit || !connection.is_open(), 10_000, `${credit} deliveries`);
  return { connection, received: () => received };
}

test('a receiver that attaches and grants credit in one write gets the attach before any delivery', async (t) => {
  const e = await proxiedEmulator(t, { partitions: 1 });
  e.emulator.append(e.hubName, '0', [{ body: 'a' }, { body: 'b' }, { body: 'c' }]);
  const { connection, received } = await eagerReceiver(e, 3);
  await t.test('(precondition) the client sent its attach and its credit in one write', () => {
    const units = e.proxy.units.filter(
      (r) => r.from === 'client' && r.unit.kind === 'frame' && ['attach', 'flow'].includes(r.unit.performative ?? ''),
    );
    const reads = units.slice(0, 2).map((r) => `${(r.unit as AmqpFrame).performative} in read ${r.chunk}`);
    assert.deepEqual(reads, [`attach in read ${units[0]!.chunk}`, `flow in read ${units[0]!.chunk}`]);
  });
  await t.test('the client kept its connection and got every event', () =>
    assert.deepEqual({ open: connection.is_open(), received: received() }, { open: true, received: 3 }),
  );
  await finish(t, e, closeable(connection));
});

test('server-initiated frames: a fault detach, a forced close', async (t) => {
  const e = await proxiedEmulator(t, { partitions: 1 });
  e.emulator.append(e.hubName, '0', [{ body: 'a' }]);
  const connection = await openRheaConnection(e.proxy.port);
  connection.on('disconnected', () => undefined);
  const receiver = connection.open_receiver({
    source: { address: `${e.hubName}/ConsumerGroups/$Default/Partitions/0` },
    credit_window: 10,
  });
  let received = 0;
  receiver.on('message', () => received++);
  await waitFor(() => received === 1, 5_000, 'a delivery');
  assert.equal(
    e.emulator.faults.detachReceivers({ hub: e.hubName, partitionId: '0', condition: 'com.microsoft:server-busy' }),
    1,
  );
  await waitForDetach(e.proxy, 'com.microsoft:server-busy');
  assert.equal(e.emulator.faults.dropConnections({ condition: 'amqp:connection:forced' }), 1);
  const isClose = (r: RecordedUnit) =>
    r.from === 'server' && r.unit.kind === 'frame' && r.unit.performative === 'close';
  const close = (await e.proxy.waitFor(isClose, 5_000, 'the forced close')).unit as AmqpFrame;
  await t.test('the fault detach closes the link; the forced close carries its error', () => {
    const detach = e.proxy.frames('server', 0).find((f) => f.performative === 'detach')!;
    assert.equal(field(detach, 'closed')?.value, true);
    assert.equal(errorCondition(field(close, 'error')), 'amqp:connection:forced');
  });
  await checkServerFrames(t, e.proxy);
});

test('a receiver with more credit than its session window: deliveries stay within both', async (t) => {
  const e = await proxiedEmulator(t, { partitions: 1 });
  const count = 2_500; // above rhea's incoming window of 2048 transfers
  e.emulator.append(
    e.hubName,
    '0',
    Array.from({ length: count }, (_, i) => ({ body: `e${i}` })),
  );
  const { connection, received } = await eagerReceiver(e, count);
  await t.test('the client kept its connection and got every event', () =>
    assert.deepEqual({ open: connection.is_open(), received: received() }, { open: true, received: count }),
  );
  await finish(t, e, closeable(connection));
});
