import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';
import { PermanentError } from '../component/errors.ts';
import type { SignalConsumer } from './consumer.ts';
import type { SignalBatch } from './signal-batch.ts';
import type { MetricPoint, Signal, SpanRecord } from './signals.ts';
import { abortReason, sleep } from '../component/abort.ts';

export interface InMemorySignalConsumerOptions {
  /** Time each `consume` takes before it accepts, to simulate a slow exporter. Default 0 ms. */
  readonly delayMs?: number;
}

/** A retryable failure scripted with `failNext`. */
export class ScriptedFailureError extends Error {
  override readonly name = 'ScriptedFailureError';
}

interface Waiter {
  readonly signal: Signal;
  readonly count: number;
  readonly resolve: () => void;
}

/**
 * A `SignalConsumer` that keeps every accepted batch in memory, for tests and for users embedding the
 * receiver: log records, metric points and spans. Failures can be scripted (`failNext`) to exercise retry,
 * dead-lettering and at-least-once.
 */
export class InMemorySignalConsumer implements SignalConsumer {
  /** Batches accepted, in order. */
  readonly batches: SignalBatch[] = [];
  /** Every call to `consume`, including failed ones. */
  calls = 0;
  #delayMs: number;
  #failures: ('retryable' | 'permanent')[] = [];
  #waiters: Waiter[] = [];
  readonly #counts: Record<Signal, number> = { logs: 0, metrics: 0, traces: 0 };
  #shutdown = false;

  constructor(options: InMemorySignalConsumerOptions = {}) {
    this.#delayMs = options.delayMs ?? 0;
  }

  async consume(batch: SignalBatch, signal?: AbortSignal): Promise<void> {
    this.calls++;
    if (signal?.aborted) throw abortReason(signal);
    if (this.#shutdown) throw new PermanentError('in-memory consumer is shut down');
    const failure = this.#failures.shift();
    if (this.#delayMs > 0) await sleep(this.#delayMs, signal);
    if (failure === 'permanent') throw new PermanentError(`scripted permanent failure (call ${this.calls})`);
    if (failure === 'retryable') throw new ScriptedFailureError(`scripted retryable failure (call ${this.calls})`);
    this.batches.push(batch);
    this.#counts.logs += batch.records.length;
    this.#counts.metrics += batch.metrics?.length ?? 0;
    this.#counts.traces += batch.spans?.length ?? 0;
    this.#waiters = this.#waiters.filter((w) => {
      if (this.#counts[w.signal] < w.count) return true;
      w.resolve();
      return false;
    });
  }

  /** Makes the next `count` calls fail, retryably (a plain Error) or permanently (a PermanentError). */
  failNext(count: number, kind: 'retryable' | 'permanent' = 'retryable'): this {
    for (let i = 0; i < count; i++) this.#failures.push(kind);
    return this;
  }

  /** Every accepted record, in order. */
  records(): ReadableLogRecord[] {
    return this.batches.flatMap((b) => b.records);
  }

  /** Every accepted metric point, in order. */
  metricPoints(): MetricPoint[] {
    return this.batches.flatMap((b) => b.metrics ?? []);
  }

  /** Every accepted span, in order. */
  spans(): SpanRecord[] {
    return this.batches.flatMap((b) => b.spans ?? []);
  }

  /** Resolves with all records once at least `count` were accepted; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs: number): Promise<ReadableLogRecord[]> {
    await this.#wait('logs', count, timeoutMs);
    return this.records();
  }

  /** Resolves with all metric points once at least `count` were accepted; rejects after `timeoutMs`. */
  async waitForMetricPoints(count: number, timeoutMs: number): Promise<MetricPoint[]> {
    await this.#wait('metrics', count, timeoutMs);
    return this.metricPoints();
  }

  /** Resolves with all spans once at least `count` were accepted; rejects after `timeoutMs`. */
  async waitForSpans(count: number, timeoutMs: number): Promise<SpanRecord[]> {
    await this.#wait('traces', count, timeoutMs);
    return this.spans();
  }

  #wait(signal: Signal, count: number, timeoutMs: number): Promise<void> {
    if (this.#counts[signal] >= count) return Promise.resolve();
    return new Promise((resolve, reject) => {
      const waiter: Waiter = {
        signal,
        count,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      const what = { logs: 'records', metrics: 'metric points', traces: 'spans' }[signal];
      const timer = setTimeout(() => {
        this.#waiters = this.#waiters.filter((w) => w !== waiter);
        reject(new Error(`waited ${timeoutMs} ms for ${count} ${what}; have ${this.#counts[signal]}`));
      }, timeoutMs);
      timer.unref();
      this.#waiters.push(waiter);
    });
  }

  /** Forgets accepted batches, counters and scripted failures. */
  reset(): void {
    this.batches.length = 0;
    this.calls = 0;
    this.#counts.logs = 0;
    this.#counts.metrics = 0;
    this.#counts.traces = 0;
    this.#failures = [];
  }

  async forceFlush(): Promise<void> {}

  async shutdown(): Promise<void> {
    this.#shutdown = true;
  }
}
