import { test } from 'node:test';
import assert from 'node:assert/strict';
import { connect, createServer, type Socket } from 'node:net';
import { startRecordingProxy } from '../../helpers/recording-proxy.ts';

const AMQP_HEADER = Buffer.from('414d515000010000', 'hex');
// close() with no fields: size 12, doff 2, type 0, channel 0, descriptor 0x18, list0.
const CLOSE = Buffer.from('0000000c0200000000531845', 'hex');

test('the proxy forwards both directions unchanged and records what each side sent, in order', async (t) => {
  // A stand-in server: answers the header with its own and a close split over two writes.
  const server = createServer((socket) => {
    socket.once('data', () => {
      socket.write(Buffer.concat([AMQP_HEADER, CLOSE.subarray(0, 5)]));
      setImmediate(() => socket.end(CLOSE.subarray(5)));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.after(() => server.close());
  const proxy = await startRecordingProxy({ port: (server.address() as { port: number }).port });
  t.after(() => proxy.close());

  const client: Socket = connect({ host: '127.0.0.1', port: proxy.port });
  const received: Buffer[] = [];
  client.on('data', (chunk) => received.push(chunk));
  const ended = new Promise((resolve) => client.once('end', resolve));
  // The header and an empty frame (a heartbeat), then a frame with an impossible data offset.
  client.write(
    Buffer.concat([AMQP_HEADER, Buffer.from('0000000802000000', 'hex'), Buffer.from('0000000801000000', 'hex')]),
  );
  await proxy.waitFor((r) => r.from === 'server' && r.unit.kind === 'frame', 5_000, 'the server close');
  await ended;
  client.destroy();

  assert.deepEqual(Buffer.concat(received), Buffer.concat([AMQP_HEADER, CLOSE]), 'bytes arrive unchanged');
  assert.deepEqual(
    proxy.units.map(
      (r) =>
        `${r.from} ${r.connection} ` +
        `${r.unit.kind === 'header' ? `header ${r.unit.protocolId}` : (r.unit.performative ?? 'empty')}`,
    ),
    ['client 0 header 0', 'client 0 empty', 'server 0 header 0', 'server 0 close'],
  );
  assert.equal(proxy.frames('server', 0).length, 1);
  assert.equal(proxy.connections, 1);
  assert.deepEqual(
    proxy.errors,
    ['connection 0 from client: frame data offset 1 (×4 bytes) outside a frame of 8 bytes'],
    'a decoding error is reported, and what came before it kept',
  );
});
