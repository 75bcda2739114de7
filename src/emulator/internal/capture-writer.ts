/**
 * Event Hubs Capture for one hub: every partition's events, in order, into Avro files in Blob Storage
 * (Azurite), one file per partition and window. A window closes when its time is up or its events reach
 * the size limit, whichever comes first (the service's "first wins" policy); a window without events
 * writes a header-only file unless `skipEmptyArchives`. Files are named for their window's start
 * (archive-name-format.ts); two windows of a partition that start within one second get names one second
 * apart, so no file overwrites another and name order is window order.
 */
import { BlobServiceClient, type ContainerClient } from '@azure/storage-blob';
import { archiveBlobName, DEFAULT_ARCHIVE_NAME_FORMAT } from '../../capture/archive-name-format.ts';
import { encodeCaptureFile } from '../../capture/capture-file.ts';
import type { CaptureRecord } from '../../capture/capture-schema.ts';
import type { EmulatorCaptureConfig } from '../types.ts';
import { captureRecordOf } from './capture-records.ts';
import type { PartitionLog } from './partition-log.ts';

export const DEFAULT_CAPTURE_INTERVAL_MS = 300_000;
export const DEFAULT_CAPTURE_SIZE_LIMIT_BYTES = 314_572_800;
export const DEFAULT_CAPTURE_NAMESPACE = 'emulatorNs1';

interface PartitionWindow {
  readonly log: PartitionLog;
  startMs: number;
  /** Next sequence number to take from the log. */
  next: number;
  records: CaptureRecord[];
  bytes: number;
  /** Time in the last file's name, in whole seconds (ms). */
  lastNameMs: number;
  /** Uploads of this partition, chained so files land in window order. */
  writing: Promise<void>;
}

export class CaptureWriter {
  readonly #container: ContainerClient;
  readonly #format: string;
  readonly #intervalMs: number;
  readonly #sizeLimit: number;
  readonly #windows: PartitionWindow[];
  readonly #unsubscribe: (() => void)[] = [];
  readonly #timer: NodeJS.Timeout;
  #containerReady: Promise<unknown> | undefined;
  /** Files written, for tests and the docs' numbers. */
  filesWritten = 0;

  constructor(
    readonly hub: string,
    logs: readonly PartitionLog[],
    private readonly config: EmulatorCaptureConfig,
    private readonly onError: (message: string) => void = () => undefined,
  ) {
    this.#container = BlobServiceClient.fromConnectionString(config.storageConnectionString).getContainerClient(
      config.blobContainer,
    );
    this.#format = config.archiveNameFormat ?? DEFAULT_ARCHIVE_NAME_FORMAT;
    this.#intervalMs = config.intervalMs ?? DEFAULT_CAPTURE_INTERVAL_MS;
    this.#sizeLimit = config.sizeLimitBytes ?? DEFAULT_CAPTURE_SIZE_LIMIT_BYTES;
    const now = Date.now();
    this.#windows = logs.map((log) => ({
      log,
      startMs: now,
      next: log.endSequenceNumber,
      records: [],
      bytes: 0,
      lastNameMs: 0,
      writing: Promise.resolve(),
    }));
    for (const w of this.#windows) this.#unsubscribe.push(w.log.onAppend(() => this.#take(w)));
    this.#timer = setInterval(() => this.#tick(), Math.max(10, Math.min(1_000, Math.floor(this.#intervalMs / 4))));
    this.#timer.unref();
  }

  /** Takes the partition's new events into its window (at once, so retention never races Capture). */
  #take(w: PartitionWindow): void {
    for (let event = w.log.get(w.next); event; event = w.log.get(w.next)) {
      w.next++;
      w.records.push(captureRecordOf(event, w.log.offsets.text(event.offset)));
      w.bytes += event.bytes.length;
      if (w.bytes >= this.#sizeLimit) this.#close(w, Date.now());
    }
  }

  #tick(): void {
    const now = Date.now();
    for (const w of this.#windows) if (now - w.startMs >= this.#intervalMs) this.#close(w, now);
  }

  /** Closes the partition's window: its file is written (unless empty and skipped); the next one starts now. */
  #close(w: PartitionWindow, now: number): void {
    const records = w.records;
    const startMs = w.startMs;
    w.records = [];
    w.bytes = 0;
    w.startMs = now;
    if (records.length === 0 && this.config.skipEmptyArchives) return;
    const nameMs = Math.max(Math.floor(startMs / 1000) * 1000, w.lastNameMs + 1000);
    w.lastNameMs = nameMs;
    const name = archiveBlobName(this.#format, {
      namespace: this.config.namespace ?? DEFAULT_CAPTURE_NAMESPACE,
      eventHub: this.hub,
      partitionId: w.log.partitionId,
      time: new Date(nameMs),
    });
    w.writing = w.writing.then(() => this.#upload(name, records));
  }

  async #upload(name: string, records: CaptureRecord[]): Promise<void> {
    try {
      const file = await encodeCaptureFile(records, this.config.encoding ?? 'Avro');
      this.#containerReady ??= this.#container.createIfNotExists();
      await this.#containerReady;
      await this.#container.getBlockBlobClient(name).upload(file, file.length);
      this.filesWritten++;
    } catch (error) {
      this.#containerReady = undefined;
      this.onError(`capture of hub '${this.hub}' could not write ${name}: ${(error as Error).message}`);
    }
  }

  /** Closes every open window now (empty ones too, unless skipped) and waits for the files. */
  async flush(): Promise<void> {
    const now = Date.now();
    for (const w of this.#windows) this.#close(w, now);
    await Promise.all(this.#windows.map((w) => w.writing));
  }

  /** Stops capturing; files already closed are still written. Open windows are dropped, as a deleted hub's. */
  async stop(): Promise<void> {
    clearInterval(this.#timer);
    for (const off of this.#unsubscribe) off();
    await Promise.all(this.#windows.map((w) => w.writing));
  }
}
