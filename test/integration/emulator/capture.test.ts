import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { EventHubProducerClient } from '@azure/event-hubs';
import { startAzurite, randomName, type Azurite } from '../../helpers/azurite.ts';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { CapturePartitionReader } from '../../../src/capture/capture-reader.ts';
import { DEFAULT_ARCHIVE_NAME_FORMAT } from '../../../src/capture/archive-name-format.ts';
import type { EmulatorCaptureConfig } from '../../../src/emulator/index.ts';
import { waitFor } from './sdk-helpers.ts';

let azurite: Azurite;
before(async () => {
  azurite = await startAzurite();
});
after(async () => {
  await azurite?.stop();
});

function captureConfig(
  extra: Partial<EmulatorCaptureConfig> = {},
): EmulatorCaptureConfig & { container: ContainerClient } {
  const blobContainer = randomName('cap');
  const container = BlobServiceClient.fromConnectionString(azurite.connectionString).getContainerClient(blobContainer);
  return { storageConnectionString: azurite.connectionString, blobContainer, intervalMs: 60_000, ...extra, container };
}

async function names(container: ContainerClient): Promise<string[]> {
  const out: string[] = [];
  if (!(await container.exists())) return out;
  for await (const b of container.listBlobsFlat()) out.push(b.name);
  return out.sort();
}

test("capture writes each partition's events, in order, to Avro files named by the default format", async (t) => {
  const { container, ...capture } = captureConfig();
  const { emulator, hubName, connectionString, track } = await startTestEmulator(t, { partitions: 2, capture });
  const producer = track(new EventHubProducerClient(connectionString));
  const batch = await producer.createBatch({ partitionId: '1' });
  for (let i = 0; i < 5; i++)
    batch.tryAdd({ body: { i }, properties: { n: i, kind: 'sdk', ratio: 0.25 }, messageId: `m${i}` });
  await producer.sendBatch(batch);
  emulator.append(hubName, '0', [{ body: 'plain', partitionKey: 'pk' }]);
  await emulator.flushCapture(hubName);

  const files = await names(container);
  assert.equal(files.length, 2, 'one file per partition for the closed window (the windows were not empty)');
  for (const name of files)
    assert.match(name, new RegExp(`^emulatorNs1/${hubName}/[01]/\\d{4}/\\d{2}/\\d{2}/\\d{2}/\\d{2}/\\d{2}\\.avro$`));
  const location = {
    container,
    archiveNameFormat: DEFAULT_ARCHIVE_NAME_FORMAT,
    namespace: 'emulatorNs1',
    eventHub: hubName,
  };
  const p1 = new CapturePartitionReader(location, '1');
  const [file] = await p1.listFiles();
  const records = await p1.readFile(file!.name);
  assert.deepEqual(
    records.map((r) => r.sequenceNumber),
    [0, 1, 2, 3, 4],
  );
  assert.deepEqual(JSON.parse(records[2]!.body!.toString()), { i: 2 });
  assert.deepEqual(records[2]!.properties, { n: 2, kind: 'sdk', ratio: 0.25 });
  assert.equal(records[2]!.systemProperties['message-id'], 'm2');
  const props = await producer.getPartitionProperties('1');
  assert.equal(records[4]!.offset, props.lastEnqueuedOffset, 'the offset is the one the hub reports');
  assert.ok(Math.abs(records[4]!.enqueuedTime.getTime() - props.lastEnqueuedOnUtc.getTime()) < 1);
  const [p0] = await new CapturePartitionReader(location, '0').listFiles();
  const r0 = await new CapturePartitionReader(location, '0').readFile(p0!.name);
  assert.equal(r0[0]!.body!.toString(), 'plain');
  assert.equal(r0[0]!.systemProperties['x-opt-partition-key'], 'pk');
});

test(
  'the time window closes files by itself; empty windows write header-only files unless ' + 'skipEmptyArchives',
  async (t) => {
    const { container, ...capture } = captureConfig({ intervalMs: 150 });
    const skipping = captureConfig({ intervalMs: 150, skipEmptyArchives: true });
    const { emulator, hubName } = await startTestEmulator(t, { partitions: 1, capture });
    const { container: skippedContainer, ...skippingCapture } = skipping;
    const other = await startTestEmulator(t, { partitions: 1, capture: skippingCapture });
    emulator.append(hubName, '0', [{ body: 'a' }]);
    other.emulator.append(other.hubName, '0', [{ body: 'a' }]);
    // Several windows pass: the first holds the event, the later ones are empty.
    await waitFor(async () => (await names(container)).length >= 3, 10_000, 'three windows of files');
    const location = {
      container,
      archiveNameFormat: DEFAULT_ARCHIVE_NAME_FORMAT,
      namespace: 'emulatorNs1',
      eventHub: hubName,
    };
    const reader = new CapturePartitionReader(location, '0');
    const files = await reader.listFiles();
    const counts = await Promise.all(files.map(async (f) => (await reader.readFile(f.name)).length));
    assert.equal(counts[0], 1);
    assert.ok(
      counts.slice(1).every((n) => n === 0),
      `later windows are empty files: ${counts.join(',')}`,
    );
    assert.equal(new Set(files.map((f) => f.name)).size, files.length, 'no file overwrote another');
    // The skipping hub wrote its one file and nothing for the empty windows after it.
    await waitFor(async () => (await names(skippedContainer)).length >= 1, 10_000, "the skipping hub's file");
    const stamp = (await names(container)).length;
    await waitFor(async () => (await names(container)).length >= stamp + 2, 10_000, 'two more empty windows');
    assert.equal((await names(skippedContainer)).length, 1);
  },
);

test('the size window closes a file early; a custom format and AvroDeflate are honoured', async (t) => {
  const format = '{EventHub}/p{PartitionId}/{Namespace}/{Year}{Month}{Day}-{Hour}{Minute}{Second}';
  const { container, ...capture } = captureConfig({
    sizeLimitBytes: 2_000,
    archiveNameFormat: format,
    encoding: 'AvroDeflate',
    namespace: 'myns',
  });
  const { emulator, hubName } = await startTestEmulator(t, { partitions: 1, capture });
  const body = 'x'.repeat(600);
  emulator.append(
    hubName,
    '0',
    Array.from({ length: 10 }, () => ({ body })),
  );
  await emulator.flushCapture(hubName);
  const files = await names(container);
  assert.ok(
    files.length >= 3,
    `10 events of ~650 bytes over a 2000-byte window make several files, got ${files.length}`,
  );
  for (const name of files) assert.match(name, new RegExp(`^${hubName}/p0/myns/\\d{8}-\\d{6}\\.avro$`));
  const reader = new CapturePartitionReader(
    { container, archiveNameFormat: format, namespace: 'myns', eventHub: hubName },
    '0',
  );
  const seqs: number[] = [];
  for await (const chunk of reader.readRange(0, 9)) {
    assert.equal(chunk.kind, 'records');
    if (chunk.kind === 'records') seqs.push(...chunk.records.map((r) => r.sequenceNumber));
  }
  assert.deepEqual(seqs, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'every event once, in order, across the files');
});

test('a hub with an invalid capture setting is refused with what to change', async () => {
  const { startEmulator } = await import('../../../src/emulator/index.ts');
  await assert.rejects(
    startEmulator({
      port: 0,
      hubs: [
        {
          name: 'h',
          partitions: 1,
          capture: {
            storageConnectionString: azurite.connectionString,
            blobContainer: 'ok-name',
            archiveNameFormat: '{Namespace}/{EventHub}',
          },
        },
      ],
    }),
    /capture\.archiveNameFormat: must contain every token.*missing \{PartitionId\}/,
  );
});
