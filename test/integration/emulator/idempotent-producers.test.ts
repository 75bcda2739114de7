import { test } from 'node:test';
import assert from 'node:assert/strict';
import rhea from 'rhea';
import { EventHubBufferedProducerClient, type EventData } from '@azure/event-hubs';
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
function attachProducer(connection: any, address: string, properties: Record<string, unknown>): Promise<{ link: any; reply: any }> {
  return new Promise((resolve, reject) => {
    const link = connection.open_sender({ target: { address }, desired_capabilities: [CAPABILITY], properties, autosettle: false });
    link.once('sendable', () => resolve({ link, reply: link.remote.attach.properties }));
    link.once('sender_error', (ctx: any) => reject(ctx.sender.remote.detach?.error ?? new Error('refused')));
  });
}

/** Sends one event stamped as an idempotent producer does; resolves with the outcome's error condition (or 'accepted'). */
function send(link: any, id: number, epoch: number, seq: number): Promise<string> {
  return new Promise((resolve) => {
    const delivery = link.send({
      body: 'x',
      message_annotations: { [ID]: types.wrap_long(id), [EPOCH]: types.wrap_short(epoch), [SEQ]: types.wrap_int(seq) },
    });
    const done = (ctx: any) => {
      if (ctx.delivery !== delivery) return;
      resolve(ctx.delivery.remote_state?.error ? `${ctx.delivery.remote_state.error.condition}: ${ctx.delivery.remote_state.error.description}` : 'accepted');
    };
    link.on('accepted', done);
    link.on('rejected', done);
  });
}

test('idempotent producers: ids assigned at attach, rising sequence numbers, the newest epoch owns the producer', async (t) => {
  const { emulator, hubName } = await startTestEmulator(t, { partitions: 2 });
  const connection = await connect(emulator.port);
  t.after(() => connection.close());
  const address = `${hubName}/Partitions/0`;
  const first = await attachProducer(connection, address, {});
  const id = Number(first.reply[ID]);
  assert.deepEqual([Number(first.reply[EPOCH]), Number(first.reply[SEQ])], [0, 0]);
  assert.equal(await send(first.link, id, 0, 1), 'accepted');
  assert.match(await send(first.link, id, 0, 1), /^com\.microsoft:out-of-order-sequence: .*old sequence/);

  const second = await attachProducer(connection, address, { [EPOCH]: types.wrap_short(1), [ID]: types.wrap_long(id), [SEQ]: types.wrap_int(1) });
  assert.equal(Number(second.reply[EPOCH]), 1);
  assert.equal(await send(second.link, id, 1, 2), 'accepted');
  assert.match(await send(first.link, id, 0, 3), /^com\.microsoft:producer-epoch-stolen: .*Received:0 Current:1/);
  await assert.rejects(attachProducer(connection, `${hubName}/Partitions/1`, { [EPOCH]: types.wrap_short(-1), [ID]: null, [SEQ]: null }),
    (err: any) => err.condition === 'com.microsoft:argument-out-of-range' && /Invalid range for idempotent producer state/.test(err.description));
});

test('the SDK publishes idempotently (enableIdempotentRetries) and its events land once each', async (t) => {
  const { connectionString, track } = await startTestEmulator(t, { partitions: 2 });
  const sent: EventData[] = [];
  const producer = track(new EventHubBufferedProducerClient(connectionString, {
    enableIdempotentRetries: true,
    onSendEventsErrorHandler: async (ctx) => { throw ctx.error; },
    onSendEventsSuccessHandler: async (ctx) => { sent.push(...ctx.events as EventData[]); },
  }));
  for (let i = 0; i < 3; i++) await producer.enqueueEvent({ body: `e${i}` }, { partitionId: '1' });
  await producer.flush();
  await producer.enqueueEvent({ body: 'e3' }, { partitionId: '1' });
  await producer.flush();
  assert.deepEqual(sent.map((e) => e.body), ['e0', 'e1', 'e2', 'e3']);
  assert.equal((await producer.getPartitionProperties('1')).lastEnqueuedSequenceNumber, 3);
});
