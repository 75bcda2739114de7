/**
 * One battery for every non-rhea AMQP stack: the emulator (with SAS keys, and TLS when the stack needs it)
 * gets one event appended, the stack's Python client runs every step once, and each `it` checks one
 * operation in the client's report. A machine without the stack's Debian package skips with the package name.
 */
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmulator, type Emulator } from '../../../src/emulator/index.ts';
import { randomName } from '../../helpers/azurite.ts';
import { systemPython } from '../../helpers/system-python.ts';
import { createSelfSignedCert } from '../backends/self-signed-cert.ts';
import {
  assertPartitionEvents,
  assertTyped,
  replyStatus,
  runInteropClient,
  step,
  typedValue,
  type ClientRun,
  type ReceivedEvent,
  type Reply,
  type Typed,
  type TypeNames,
} from './interop-report.ts';

export interface InteropStack {
  /** Suite title: the stack and the package it comes from. */
  title: string;
  /** Python modules the client imports (for the skip message). */
  modules: string[];
  /** The client script in python/. */
  script: string;
  /** Prefix of the bodies the client sends, and its `stack` application property. */
  name: string;
  types: TypeNames;
  /** Serve AMQPS and pass the certificate to the client as `--ca-file`. */
  tls: boolean;
}

const KEY_NAME = 'RootManageSharedAccessKey';
const KEY = 'aW50ZXJvcC1rZXktZm9yLXRlc3Rz';
const PARTITIONS = 2;
const PARTITION_KEY = 'interop-key';

export function interopSuite(stack: InteropStack): void {
  const python = systemPython(stack.modules);
  describe(stack.title, { skip: python.ok ? false : python.skip }, () => {
    const hub = randomName('hub');
    const missingHub = randomName('missing');
    const runId = randomName('run');
    const appended = `appended-${runId}`;
    let emulator: Emulator | undefined;
    let dir: string | undefined;
    let run: ClientRun;
    let since = 0;

    before(async () => {
      if (!python.ok) return;
      dir = mkdtempSync(join(tmpdir(), 'interop-'));
      const extra: string[] = [];
      let tls;
      if (stack.tls) {
        tls = createSelfSignedCert();
        writeFileSync(join(dir, 'cert.pem'), tls.cert);
        extra.push('--tls', '--ca-file', join(dir, 'cert.pem'));
      }
      const hubs = [{ name: hub, partitions: PARTITIONS }];
      emulator = await startEmulator({ port: 0, hubs, sasKeys: { [KEY_NAME]: KEY }, ...(tls ? { tls } : {}) });
      since = Date.now();
      const event = { body: appended, properties: { source: 'emulator-append' }, partitionKey: PARTITION_KEY };
      emulator.append(hub, '0', [event]);
      const args = { emulator, hub, missingHub, keyName: KEY_NAME, key: KEY, run: runId, extra };
      run = await runInteropClient(python.python, stack.script, args);
    });
    after(async () => {
      await emulator?.stop();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    const sentToHub = [0, 1].map((i) => `${stack.name}-hub-${runId}-${i}`);
    const sentToPartition = [0, 1, 2].map((i) => `${stack.name}-p0-${runId}-${i}`);
    const received = (): Record<string, ReceivedEvent[]> => {
      const events = step(run, 'receive_all') as Record<string, ReceivedEvent[]>;
      for (const id of ['0', '1']) assert.ok(events[id], `partition ${id} was not read (see partition_properties)`);
      return events;
    };

    /** A management reply's field, checked to have the AMQP type `type` as the stack names it. */
    const field = (body: Record<string, any>, name: string, type: keyof TypeNames): unknown =>
      assertTyped(body[name] as Typed | undefined, stack.types[type], name);

    it('refuses a put-token signed with a wrong key: 401 (amqp:unauthorized-access where the client shows it)', () => {
      type Refusal = { status_code: number; description: string | null; condition?: string };
      const refused = step(run, 'put_token_wrong_key').refused as Refusal;
      assert.equal(refused.status_code, 401);
      // Clients that hand the reply's description and condition over show the service's texts.
      if (refused.description !== null) assert.match(refused.description, /signature/i);
      if (refused.condition !== undefined) assert.equal(refused.condition, 'amqp:unauthorized-access');
    });

    it('accepts its SAS tokens on $cbs and every event it sends to the hub and to partition 0', () => {
      assert.deepEqual(step(run, 'send_hub').outcomes, ['accepted', 'accepted']);
      assert.deepEqual(step(run, 'send_partition').outcomes, ['accepted', 'accepted', 'accepted']);
      // Clients that put their tokens implicitly (uamqp) show them only by succeeding; the others show each reply.
      const claims = [run.steps.put_token_hub, run.steps.send_partition?.claim, run.steps.management_link?.claim];
      for (const claim of claims.filter((c) => c !== undefined)) {
        assert.deepEqual(replyStatus(claim as Reply, stack.types), { status: 202, description: 'Accepted' });
      }
    });

    it('reads hub properties over $management', () => {
      const reply = step(run, 'hub_properties') as Reply;
      assert.equal(replyStatus(reply, stack.types).status, 200);
      const body = reply.body!;
      assert.equal(field(body, 'name', 'string'), hub);
      assert.equal(field(body, 'partition_count', 'int'), PARTITIONS);
      const ids = (body.partition_ids as Typed[]).map((p) => assertTyped(p, stack.types.string, 'partition id'));
      assert.deepEqual(ids, ['0', '1']);
      const createdAt = Number(field(body, 'created_at', 'timestamp'));
      assert.ok(createdAt <= Date.now() && createdAt > since - 60_000, `created_at ${createdAt}`);
    });

    it('reads partition properties over $management, matching the events it receives', () => {
      const partitions = step(run, 'partition_properties') as Record<string, Reply>;
      const events = received();
      for (const id of ['0', '1']) {
        const reply = partitions[id];
        assert.ok(reply, `partition ${id}'s properties were not read (see hub_properties)`);
        assert.equal(replyStatus(reply, stack.types).status, 200);
        const body = reply.body!;
        const last = events[id]!.at(-1)!;
        assert.equal(field(body, 'name', 'string'), hub);
        assert.equal(field(body, 'partition', 'string'), id);
        assert.equal(field(body, 'begin_sequence_number', 'long'), 0);
        assert.equal(field(body, 'last_enqueued_sequence_number', 'long'), events[id]!.length - 1);
        assert.equal(
          field(body, 'last_enqueued_offset', 'string'),
          typedValue(last.annotations['x-opt-offset'], 'x-opt-offset'),
        );
        const lastTime = Number(typedValue(last.annotations['x-opt-enqueued-time'], 'x-opt-enqueued-time'));
        assert.equal(Number(field(body, 'last_enqueued_time_utc', 'timestamp')), lastTime);
        assert.equal(body.is_partition_empty, false);
      }
    });

    it('receives every event from the start of each partition (offset filter > -1), with the annotations', () => {
      const events = received();
      const bodies0 = assertPartitionEvents(events['0']!, stack.types, since, 'partition 0');
      const bodies1 = assertPartitionEvents(events['1']!, stack.types, since, 'partition 1');
      const sent = [appended, ...sentToHub, ...sentToPartition];
      assert.deepEqual([...bodies0, ...bodies1].sort(), sent.sort(), 'each event exactly once');
      assert.equal(bodies0[0], appended);
      assert.deepEqual(
        bodies0.filter((b) => b.includes('-p0-')),
        sentToPartition,
        'partition sends in order, in partition 0',
      );
      const first = events['0']![0]!;
      assert.equal(field(first.annotations, 'x-opt-partition-key', 'string'), PARTITION_KEY);
      assert.equal(typedValue(first.application_properties.source, 'source'), 'emulator-append');
      for (const event of [...events['0']!, ...events['1']!]) {
        if (event === first) continue;
        assert.equal(typedValue(event.application_properties.stack, 'stack property'), stack.name);
        assert.equal(event.annotations['x-opt-partition-key'], undefined);
      }
    });

    it("receives only the events after a given offset (offset filter > first event's offset)", () => {
      const all = received()['0']!;
      const after = step(run, 'receive_after_first');
      assert.equal(after.from_offset, typedValue(all[0]!.annotations['x-opt-offset'], 'x-opt-offset'));
      const events = after.events as ReceivedEvent[];
      assert.deepEqual(
        events.map((e) => e.body),
        all.slice(1).map((e) => e.body),
      );
      const sequenceNumbers = events.map((e) =>
        typedValue(e.annotations['x-opt-sequence-number'], 'x-opt-sequence-number'),
      );
      assert.deepEqual(
        sequenceNumbers,
        all.slice(1).map((_, i) => i + 1),
      );
    });

    it('gets amqp:not-found "… could not be found" reading a hub that does not exist', () => {
      const { status, description, condition } = replyStatus(step(run, 'missing_hub_properties') as Reply, stack.types);
      assert.equal(status, 404);
      if (condition !== undefined) assert.equal(condition, 'amqp:not-found');
      assert.match(description, new RegExp(`'[^']*${missingHub}' could not be found`));
    });

    it('gets amqp:not-found "… could not be found" attaching a receiver to a hub that does not exist', () => {
      const detached = step(run, 'receive_missing_hub').detached as { condition: string; description: string };
      assert.ok(detached, 'the receiver was refused');
      assert.equal(detached.condition, 'amqp:not-found');
      assert.match(detached.description, new RegExp(`'[^']*${missingHub}' could not be found`));
    });
  });
}
