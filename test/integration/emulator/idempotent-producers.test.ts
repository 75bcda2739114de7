import { test } from 'node:test';
import assert from 'node:assert/strict';
import rhea from 'rhea';
import { EventHubBufferedProducerClient, EventHubProducerClient, type EventData } from '@azure/event-hubs';
import { startTestEmulator } from '../../helpers/emulator.ts';

const { types } = rhea as any;
const CAPABILITY = 'com.microsoft:idempotent-producer';
const EPOCH = 'com.microsoft:producer-epoch';
const ID = 'com.microsoft:producer-id';
const SEQ = 'com.microsoft:producer-sequence-number';

function connect(port: number): Promise<any> {
  const container = (rhea as any).create_container();
  return new Promise((resolve, reject) => {
    container.once('connection_open', (ctx: any) => resolve(ctx.connection));
    container.once('disconnected', (ctx: any) => reject(ctx.error ?? new Error('disconnected')));
    container.connect({ host: '127.0.0.1', port, reconnect: false });
  });
}

/** Attaches an idempotent producer link to a partition; resolves with the link and the reply's properties. */
function attachProducer(
  connection: any,
  address: string,
  properties: Record<string, unknown>,
): Promise<{ link: any; reply: any }> {
  return new Promise((resolve, reject) => {
    const link = connection.open_sender({
      target: { address },
      desired_capabilities: [CAPABILITY],
      properties,
      autosettle: false,
    });
    link.once('sendable', () => resolve({ link, reply: link.remote.attach.properties }));
    link.once('sender_error', (ctx: any) => reject(ctx.sender.remote.detach?.error ?? new Error('refused')));
  });
}

/**
 * Sends one event stamped as an idempotent producer does; resolves with the outcome's error condition (or 'accepted').
 */
function send(link: any, id: number, epoch: number, seq: number): Promise<string> {
  return new Promise((resolve) => {
    const delivery = link.send({
      body: 'x',
      message_annotations: { [ID]: types.wrap_long(id), [EPOCH]: types.wrap_short(epoch), [SEQ]: types.wrap_int(seq) },
    });
    const done = (ctx: any) => {
      if (ctx.delivery !== delivery) return;
      resolve(
        ctx.delivery.remote_state?.error
          ? `${ctx.delivery.remote_state.error.condition}: ${ctx.delivery.remote_state.error.description}`
          : 'accepted',
      );
    };
    link.on('accepted', done);
    link.on('rejected', done);
  });
}

test(
  'idempotent producers: ids assigned at attach, rising sequence numbers, the newest epoch owns the ' + 'producer',
  async (t) => {
    const { emulator, hubName, track } = await startTestEmulator(t, { partitions: 2 });
    const connection = await connect(emulator.port);
    t.after(() => connection.close());
    const address = `${hubName}/Partitions/0`;
    const first = await attachProducer(connection, address, {});
    const id = Number(first.reply[ID]);
    assert.deepEqual([Number(first.reply[EPOCH]), Number(first.reply[SEQ])], [0, 0]);
    assert.equal(await send(first.link, id, 0, 1), 'accepted');
    assert.equal(await send(first.link, id, 0, 2), 'accepted');
    // A retry of the last batch (as after a lost acknowledgement) is accepted but not stored twice;
    // anything older is refused.
    assert.equal(await send(first.link, id, 0, 2), 'accepted');
    assert.match(await send(first.link, id, 0, 1), /^com\.microsoft:out-of-order-sequence: .*old sequence/);
    const producer = track(new EventHubProducerClient(emulator.connectionString(hubName)));
    assert.equal((await producer.getPartitionProperties('0')).lastEnqueuedSequenceNumber, 1, 'two events stored');

    const second = await attachProducer(connection, address, {
      [EPOCH]: types.wrap_short(1),
      [ID]: types.wrap_long(id),
      [SEQ]: types.wrap_int(2),
    });
    assert.equal(Number(second.reply[EPOCH]), 1);
    assert.equal(await send(second.link, id, 1, 3), 'accepted');
    assert.match(await send(first.link, id, 0, 4), /^com\.microsoft:producer-epoch-stolen: .*Received:0 Current:1/);
    await assert.rejects(
      attachProducer(connection, `${hubName}/Partitions/1`, { [EPOCH]: types.wrap_short(-1), [ID]: null, [SEQ]: null }),
      (err: any) =>
        err.condition === 'com.microsoft:argument-out-of-range' &&
        /Invalid range for idempotent producer state/.test(err.description),
    );
  },
);

test('the SDK publishes idempotently (enableIdempotentRetries) and its events land once each', async (t) => {
  const { connectionString, track } = await startTestEmulator(t, { partitions: 2 });
  const sent: EventData[] = [];
  const producer = track(
    new EventHubBufferedProducerClient(connectionString, {
      enableIdempotentRetries: true,
      onSendEventsErrorHandler: async (ctx) => {
        throw ctx.error;
      },
      onSendEventsSuccessHandler: async (ctx) => {
        sent.push(...(ctx.events as EventData[]));
      },
    }),
  );
  for (let i = 0; i < 3; i++) await producer.enqueueEvent({ body: `e${i}` }, { partitionId: '1' });
  await producer.flush();
  await producer.enqueueEvent({ body: 'e3' }, { partitionId: '1' });
  await producer.flush();
  assert.deepEqual(
    sent.map((e) => e.body),
    ['e0', 'e1', 'e2', 'e3'],
  );
  assert.equal((await producer.getPartitionProperties('1')).lastEnqueuedSequenceNumber, 3);
});

test(
  'with ackDelayMs a disconnect can lose the acknowledgement; the retried batch is accepted and stored ' + 'once',
  async (t) => {
    // Long enough that the connection is surely dropped before the first acknowledgement is due.
    const { emulator, hubName, track } = await startTestEmulator(t, { partitions: 1, ackDelayMs: 2_000 });
    const producer = track(new EventHubProducerClient(emulator.connectionString(hubName)));
    assert.equal((await producer.getPartitionProperties('0')).isEmpty, true);
    const address = `${hubName}/Partitions/0`;
    const first = await connect(emulator.port);
    const { link, reply } = await attachProducer(first, address, {});
    const id = Number(reply[ID]);
    let acknowledged = false;
    link.on('accepted', () => (acknowledged = true));
    link.send({
      body: 'x',
      message_annotations: { [ID]: types.wrap_long(id), [EPOCH]: types.wrap_short(0), [SEQ]: types.wrap_int(1) },
    });
    // Stored at once, acknowledged only after the delay: drop the connection in between.
    while ((await producer.getPartitionProperties('0')).isEmpty) await new Promise((r) => setTimeout(r, 20));
    first.close();
    assert.equal(acknowledged, false);
    // A reconnecting idempotent producer resends the batch with the same sequence number.
    const second = await connect(emulator.port);
    t.after(() => second.close());
    const retry = await attachProducer(second, address, {
      [EPOCH]: types.wrap_short(0),
      [ID]: types.wrap_long(id),
      [SEQ]: types.wrap_int(0),
    });
    const outcome = new Promise<string>((resolve) => {
      retry.link.once('accepted', () => resolve('accepted'));
      retry.link.once('rejected', (ctx: any) => resolve(String(ctx.delivery.remote_state?.error?.condition)));
    });
    retry.link.send({
      body: 'x',
      message_annotations: { [ID]: types.wrap_long(id), [EPOCH]: types.wrap_short(0), [SEQ]: types.wrap_int(1) },
    });
    assert.equal(await outcome, 'accepted');
    assert.equal((await producer.getPartitionProperties('0')).lastEnqueuedSequenceNumber, 0, 'stored once');
  },
);
