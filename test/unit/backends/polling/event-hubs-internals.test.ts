/**
 * Fails when @azure/event-hubs changes under src/backends/polling/internal/event-hubs-internals.ts: the
 * installed version must be the one the file was written for, and the private field it reads must exist
 * on a real client (created without connecting). On a failure, re-read the SDK's sources for what the
 * workaround relies on, adjust the file and its version constant.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import {
  decodeSdkDeliveries,
  EVENT_HUBS_VERSION_WRITTEN_FOR,
  repairUnattachedLinkAddress,
  sdkConnectionId,
  settledByDisconnect,
} from '../../../../src/backends/polling/internal/event-hubs-internals.ts';
import { unconnectedClient } from './unconnected-client.ts';

const require = createRequire(import.meta.url);

test('the installed @azure/event-hubs is the version the workarounds were written for', () => {
  const installed = (require('@azure/event-hubs/package.json') as { version: string }).version;
  assert.equal(installed, EVENT_HUBS_VERSION_WRITTEN_FOR);
});

test('a client exposes its connection id at _context.connectionId, and it changes with a new client', async () => {
  const a = unconnectedClient();
  const b = unconnectedClient();
  try {
    const idA = sdkConnectionId(a);
    assert.equal(typeof idA, 'string');
    assert.ok(idA!.length > 0);
    assert.notEqual(sdkConnectionId(b), idA);
  } finally {
    await Promise.all([a.close(), b.close()]);
  }
});

test(
  "a client's connection is an EventEmitter at _context.connection, which settledByDisconnect listens " + 'on',
  async () => {
    const client = unconnectedClient();
    try {
      const connection = (client as unknown as { _context: { connection: { on: unknown; isOpen(): boolean } } })
        ._context.connection;
      assert.equal(typeof connection.on, 'function');
      assert.equal(connection.isOpen(), false);
      // Not open: nothing to wait for but the close itself.
      let closed = false;
      await settledByDisconnect(
        client,
        Promise.resolve().then(() => (closed = true)),
      );
      assert.ok(closed);
    } finally {
      await client.close();
    }
  },
);

test("a link not attached yet has an address of undefined instead of a getter that throws (core-amqp's cancel)", () => {
  const { Receiver } = require('rhea-promise') as { Receiver: { prototype: object } };
  const link = Object.getPrototypeOf(Receiver.prototype) as object;
  const address = () => Object.getOwnPropertyDescriptor(link, 'address')!.get!;
  const attaching = { source: undefined };
  repairUnattachedLinkAddress();
  assert.equal(address().call(attaching), undefined);
  assert.equal(address().call({ source: { address: 'hub/$cbs' } }), 'hub/$cbs', 'an attached link keeps its address');
  repairUnattachedLinkAddress();
  assert.equal(address().call({ source: { address: 'x' } }), 'x', 'repairing twice changes nothing');
});

test('the installed rhea-promise reads a link address from a source it may not have yet (hence the repair)', () => {
  const source = require('node:fs').readFileSync(require.resolve('rhea-promise/dist/lib/link.js'), 'utf8') as string;
  assert.match(source, /get address\(\) \{\s*return this\.source\.address;/, 'the getter 3.0.3 has');
});

test("a client's rhea connection is at _context.connection._connection, where our decoder can hook it", async () => {
  // The deliveries themselves are checked in test/integration/backends/polling-fast-decode.test.ts.
  const client = unconnectedClient();
  try {
    assert.equal(decodeSdkDeliveries(client), true, 'the SDK and rhea have the shape the hook needs');
    assert.equal(decodeSdkDeliveries(client), true, 'hooked once, and says so again');
  } finally {
    await client.close();
  }
});
