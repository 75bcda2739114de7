import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  ArchiveNameMatcher,
  archiveBlobName,
  archiveNameFormatProblem,
  DEFAULT_ARCHIVE_NAME_FORMAT,
} from '../../../src/capture/archive-name-format.ts';

const time = new Date(Date.UTC(2026, 10, 28, 3, 4, 5));

test('the default format names a file by namespace, hub, partition and window start, with .avro', () => {
  const name = archiveBlobName(DEFAULT_ARCHIVE_NAME_FORMAT, {
    namespace: 'ns',
    eventHub: 'logs',
    partitionId: '3',
    time,
  });
  assert.equal(name, 'ns/logs/3/2026/11/28/03/04/05.avro');
});

test('a custom format must hold every token once', () => {
  assert.equal(
    archiveNameFormatProblem('{EventHub}/{PartitionId}/{Namespace}/{Year}-{Month}-{Day}/{Hour}{Minute}{Second}'),
    undefined,
  );
  assert.match(
    archiveNameFormatProblem('{Namespace}/{EventHub}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second}')!,
    /missing \{PartitionId\}/,
  );
  assert.match(archiveNameFormatProblem(`${DEFAULT_ARCHIVE_NAME_FORMAT}/{Millis}`)!, /unknown token \{Millis\}/);
  assert.match(archiveNameFormatProblem(`${DEFAULT_ARCHIVE_NAME_FORMAT}/{Second}`)!, /repeated \{Second\}/);
  assert.match(archiveNameFormatProblem(`/${DEFAULT_ARCHIVE_NAME_FORMAT}`)!, /must not start/);
});

test("the matcher lists by the format's fixed start and reads the time back from names of its partition only", () => {
  const m = new ArchiveNameMatcher(DEFAULT_ARCHIVE_NAME_FORMAT, 'ns', 'logs', '3');
  assert.equal(m.prefix, 'ns/logs/3/');
  assert.equal(m.match('ns/logs/3/2026/11/28/03/04/05.avro')?.getTime(), time.getTime());
  assert.equal(m.match('ns/logs/31/2026/11/28/03/04/05.avro'), undefined, 'partition 31 is not partition 3');
  assert.equal(m.match('ns/logs/3/2026/11/28/03/04/05.json'), undefined);
});

test('a format that starts with a time token lists the whole container and still matches one partition', () => {
  const format = '{Year}/{Month}/{Day}/{Namespace}.{EventHub}/p{PartitionId}/{Hour}-{Minute}-{Second}';
  const m = new ArchiveNameMatcher(format, 'ns', 'logs', '0');
  assert.equal(m.prefix, '');
  const name = archiveBlobName(format, { namespace: 'ns', eventHub: 'logs', partitionId: '0', time });
  assert.equal(name, '2026/11/28/ns.logs/p0/03-04-05.avro');
  assert.equal(m.match(name)?.getTime(), time.getTime());
  assert.equal(m.match('2026/11/28/ns.logs/p1/03-04-05.avro'), undefined);
  assert.equal(m.match('2026/11/28/nsXlogs/p0/03-04-05.avro'), undefined, 'literal dots are literal');
});
