/**
 * The hub as `replay` reads it: partitions come from the hub, events from Capture files of a time range
 * (enqueued in [from, to)), in sequence order per partition. A partition's reader returns nothing once its
 * files are read and reports it done, with progress per file along the way.
 */
import type { HubClient, LastEnqueuedInfo, PartitionReader, ReceivedEvent } from '../../backends/consumer.ts';
import type { CapturePartitionReader } from '../../capture/capture-reader.ts';
import type { CaptureRecord } from '../../capture/capture-schema.ts';
import { pause } from '../../component/abort.ts';
import { receivedEventOf } from './capture-event.ts';
import { hubWithReaders } from './hub-with-readers.ts';

export interface ReplayProgress {
  readonly partitionId: string;
  readonly filesRead: number;
  readonly filesTotal: number;
  readonly events: number;
  readonly done: boolean;
}

export interface CaptureReplayOptions {
  readonly capture: (partitionId: string) => CapturePartitionReader;
  readonly from: Date;
  readonly to: Date;
  readonly onProgress: (progress: ReplayProgress) => void;
}

export function captureReplayHub(hub: HubClient, options: CaptureReplayOptions): HubClient {
  return hubWithReaders(hub, (id) => new ReplayReader(id, options));
}

class ReplayReader implements PartitionReader {
  #files: string[] | undefined;
  #queue: CaptureRecord[] = [];
  #filesRead = 0;
  #events = 0;
  #done = false;
  readonly #reader: CapturePartitionReader;

  constructor(
    readonly partitionId: string,
    private readonly o: CaptureReplayOptions,
  ) {
    this.#reader = o.capture(partitionId);
  }

  async receive(maxEvents: number, maxWaitMs: number, signal: AbortSignal): Promise<ReceivedEvent[]> {
    this.#files ??= (await this.#reader.listFiles(signal)).map((f) => f.name);
    while (this.#queue.length === 0 && this.#filesRead < this.#files.length) {
      const from = this.o.from.getTime();
      const to = this.o.to.getTime();
      const records = await this.#reader.readFile(this.#files[this.#filesRead]!, signal);
      this.#queue.push(...records.filter((r) => r.enqueuedTime.getTime() >= from && r.enqueuedTime.getTime() < to));
      this.#filesRead++;
      this.#report();
    }
    const batch = this.#queue.splice(0, maxEvents);
    if (batch.length > 0) {
      this.#events += batch.length;
      return batch.map(receivedEventOf);
    }
    if (!this.#done) {
      this.#done = true;
      this.#report();
    }
    await pause(maxWaitMs, signal);
    return [];
  }

  #report(): void {
    this.o.onProgress({
      partitionId: this.partitionId,
      filesRead: this.#filesRead,
      filesTotal: this.#files?.length ?? 0,
      events: this.#events + this.#queue.length,
      done: this.#done,
    });
  }

  lastEnqueued(): LastEnqueuedInfo | undefined {
    return undefined;
  }

  async close(): Promise<void> {
    this.#queue = [];
  }
}
