import { test, describe, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, readdir } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { makeEntry } from './dead-letter-entries.ts';
import { parseDeadLetterLine, deadLetterPath } from '../../../src/pipeline/dead-letter-format.ts';
import { DirectoryDeadLetterStore } from '../../../src/pipeline/directory-dead-letter-store.ts';
import { createDeadLetterStore } from '../../../src/pipeline/create-dead-letter-store.ts';
import { ConfigError } from '../../../src/component/errors.ts';
import { BlobDeadLetterStore } from '../../../src/pipeline/blob-dead-letter-store.ts';
import { access } from 'node:fs/promises';

describe('DirectoryDeadLetterStore', () => {
  const dirs: string[] = [];
  after(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  test('round trip: one file per partition and day, bodies byte-exact, metadata kept, secrets redacted', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dlq-'));
    dirs.push(dir);
    const store = new DirectoryDeadLetterStore(dir);
    const binary = new Uint8Array([0xff, 0xfe, 0x00, 0x80]);
    const text = new TextEncoder().encode('{"msg":"héllo"}');
    await store.write([makeEntry('0', 1, text), makeEntry('1', 7, binary), makeEntry('0', 2, text)]);
    await store.write([makeEntry('0', 3, text, new Date('2026-11-22T00:00:01Z'))]);

    const p0 = join(dir, ...deadLetterPath(makeEntry('0', 0, text)).split('/'));
    assert.match(p0, /ns\.servicebus\.windows\.net[/\\]logs[/\\]\$default[/\\]deadletter[/\\]0[/\\]2026-11-21\.jsonl$/);
    const lines = (await readFile(p0, 'utf8')).trimEnd().split('\n');
    assert.equal(lines.length, 2);
    const first = parseDeadLetterLine(lines[0]!);
    assert.deepEqual(first.body, text);
    assert.equal(first.record.event.body_utf8, '{"msg":"héllo"}');
    assert.equal(first.record.event.sequence_number, 1);
    assert.equal(first.record.event.offset, '100');
    assert.equal(first.record.event.partition_key, 'key-1');
    assert.equal(first.record.event.message_id, 'm-1');
    assert.equal(first.record.event.enqueued_time, '2026-11-21T09:59:59.500Z');
    assert.deepEqual(first.record.event.properties, {
      tenant: 'contoso',
      raw: { base64: 'AQID' },
      when: '2026-01-01T00:00:00.000Z',
      big: '12345678901234567890',
    });
    assert.deepEqual(first.record.source, {
      namespace: 'NS.servicebus.windows.net',
      event_hub: 'Logs',
      consumer_group: '$Default',
      partition_id: '0',
    });
    assert.equal(first.record.error.type, 'permanent');
    assert.doesNotMatch(lines.join('\n'), /SECRETSIG|SECRETKEY/);
    assert.equal(parseDeadLetterLine(lines[1]!).record.event.sequence_number, 2);

    const p1 = join(dir, ...deadLetterPath(makeEntry('1', 0, binary)).split('/'));
    const bin = parseDeadLetterLine((await readFile(p1, 'utf8')).trimEnd());
    assert.deepEqual(bin.body, binary);
    assert.equal('body_utf8' in bin.record.event, false, 'invalid UTF-8 has no body_utf8');

    const days = await readdir(join(dir, 'ns.servicebus.windows.net', 'logs', '$default', 'deadletter', '0'));
    assert.deepEqual(days.sort(), ['2026-11-21.jsonl', '2026-11-22.jsonl']);
  });

  test(
    'an event refused by a metrics or traces pipeline says so in its line; its body replays every ' + 'item',
    async () => {
      const dir = await mkdtemp(join(tmpdir(), 'dlq-'));
      dirs.push(dir);
      const store = new DirectoryDeadLetterStore(dir);
      const body = new TextEncoder().encode(
        '{"records":[{"metricName":"Requests","total":3,"time":"2026-11-21T09:59:00Z"}]}',
      );
      const logs = makeEntry('0', 1, body);
      await store.write([{ ...makeEntry('0', 2, body), signals: ['metrics', 'traces'] }, logs]);
      const lines = (await readFile(join(dir, ...deadLetterPath(logs).split('/')), 'utf8')).trimEnd().split('\n');
      const refused = parseDeadLetterLine(lines[0]!);
      assert.deepEqual(refused.record.signals, ['metrics', 'traces']);
      assert.deepEqual(refused.body, body, 'the body is kept byte-exact: decoding it again yields the points');
      assert.equal(JSON.parse(refused.record.event.body_utf8).records[0].metricName, 'Requests');
      assert.equal('signals' in parseDeadLetterLine(lines[1]!).record, false, 'a logs entry is written as before');
    },
  );

  test('concurrent writes to one file never interleave lines', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'dlq-'));
    dirs.push(dir);
    const store = new DirectoryDeadLetterStore(dir);
    const big = new Uint8Array(200_000).fill(0x61);
    await Promise.all(Array.from({ length: 8 }, (_, i) => store.write([makeEntry('0', i, big)])));
    const lines = (await readFile(join(dir, ...deadLetterPath(makeEntry('0', 0, big)).split('/')), 'utf8'))
      .trimEnd()
      .split('\n');
    assert.equal(lines.length, 8);
    assert.deepEqual(
      lines.map((l) => parseDeadLetterLine(l).record.event.sequence_number).sort(),
      [0, 1, 2, 3, 4, 5, 6, 7],
    );
  });

  test('a partition id cannot escape the directory', () => {
    assert.doesNotMatch(deadLetterPath(makeEntry('../../etc', 0, new Uint8Array())), /\.\.\//);
  });
});

describe('createDeadLetterStore', () => {
  test('directory → DirectoryDeadLetterStore; incomplete sections → ConfigError without secrets', async () => {
    assert.ok((await createDeadLetterStore({ directory: tmpdir() })) instanceof DirectoryDeadLetterStore);
    await assert.rejects(createDeadLetterStore({}), ConfigError);
    await assert.rejects(createDeadLetterStore({ container: 'dlq' }), /dead_letter\.connection/);
    await assert.rejects(createDeadLetterStore({ directory: '/x', container: 'dlq' }), ConfigError);
  });
});

describe('dead-letter store locations (named in the dead-letter log line)', () => {
  test('directory store: the absolute path of the file the entry was written to', async (t) => {
    const dir = await mkdtemp(join(tmpdir(), 'dlq-loc-'));
    t.after(() => rm(dir, { recursive: true, force: true }));
    const store = new DirectoryDeadLetterStore(dir);
    const entry = makeEntry('4', 9, new Uint8Array([1]));
    await store.write([entry]);
    const location = store.locationOf(entry);
    assert.ok(location.startsWith(dir), location);
    await access(location);
  });

  test('blob store: the blob URL without the SAS token of a SAS connection string', () => {
    const sas = 'sv=2024-01-01&ss=b&srt=sco&sp=rwac&sig=SECRETSIG%3D';
    const store = BlobDeadLetterStore.fromConnectionString(
      `BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=${sas}`,
      'deadletters',
    );
    const location = store.locationOf(makeEntry('4', 9, new Uint8Array([1])));
    assert.equal(
      location,
      'https://acct.blob.core.windows.net/deadletters/ns.servicebus.windows.net/logs/$default/deadletter/4/' +
        '2026-11-21.jsonl',
    );
    assert.doesNotMatch(location, /sig=|SECRET/);
  });
});
