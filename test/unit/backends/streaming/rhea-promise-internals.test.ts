/**
 * Fails when rhea-promise or rhea change under src/backends/streaming/internal/rhea-promise-internals.ts:
 * the installed versions must be those the file was written for, and a receiver's `source` must still be
 * the peer's attach source (rhea's `remote.attach.source`, read through rhea-promise's Link), which is how
 * a refused attach is told from an accepted one. test/integration/backends/misconfiguration.test.ts
 * shows the whole behaviour against the emulator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { EventEmitter } from 'node:events';
import { Connection as PromiseConnection, Receiver as PromiseReceiver, type Connection } from 'rhea-promise';
import { message as rheaMessage } from 'rhea-promise';
import {
  RHEA_PROMISE_VERSION_WRITTEN_FOR,
  RHEA_VERSION_WRITTEN_FOR,
  UNDECODED_FORMAT,
  deliverUndecoded,
  settledByDisconnect,
  undecodedDeliveryMismatch,
} from '../../../../src/backends/streaming/internal/rhea-promise-internals.ts';

const require = createRequire(import.meta.url);

test('the installed rhea-promise and rhea are the versions the workaround was written for', () => {
  assert.equal((require('rhea-promise/package.json') as { version: string }).version, RHEA_PROMISE_VERSION_WRITTEN_FOR);
  assert.equal((require('rhea/package.json') as { version: string }).version, RHEA_VERSION_WRITTEN_FOR);
});

test("a rhea receiver's source and error are the peer's attach source and detach error", () => {
  type RheaLink = {
    remote: { attach?: { source: unknown }; detach?: { error: unknown } };
    source: unknown;
    error: unknown;
  };
  const { Receiver: RheaReceiver } = require('rhea/lib/link.js') as {
    Receiver: new (session: unknown, name: string, handle: number, options: unknown) => RheaLink;
  };
  // A session stub is enough: the constructor only records it.
  const link = new RheaReceiver({ connection: {}, get_option: (_: string, d: unknown) => d }, 'r', 0, {
    credit_window: 0,
  });
  link.remote.attach = { source: null };
  assert.equal(link.source, null);
  link.remote.attach = { source: { address: 'hub/ConsumerGroups/$Default/Partitions/0' } };
  assert.deepEqual(link.source, { address: 'hub/ConsumerGroups/$Default/Partitions/0' });
  const error = { condition: 'amqp:not-found', description: 'x' };
  link.remote.detach = { error };
  assert.equal(link.error, error);
});

test("rhea-promise's Receiver reads source and error from the rhea link it wraps", () => {
  const link = Object.create(PromiseReceiver.prototype) as { _link: object; source: unknown; error: unknown };
  const error = { condition: 'amqp:not-found', description: 'x' };
  link._link = { source: null, error };
  assert.equal(link.source, null);
  assert.equal(link.error, error);
  for (const method of ['isRemoteOpen', 'isOpen', 'close', 'remove', 'once', 'removeListener'] as const) {
    assert.equal(typeof (PromiseReceiver.prototype as unknown as Record<string, unknown>)[method], 'function', method);
  }
});

test(
  "rhea-promise's close() still stops listening on 'disconnected' without settling (settledByDisconnect's " + 'reason)',
  () => {
    // When this fails, rhea-promise settles its close on a disconnect by itself: settledByDisconnect can go.
    for (const [name, source] of [
      ['Connection.close', String(PromiseConnection.prototype.close)],
      ['Link.close', String(PromiseReceiver.prototype.close)],
    ] as const) {
      const handler = /const onDisconnected = \([^)]*\) => \{([\s\S]*?)\n\s*\};/.exec(source)?.[1];
      assert.ok(handler !== undefined, `${name} has an onDisconnected handler`);
      assert.ok(!/resolve\(|reject\(/.test(handler), `${name}'s onDisconnected settles now`);
    }
  },
);

test(
  'settledByDisconnect settles a pending close when the connection is disconnected, with one listener however many ' +
    'wait',
  async () => {
    const connection = new EventEmitter();
    const never = new Promise<void>(() => undefined);
    const pending = Array.from({ length: 50 }, () => settledByDisconnect(connection as unknown as Connection, never));
    assert.equal(
      connection.listenerCount('disconnected'),
      1,
      'one listener for all waiters (no MaxListenersExceededWarning)',
    );
    connection.emit('disconnected', {});
    assert.deepEqual(new Set(await Promise.all(pending)), new Set([true]));
    assert.equal(await settledByDisconnect(connection as unknown as Connection, Promise.resolve()), false);
    assert.equal(await settledByDisconnect(connection as unknown as Connection, Promise.reject(new Error('x'))), false);
    assert.equal(connection.listenerCount('disconnected'), 1);
  },
);

interface TransferFields {
  readonly deliveryId: number;
  readonly settled?: boolean;
  readonly more?: boolean;
  readonly payload: Buffer;
}

/**
 * Transfers through a real rhea Session (stub connection and link): as rhea handles them (`rhea`), marked by
 * `deliverUndecoded` (`undecoded`), or with a direct handler too (`direct`). What the handler got, what the link
 * dispatched, and the counts rhea keeps.
 */
function transferThroughSession(mode: 'rhea' | 'undecoded' | 'direct', transfers: readonly TransferFields[]) {
  const Session = require('rhea/lib/session.js') as new (
    connection: unknown,
    channel: number,
  ) => Record<string, unknown> & {
    incoming: { next_transfer_id: number; next_delivery_id?: number };
    remote: { handles: Record<number, unknown> };
  };
  const frames = require('rhea/lib/frames.js') as { transfer(fields: object): unknown };
  let registered = 0;
  const session = new Session({ options: {}, _register: () => registered++ }, 0);
  const dispatched: { message: unknown; format?: unknown }[] = [];
  const link = {
    credit: 10,
    delivery_count: 0,
    local: { attach: { rcv_settle_mode: 0 } },
    is_remote_open: () => true,
    _context: (c: object) => c,
    dispatch: (_event: string, context: { message: unknown; format?: unknown }) => dispatched.push(context),
  };
  session.remote.handles = { 0: link };
  session._get_link = () => link;
  const delivered: Buffer[] = [];
  const receiver = { session: { _session: session }, _link: link } as unknown as PromiseReceiver;
  const marked =
    mode !== 'rhea' && deliverUndecoded(receiver, mode === 'direct' ? (bytes) => delivered.push(bytes) : undefined);
  if (mode !== 'rhea') assert.equal(marked, true);
  for (const t of transfers) {
    const performative = frames.transfer({
      handle: 0,
      delivery_id: t.deliveryId,
      delivery_tag: Buffer.from(`t${t.deliveryId}`),
      message_format: 0,
      settled: t.settled ?? true,
      more: t.more ?? false,
    });
    (session.on_transfer as (frame: unknown) => void)({ type: 0, channel: 0, performative, payload: t.payload });
  }
  return {
    marked,
    delivered,
    dispatched,
    registered,
    counts: {
      nextTransferId: session.incoming.next_transfer_id,
      nextDeliveryId: session.incoming.next_delivery_id,
      credit: link.credit,
      deliveryCount: link.delivery_count,
    },
  };
}

const encoded = (text: string): Buffer =>
  rheaMessage.encode({ body: rheaMessage.data_section(Buffer.from(text)) }) as Buffer;

test("deliverUndecoded makes rhea hand one session's format-0 messages over as bytes, marked", () => {
  assert.equal(undecodedDeliveryMismatch(), undefined);
  const one = [{ deliveryId: 0, payload: encoded('event') }];
  const { marked, dispatched } = transferThroughSession('undecoded', one);
  assert.equal(marked, true);
  assert.equal(dispatched.length, 1);
  const context = dispatched[0]!;
  assert.ok(Buffer.isBuffer(context.message));
  assert.equal(context.format, UNDECODED_FORMAT);
  assert.deepEqual(rheaMessage.decode(context.message as Buffer).body.content, Buffer.from('event'));
  // Another session (another link or client in the process) still gets rhea's decoded message.
  const plain = transferThroughSession('rhea', one).dispatched;
  assert.equal(plain.length, 1);
  assert.ok(!Buffer.isBuffer(plain[0]!.message));
  assert.deepEqual((plain[0]!.message as { body: { content: Buffer } }).body.content, Buffer.from('event'));
});

test("with a handler, pre-settled single-frame messages go straight to it; rhea's counts stay rhea's", () => {
  const transfers = Array.from({ length: 5 }, (_, i) => ({ deliveryId: 7 + i, payload: encoded(`event ${i}`) }));
  const viaRhea = transferThroughSession('undecoded', transfers);
  const direct = transferThroughSession('direct', transfers);
  assert.equal(viaRhea.dispatched.length, 5);
  assert.deepEqual(direct.dispatched, [], 'no message event');
  assert.deepEqual(
    direct.delivered,
    transfers.map((t) => t.payload),
  );
  assert.deepEqual(direct.counts, viaRhea.counts);
  assert.deepEqual(direct.counts, { nextTransferId: 5, nextDeliveryId: 12, credit: 5, deliveryCount: 5 });
  assert.ok(direct.registered >= 1, "rhea's processing of the session (its window and flow) is scheduled");
});

test("unsettled messages and messages in several frames take rhea's way, in order, undecoded", () => {
  const whole = encoded('in two frames');
  const transfers = [
    { deliveryId: 0, payload: encoded('direct') },
    { deliveryId: 1, settled: false, payload: encoded('unsettled') },
    { deliveryId: 2, more: true, payload: whole.subarray(0, 5) },
    { deliveryId: 2, payload: whole.subarray(5) },
    { deliveryId: 3, payload: encoded('direct again') },
  ];
  const direct = transferThroughSession('direct', transfers);
  assert.deepEqual(direct.delivered, [transfers[0]!.payload, transfers[4]!.payload]);
  assert.deepEqual(
    direct.dispatched.map((c) => [c.format, rheaMessage.decode(c.message as Buffer).body.content.toString()]),
    [
      [UNDECODED_FORMAT, 'unsettled'],
      [UNDECODED_FORMAT, 'in two frames'],
    ],
  );
  assert.deepEqual(direct.counts, transferThroughSession('undecoded', transfers).counts);
});

test('a delivery out of sequence still fails as rhea fails it', () => {
  assert.throws(
    () =>
      transferThroughSession('direct', [
        { deliveryId: 0, payload: encoded('a') },
        { deliveryId: 5, payload: encoded('b') },
      ]),
    /frame sequence error/,
  );
});
