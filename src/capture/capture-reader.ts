/**
 * Reads one partition's captured events back from Blob Storage, by sequence number: lists the partition's
 * files (their names carry the window time), reads them in window order, and yields the records of a range
 * in sequence order. What the files do not hold is reported as a gap with its exact range, never skipped
 * silently: a deleted file, or one not written yet (a file appears only once its window closes).
 */
import type { ContainerClient } from '@azure/storage-blob';
import { ArchiveNameMatcher } from './archive-name-format.ts';
import { decodeCaptureFile } from './capture-file.ts';
import type { CaptureRecord } from './capture-schema.ts';

/** How much later than its window's start a file's name time may be (names of one partition are unique by second). */
const NAME_TIME_SLACK_MS = 60_000;

export interface CaptureFile {
  readonly name: string;
  /** The window start in the name. */
  readonly time: Date;
}

export interface CaptureLocation {
  readonly container: ContainerClient;
  readonly archiveNameFormat: string;
  /** `{Namespace}` in blob names: the namespace name (the first label of its host name). */
  readonly namespace: string;
  readonly eventHub: string;
}

/** Sequence numbers a range asked for that no file holds (inclusive bounds). */
export interface CaptureGap {
  readonly fromSequenceNumber: number;
  readonly toSequenceNumber: number;
}

export type CaptureChunk =
  | { readonly kind: 'records'; readonly records: readonly CaptureRecord[]; readonly file: string }
  | ({ readonly kind: 'gap' } & CaptureGap);

export class CapturePartitionReader {
  readonly #location: CaptureLocation;
  readonly #matcher: ArchiveNameMatcher;

  constructor(
    location: CaptureLocation,
    readonly partitionId: string,
  ) {
    this.#location = location;
    this.#matcher = new ArchiveNameMatcher(
      location.archiveNameFormat,
      location.namespace,
      location.eventHub,
      partitionId,
    );
  }

  /** The partition's files, oldest window first. */
  async listFiles(signal?: AbortSignal): Promise<CaptureFile[]> {
    const files: CaptureFile[] = [];
    const pages = this.#location.container.listBlobsFlat({ prefix: this.#matcher.prefix, abortSignal: signal });
    for await (const blob of pages) {
      const time = this.#matcher.match(blob.name);
      if (time) files.push({ name: blob.name, time });
    }
    return files.sort((a, b) => a.time.getTime() - b.time.getTime() || a.name.localeCompare(b.name));
  }

  async readFile(name: string, signal?: AbortSignal): Promise<CaptureRecord[]> {
    const bytes = await this.#location.container
      .getBlobClient(name)
      .downloadToBuffer(undefined, undefined, { abortSignal: signal });
    return (await decodeCaptureFile(bytes)).sort((a, b) => a.sequenceNumber - b.sequenceNumber);
  }

  /**
   * The records with sequence numbers `from`..`to` (inclusive), file by file in sequence order, and a `gap`
   * chunk for each stretch no file holds. Files wholly before `from` are read once to learn that (their
   * names give no sequence numbers); reading stops at the first file past `to`.
   */
  async *readRange(from: number, to: number, signal?: AbortSignal): AsyncGenerator<CaptureChunk> {
    let expected = from;
    for (const file of await this.listFiles(signal)) {
      if (expected > to) break;
      const records = (await this.readFile(file.name, signal)).filter((r) => r.sequenceNumber >= expected);
      if (records.length === 0) continue;
      const first = records[0]!.sequenceNumber;
      if (first > expected)
        yield { kind: 'gap', fromSequenceNumber: expected, toSequenceNumber: Math.min(first - 1, to) };
      const wanted = records.filter((r) => r.sequenceNumber <= to);
      if (wanted.length > 0) {
        expected = wanted[wanted.length - 1]!.sequenceNumber + 1;
        yield { kind: 'records', records: wanted, file: file.name };
      } else {
        expected = Math.max(expected, first);
      }
    }
    if (expected <= to) yield { kind: 'gap', fromSequenceNumber: expected, toSequenceNumber: to };
  }

  /** The records enqueued in [from, to) (times), in sequence order, whatever their sequence numbers. */
  async *readTimeRange(
    from: Date,
    to: Date,
    signal?: AbortSignal,
  ): AsyncGenerator<{ records: CaptureRecord[]; file: string }> {
    const files = await this.listFiles(signal);
    for (let i = 0; i < files.length; i++) {
      const file = files[i]!;
      // A window that started after `to` holds nothing earlier (with a margin: a name's time may be a few seconds
      // late, see the emulator's capture writer); one that ended before `from` holds nothing later.
      if (file.time.getTime() >= to.getTime() + NAME_TIME_SLACK_MS) break;
      const nextStart = files[i + 1]?.time.getTime();
      if (nextStart !== undefined && nextStart <= from.getTime()) continue;
      const records = (await this.readFile(file.name, signal)).filter(
        (r) => r.enqueuedTime.getTime() >= from.getTime() && r.enqueuedTime.getTime() < to.getTime(),
      );
      if (records.length > 0) yield { records, file: file.name };
    }
  }
}
