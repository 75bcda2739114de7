/**
 * Checks of the frames the emulator sent, as recorded by the recording proxy and decoded by the test's
 * own AMQP decoder: what frame-conformance.test.ts asserts for every session it runs.
 */
import type { TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { decodeAll, plain, type AmqpFrame, type AmqpValue } from '../../helpers/amqp-frame-decoder.ts';
import { checkFrameFields, compositeField, field, summarize, type Finding } from '../../helpers/amqp-frame-rules.ts';
import { checkSentOrder } from '../../helpers/amqp-link-order.ts';
import { checkServerAgainstClient } from '../../helpers/amqp-peer-rules.ts';
import type { RecordedUnit, RecordingProxy } from '../../helpers/recording-proxy.ts';

/**
 * A server frame and where it was: its connection, its index among that connection's server frames and
 * its position in the whole recording (`unit`, an index into `proxy.units`).
 */
export interface Located {
  connection: number;
  index: number;
  unit: number;
  frame: AmqpFrame;
}

/** The server's frames of every connection, in recording order. */
export function serverFrames(proxy: RecordingProxy): Located[] {
  const located: Located[] = [];
  const counts = new Map<number, number>();
  proxy.units.forEach((r, unit) => {
    if (r.from !== 'server' || r.unit.kind !== 'frame') return;
    const index = counts.get(r.connection) ?? 0;
    counts.set(r.connection, index + 1);
    located.push({ connection: r.connection, index, unit, frame: r.unit });
  });
  return located;
}

export const symbolOf = (v: AmqpValue | undefined): string | undefined =>
  v?.type === 'symbol' || v?.type === 'string' ? v.value : undefined;

/** The rule for the server's attach replies: `properties` (a map, empty is fine) and `max-message-size`. */
function attachReplyFindings(frame: AmqpFrame): Finding[] {
  const findings: Finding[] = [];
  if (frame.performative !== 'attach') return findings;
  if (field(frame, 'properties')?.type !== 'map') {
    findings.push({ kind: 'complete', path: 'attach.properties', message: 'attach reply without a properties map' });
  }
  if (field(frame, 'max-message-size')?.type !== 'ulong') {
    findings.push({
      kind: 'complete',
      path: 'attach.max-message-size',
      message: 'attach reply without max-message-size',
    });
  }
  return findings;
}

/** Every finding about the server's frames, on every connection. */
export function serverFindings(proxy: RecordingProxy): Finding[] {
  const findings: Finding[] = [];
  for (let connection = 0; connection < proxy.connections; connection++) {
    const frames = proxy.frames('server', connection);
    for (const frame of frames) findings.push(...checkFrameFields(frame), ...attachReplyFindings(frame));
    const inOrder = [
      ...checkSentOrder(frames),
      ...checkServerAgainstClient(proxy.units.filter((r) => r.connection === connection)),
    ];
    findings.push(...inOrder.map((f) => ({ ...f, where: `connection ${connection}, ${f.where}` })));
  }
  return findings;
}

/**
 * The checks every session gets, each its own subtest so a report says which one fails: all fields
 * written (defaults too), valid AMQP 1.0 types and mandatory fields, per-link order, attach replies.
 */
export async function checkServerFrames(t: TestContext, proxy: RecordingProxy): Promise<void> {
  await t.test('the proxy decoded every byte', () => assert.deepEqual(proxy.errors, []));
  const findings = serverFindings(proxy);
  const only = (kind: Finding['kind'], path?: RegExp) =>
    findings.filter((f) => f.kind === kind && (!path || path.test(f.path)));
  await t.test('every server frame is valid AMQP 1.0 (field types, mandatory fields)', () =>
    assert.equal(summarize(only('spec')), ''),
  );
  await t.test('every server performative has all its fields, defaults written out', () =>
    assert.equal(summarize(only('complete', /^(?!attach\.(properties|max-message-size)$)/)), ''),
  );
  await t.test('attach replies carry properties and max-message-size', () =>
    assert.equal(summarize(only('complete', /^attach\.(properties|max-message-size)$/)), ''),
  );
  await t.test('per link: the server attach comes before its transfers and flows, its detach last', () =>
    assert.equal(summarize(only('order')), ''),
  );
  await t.test('$cbs and $management replies come after the disposition settling their request', () =>
    assert.deepEqual(repliesBeforeSettlement(proxy), []),
  );
}

/** A message's properties section (descriptor 0x73, AMQP 1.0 part 3, 3.2.4) field, if the payload has one. */
function messageProperty(payload: Buffer, index: 0 | 5): string | undefined {
  let sections: AmqpValue[];
  try {
    sections = decodeAll(payload);
  } catch {
    return undefined; // a frame of a multi-frame message: not a request or reply
  }
  const properties = sections.find((s) => s.type === 'described' && plain(s.descriptor) === 0x73n);
  const v =
    properties?.type === 'described' && properties.value.type === 'list' ? properties.value.value[index] : undefined;
  if (!v || v.type === 'null') return undefined;
  return `${v.type}:${Buffer.isBuffer(v.value) ? v.value.toString('hex') : String(v.value)}`;
}

/**
 * The service settles a `$cbs` / `$management` request before it answers it (azure-uamqp-c fails the
 * operation otherwise): each reply (a server transfer whose correlation-id is a client request's
 * message-id) must come after a server disposition settling that request, when the client sent it unsettled.
 */
export function repliesBeforeSettlement(proxy: RecordingProxy): string[] {
  const problems: string[] = [];
  for (let connection = 0; connection < proxy.connections; connection++) {
    const requests = new Map<string, { channel: number; deliveryId: number }>();
    const settled: Array<{ channel: number; first: number; last: number }> = [];
    const serverToClient = new Map<number, number>();
    for (const r of proxy.units) {
      if (r.connection !== connection || r.unit.kind !== 'frame') continue;
      const frame = r.unit;
      if (r.from === 'client' && frame.performative === 'transfer' && field(frame, 'settled')?.value !== true) {
        const id = messageProperty(frame.payload, 0);
        if (id !== undefined)
          requests.set(id, { channel: frame.channel, deliveryId: Number(field(frame, 'delivery-id')?.value) });
      }
      if (r.from !== 'server') continue;
      if (frame.performative === 'begin')
        serverToClient.set(frame.channel, Number(field(frame, 'remote-channel')?.value));
      if (frame.performative === 'disposition' && field(frame, 'settled')?.value === true) {
        const first = Number(field(frame, 'first')?.value);
        const last = field(frame, 'last')?.type === 'uint' ? Number(field(frame, 'last')!.value) : first;
        settled.push({ channel: serverToClient.get(frame.channel) ?? -1, first, last });
      }
      if (frame.performative !== 'transfer') continue;
      const correlation = messageProperty(frame.payload, 5);
      const request = correlation === undefined ? undefined : requests.get(correlation);
      if (!request) continue;
      const done = settled.some(
        (d) => d.channel === request.channel && d.first <= request.deliveryId && request.deliveryId <= d.last,
      );
      if (!done)
        problems.push(
          `connection ${connection}: the reply to ${correlation} (delivery ${request.deliveryId}) came before the ` +
            `request was settled`,
        );
    }
  }
  return problems;
}

/** Resolves once the server answered every close the client sent (so the recording is complete). */
export async function closed(proxy: RecordingProxy): Promise<void> {
  for (let connection = 0; connection < proxy.connections; connection++) {
    if (!proxy.frames('client', connection).some((f) => f.performative === 'close')) continue;
    const isServerClose = (r: RecordedUnit) =>
      r.connection === connection && r.from === 'server' && r.unit.kind === 'frame' && r.unit.performative === 'close';
    await proxy.waitFor(isServerClose, 5_000, `the server's close on connection ${connection}`);
  }
}

export function errorCondition(v: AmqpValue | undefined): string | undefined {
  return symbolOf(compositeField(v, 'error', 'condition'));
}

/** Waits for a server detach carrying `condition`, recorded at `proxy.units[since]` or later. */
export function waitForDetach(
  proxy: RecordingProxy,
  condition: string,
  since = 0,
  timeoutMs = 10_000,
): Promise<unknown> {
  return proxy.waitFor(
    (r) =>
      r.from === 'server' &&
      r.unit.kind === 'frame' &&
      r.unit.performative === 'detach' &&
      errorCondition(field(r.unit, 'error')) === condition &&
      proxy.units.indexOf(r) >= since,
    timeoutMs,
    `a server detach with ${condition}`,
  );
}

/** The address of the client's own attach of link `name`: its source (client receiver) or target (client sender). */
function clientAddress(
  proxy: RecordingProxy,
  connection: number,
  name: unknown,
  client: 'receiver' | 'sender',
): string | undefined {
  const attach = proxy
    .frames('client', connection)
    .find((f) => f.performative === 'attach' && field(f, 'name')?.value === name);
  if (!attach) return undefined;
  const terminus = client === 'receiver' ? 'source' : 'target';
  return symbolOf(compositeField(field(attach, terminus), terminus, 'address'));
}

/**
 * The refusal form (AMQP 1.0 2.6.3, as the service does it): an attach whose own terminus is null
 * (source for a client receiver, target for a client sender), then at once a detach of that handle with
 * closed=true and an error with condition and description. Checks every detach with `condition`
 * recorded at `proxy.units[since]` or later on a link the client attached to `address`.
 */
export function assertRefusal(
  proxy: RecordingProxy,
  condition: string,
  client: 'receiver' | 'sender',
  address: string,
  since = 0,
): void {
  const detaches = serverFrames(proxy).filter(
    (l) =>
      l.unit >= since && l.frame.performative === 'detach' && errorCondition(field(l.frame, 'error')) === condition,
  );
  let checked = 0;
  for (const { connection, index, frame: detach } of detaches) {
    const handle = field(detach, 'handle')?.value;
    const sameChannel = proxy
      .frames('server', connection)
      .slice(0, index)
      .filter((f) => f.channel === detach.channel);
    const attach = sameChannel.findLast((f) => f.performative === 'attach' && field(f, 'handle')?.value === handle);
    if (!attach || clientAddress(proxy, connection, field(attach, 'name')?.value, client) !== address) continue;
    checked++;
    const terminus = field(attach, client === 'receiver' ? 'source' : 'target');
    const error = field(detach, 'error');
    // One object compared as a whole, so a failure shows every difference at once.
    const seen = {
      'frame before the detach on its channel': sameChannel.at(-1)?.performative,
      // role false: the server is the sender, so the client is a receiver.
      'client role': field(attach, 'role')?.value === true ? 'sender' : 'receiver',
      [`attach ${client === 'receiver' ? 'source' : 'target'}`]: terminus?.type ?? 'omitted',
      'detach closed': field(detach, 'closed')?.value,
      'error fields': error?.type === 'described' && error.value.type === 'list' ? error.value.value.length : undefined,
      'error description': compositeField(error, 'error', 'description')?.type,
    };
    assert.deepEqual(seen, {
      'frame before the detach on its channel': 'attach',
      'client role': client,
      [`attach ${client === 'receiver' ? 'source' : 'target'}`]: 'null',
      'detach closed': true,
      'error fields': 3,
      'error description': 'string',
    });
  }
  assert.ok(checked > 0, `no server detach with ${condition} on a link the client attached to ${address}`);
}

/** The `status-code` application property of a reply message carried by a transfer. */
export function replyStatus(transfer: AmqpFrame): unknown {
  const sections = decodeAll(transfer.payload);
  // application-properties: descriptor 0x74 (AMQP 1.0 part 3, 3.2.5).
  const properties = sections.find((s) => s.type === 'described' && plain(s.descriptor) === 0x74n);
  return properties?.type === 'described'
    ? (plain(properties.value) as Map<unknown, unknown>).get('status-code')
    : undefined;
}
