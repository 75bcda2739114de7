/**
 * An in-memory stand-in for the part of `@azure/storage-blob`'s ContainerClient that the lease coordinator
 * uses (list, create, lease acquire / renew / release, metadata), with blob lease semantics, and a way to make
 * requests of one kind slow: `hold('renew')` keeps every lease renewal waiting until the returned function is
 * called, or delays them by a fixed time. For unit tests of how the coordinator behaves when storage is slower
 * than its renewal rate; the integration tests run the same code against Azurite.
 */
import type { ContainerClient } from '@azure/storage-blob';

export type FakeOp = 'list' | 'create' | 'acquire' | 'renew' | 'release' | 'setMetadata' | 'getProperties';

interface FakeBlob {
  etag: string;
  metadata: Record<string, string>;
  lastModified: Date;
  lease?: { id: string; expiresAt: number; durationMs: number };
}

export interface FakeRequest {
  readonly op: FakeOp;
  readonly name: string;
  /** When it arrived (Date.now()). */
  readonly at: number;
}

const restError = (statusCode: number, errorCode: string): Error =>
  Object.assign(new Error(`fake storage: ${statusCode} ${errorCode}`), { statusCode, details: { errorCode } });

export class FakeContainer {
  readonly blobs = new Map<string, FakeBlob>();
  /** Every request, in the order it was answered. */
  readonly answered: FakeRequest[] = [];
  /** Requests waiting on a hold or a delay now. */
  readonly waiting: FakeRequest[] = [];
  #etags = 0;
  readonly #holds = new Map<FakeOp, Promise<void>>();
  readonly #delays = new Map<FakeOp, number>();
  readonly #failures = new Map<FakeOp, number>();

  /** Requests of `op` wait until the returned function is called. */
  hold(op: FakeOp): () => void {
    let release!: () => void;
    this.#holds.set(op, new Promise<void>((resolve) => (release = resolve)));
    return () => {
      this.#holds.delete(op);
      release();
    };
  }

  /** Requests of `op` are answered `ms` after they arrive. */
  delay(op: FakeOp, ms: number): void {
    this.#delays.set(op, ms);
  }

  /** The next request of `op` fails with `statusCode` (e.g. 503: busy, no answer about the lease). */
  failNext(op: FakeOp, statusCode: number): void {
    this.#failures.set(op, statusCode);
  }

  count(op: FakeOp, nameIncludes = ''): number {
    return this.answered.filter((r) => r.op === op && r.name.includes(nameIncludes)).length;
  }

  /** The ContainerClient the coordinator is given. */
  client(): ContainerClient {
    const container = {
      containerName: 'fake',
      getBlockBlobClient: (name: string) => this.#blobClient(name),
      listBlobsFlat: (options: { prefix?: string; abortSignal?: AbortSignal }) => ({
        byPage: () => this.#pages(options.prefix ?? '', options.abortSignal),
      }),
    };
    return container as unknown as ContainerClient;
  }

  async *#pages(prefix: string, signal?: AbortSignal): AsyncIterable<unknown> {
    await this.#gate({ op: 'list', name: prefix, at: Date.now() }, signal);
    const now = Date.now();
    const blobItems = [...this.blobs]
      .filter(([name]) => name.startsWith(prefix))
      .map(([name, b]) => ({
        name,
        metadata: { ...b.metadata },
        properties: {
          etag: b.etag,
          lastModified: b.lastModified,
          leaseState: b.lease && b.lease.expiresAt > now ? 'leased' : 'available',
        },
      }));
    yield { date: new Date(now), segment: { blobItems } };
  }

  #blobClient(name: string): unknown {
    const existing = (): FakeBlob => {
      const blob = this.blobs.get(name);
      if (!blob) throw restError(404, 'BlobNotFound');
      return blob;
    };
    const leaseOf = (blob: FakeBlob): FakeBlob['lease'] =>
      blob.lease && blob.lease.expiresAt > Date.now() ? blob.lease : undefined;
    const checkLease = (blob: FakeBlob, leaseId: string | undefined): void => {
      const lease = leaseOf(blob);
      if (lease && lease.id !== leaseId) throw restError(412, 'LeaseIdMismatchWithBlobOperation');
      if (!lease && leaseId !== undefined) throw restError(412, 'LeaseNotPresentWithBlobOperation');
    };
    const touch = (blob: FakeBlob): void => {
      blob.etag = `"${++this.#etags}"`;
      blob.lastModified = new Date();
    };
    type Options = {
      abortSignal?: AbortSignal;
      conditions?: { ifMatch?: string; ifNoneMatch?: string; leaseId?: string };
    };
    return {
      upload: async (_body: string, _length: number, options: Options & { metadata?: Record<string, string> }) => {
        await this.#gate({ op: 'create', name, at: Date.now() }, options.abortSignal);
        if (options.conditions?.ifNoneMatch === '*' && this.blobs.has(name)) throw restError(409, 'BlobAlreadyExists');
        const blob: FakeBlob = { etag: '', metadata: { ...options.metadata }, lastModified: new Date() };
        touch(blob);
        this.blobs.set(name, blob);
        return { etag: blob.etag };
      },
      setMetadata: async (metadata: Record<string, string>, options: Options) => {
        await this.#gate({ op: 'setMetadata', name, at: Date.now() }, options.abortSignal);
        const blob = existing();
        checkLease(blob, options.conditions?.leaseId);
        blob.metadata = { ...metadata };
        touch(blob);
        return { etag: blob.etag };
      },
      getProperties: async (options: Options) => {
        await this.#gate({ op: 'getProperties', name, at: Date.now() }, options.abortSignal);
        const blob = existing();
        return { metadata: { ...blob.metadata }, lastModified: blob.lastModified, date: new Date(), etag: blob.etag };
      },
      getBlobLeaseClient: (leaseId: string) => ({
        leaseId,
        acquireLease: async (seconds: number, options: Options) => {
          await this.#gate({ op: 'acquire', name, at: Date.now() }, options.abortSignal);
          const blob = existing();
          if (options.conditions?.ifMatch !== undefined && options.conditions.ifMatch !== blob.etag) {
            throw restError(412, 'ConditionNotMet');
          }
          const lease = leaseOf(blob);
          if (lease && lease.id !== leaseId) throw restError(409, 'LeaseAlreadyPresent');
          blob.lease = { id: leaseId, expiresAt: Date.now() + seconds * 1000, durationMs: seconds * 1000 };
          return { leaseId };
        },
        renewLease: async (options: Options) => {
          await this.#gate({ op: 'renew', name, at: Date.now() }, options.abortSignal);
          // The service renews when it processes the request, from then on.
          const lease = leaseOf(existing());
          if (!lease || lease.id !== leaseId) throw restError(409, 'LeaseIdMismatchWithLeaseOperation');
          lease.expiresAt = Date.now() + lease.durationMs;
          return { leaseId };
        },
        releaseLease: async (options: Options) => {
          await this.#gate({ op: 'release', name, at: Date.now() }, options.abortSignal);
          const blob = existing();
          const lease = leaseOf(blob);
          if (lease && lease.id !== leaseId) throw restError(409, 'LeaseIdMismatchWithLeaseOperation');
          blob.lease = undefined;
          return {};
        },
      }),
    };
  }

  /** Waits out the hold or delay of the request's kind (rejecting if aborted), then records it as answered. */
  async #gate(request: FakeRequest, signal?: AbortSignal): Promise<void> {
    const hold = this.#holds.get(request.op);
    const delayMs = this.#delays.get(request.op) ?? 0;
    if (hold || delayMs > 0) {
      this.waiting.push(request);
      try {
        await new Promise<void>((resolve, reject) => {
          const onAbort = (): void =>
            reject(Object.assign(new Error('The operation was aborted.'), { name: 'AbortError' }));
          if (signal?.aborted) return onAbort();
          signal?.addEventListener('abort', onAbort, { once: true });
          const timer =
            delayMs > 0 ? setTimeout(() => void (hold ?? Promise.resolve()).then(() => resolve()), delayMs) : undefined;
          if (!timer) void hold!.then(() => resolve());
        });
      } finally {
        this.waiting.splice(this.waiting.indexOf(request), 1);
      }
    } else {
      await Promise.resolve();
    }
    this.answered.push(request);
    const failure = this.#failures.get(request.op);
    if (failure !== undefined) {
      this.#failures.delete(request.op);
      throw restError(failure, 'ServerBusy');
    }
  }
}
