import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient } from '@azure/storage-blob';
import { startAzurite, randomName, type Azurite } from '../../helpers/azurite.ts';
import { BlobDeadLetterStore } from '../../../src/pipeline/blob-dead-letter-store.ts';
import { createDeadLetterStore } from '../../../src/pipeline/create-dead-letter-store.ts';
import { deadLetterPath, parseDeadLetterLine } from '../../../src/pipeline/dead-letter-format.ts';
import { makeEntry } from '../../unit/pipeline/dead-letter-entries.ts';

describe('BlobDeadLetterStore against Azurite', () => {
  let azurite: Azurite;
  before(async () => {
    azurite = await startAzurite();
  });
  after(async () => {
    await azurite?.stop();
  });

  async function readBlob(container: string, name: string): Promise<string> {
    const blob = BlobServiceClient.fromConnectionString(azurite.connectionString)
      .getContainerClient(container)
      .getBlobClient(name);
    return (await blob.downloadToBuffer()).toString('utf8');
  }

  test('round trip: creates the container, appends one blob per partition and day, bodies byte-exact', async () => {
    const container = randomName('dlq');
    const store = BlobDeadLetterStore.fromConnectionString(azurite.connectionString, container);
    const text = new TextEncoder().encode('{"level":"error"}');
    const binary = new Uint8Array([0, 159, 146, 150]);
    await store.write([makeEntry('0', 10, text), makeEntry('1', 3, binary)]);
    await store.write([makeEntry('0', 11, text)]);

    const props = await BlobServiceClient.fromConnectionString(azurite.connectionString)
      .getContainerClient(container)
      .getBlobClient(deadLetterPath(makeEntry('0', 0, text)))
      .getProperties();
    assert.equal(props.blobType, 'AppendBlob');
    const p0 = (await readBlob(container, deadLetterPath(makeEntry('0', 0, text))))
      .trimEnd()
      .split('\n')
      .map(parseDeadLetterLine);
    assert.deepEqual(
      p0.map((l) => l.record.event.sequence_number),
      [10, 11],
    );
    assert.deepEqual(p0[0]!.body, text);
    assert.equal(p0[0]!.record.event.body_utf8, '{"level":"error"}');
    const p1 = parseDeadLetterLine((await readBlob(container, deadLetterPath(makeEntry('1', 0, binary)))).trimEnd());
    assert.deepEqual(p1.body, binary);
    assert.doesNotMatch(JSON.stringify([p0, p1]), /SECRETSIG|SECRETKEY/);
  });

  test('concurrent writes to one blob keep whole lines', async () => {
    const container = randomName('dlq');
    const store = await createDeadLetterStore({ container }, { fallback: { connection: azurite.connectionString } });
    const body = new Uint8Array(50_000).fill(0x62);
    await Promise.all(
      Array.from({ length: 6 }, (_, i) => store.write([makeEntry('2', i, body), makeEntry('2', 100 + i, body)])),
    );
    const lines = (await readBlob(container, deadLetterPath(makeEntry('2', 0, body))))
      .trimEnd()
      .split('\n')
      .map(parseDeadLetterLine);
    assert.equal(lines.length, 12);
    assert.ok(lines.every((l) => l.body.byteLength === 50_000));
  });

  test('a failure names the container but never the account key', async () => {
    const badKey = azurite.connectionString.replace(
      /AccountKey=[^;]+/,
      `AccountKey=${Buffer.from('wrong-key-SECRET').toString('base64')}`,
    );
    const store = BlobDeadLetterStore.fromConnectionString(badKey, randomName('dlq'));
    const error = await store.write([makeEntry('0', 1, new Uint8Array([1]))]).catch((e: unknown) => e as Error);
    assert.ok(error instanceof Error);
    assert.match(error.message, /dead-letter write to container/);
    assert.doesNotMatch(error.message, /d3JvbmctL|Eby8vdM02x/);
  });
});
