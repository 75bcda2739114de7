/**
 * The emulator's faster frame writer (src/emulator/internal/rhea-server-output.ts) applies to its own
 * server connections only: rhea is one module instance per process, and clients running beside an
 * emulator (the SDK in tests, the streaming backend through rhea-promise, `npm start`) must keep rhea's
 * stock writer.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Connection as PromiseConnection } from 'rhea-promise';
import { writesPresizedFrames } from '../../../src/emulator/internal/rhea-server-output.ts';
import type { ConnectionRegistry } from '../../../src/emulator/internal/connection-registry.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';

const require = createRequire(import.meta.url);
const rhea = require('rhea');
const frames = require('rhea/lib/frames.js');
const Transport = require('rhea/lib/transport.js');
const stockWriteFrame = frames.write_frame;
const stockTransportWrite = Transport.prototype.write;
const EVENTS = 50;

/** Receives `count` events from partition 0 with a bare rhea client; resolves with the open connection. */
function receive(port: number, hub: string, count: number): Promise<{ connection: any; bodies: string[] }> {
  const container = rhea.create_container();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`fewer than ${count} events within 10 s`)), 10_000);
    const bodies: string[] = [];
    const connection = container.connect({ host: '127.0.0.1', port, reconnect: false });
    const earliest = rhea.types.wrap_described("amqp.annotation.x-opt-offset > '-1'", 0x468c00000004);
    const source = {
      address: `${hub}/ConsumerGroups/$Default/Partitions/0`,
      filter: { 'apache.org:selector-filter:string': earliest },
    };
    connection.open_receiver({ source, credit_window: 10 });
    container.on('message', (ctx: any) => {
      bodies.push(Buffer.from(ctx.message.body.content ?? ctx.message.body).toString());
      if (bodies.length === count) {
        clearTimeout(timer);
        resolve({ connection, bodies });
      }
    });
    container.on('disconnected', (ctx: any) => reject(ctx.error ?? new Error('disconnected')));
  });
}

test('an emulator in the same process leaves client-side rhea connections on the stock frame writer', async (t) => {
  const { emulator, hubName } = await startTestEmulator(t, { partitions: 1 });
  emulator.append(
    hubName,
    '0',
    Array.from({ length: EVENTS }, (_, i) => ({ body: `event ${i}`.padEnd(1500, '.') })),
  );
  const { connection: client, bodies } = await receive(emulator.port, hubName, EVENTS);
  t.after(() => client.close());
  assert.deepEqual(
    bodies.map((b) => b.split('.')[0]),
    Array.from({ length: EVENTS }, (_, i) => `event ${i}`),
  );

  const promiseClient = new PromiseConnection({ host: '127.0.0.1', port: emulator.port, reconnect: false });
  await promiseClient.open();
  t.after(() => promiseClient.close());

  // rhea's shared functions are untouched...
  assert.equal(frames.write_frame, stockWriteFrame);
  assert.equal(Transport.prototype.write, stockTransportWrite);
  // ...the clients' transports write the stock way (no own writer)...
  for (const connection of [client, (promiseClient as any)._connection]) {
    assert.equal(writesPresizedFrames(connection), false);
    assert.equal(Object.hasOwn(connection.amqp_transport, 'write'), false);
    assert.equal(connection.amqp_transport.write, stockTransportWrite);
  }
  // ...while each of the emulator's own connections (one per client) has the presized writer.
  const serverConnections = (emulator as unknown as { connections: ConnectionRegistry }).connections.all();
  assert.equal(serverConnections.length, 2);
  for (const connection of serverConnections) assert.ok(writesPresizedFrames(connection));
});
