import type { HubClient, ReceivedEvent, StartPosition } from '../backends/consumer.ts';
import type { Decoder, DecodeContext } from '../decode/decoder.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import type { Signal } from '../pipeline/signals.ts';
import type { DeadLetterStore } from '../pipeline/dead-letter.ts';
import type { Checkpointer } from './checkpointer.ts';
import type { Logger } from '../component/logger.ts';
import type { ReceiverStatus } from './receiver-status.ts';
import type { PumpCounters } from './internal/pump-counters.ts';
import type { EncodedDecode } from './internal/decode-pool.ts';
import type { InFlightBudget } from './internal/in-flight-budget.ts';

/**
 * A reader that returns nothing for this long while the hub reports newer events is treated as stalled
 * and reopened after the last processed event (defence against a client stuck on a dead link).
 */
export const DEFAULT_STALL_TIMEOUT_MS = 15_000;
/** Event body bytes of one partition's batches in the pipeline at once; one batch always goes. 4 MiB. */
export const DEFAULT_BYTES_IN_FLIGHT = 4 * 1024 * 1024;

export interface PartitionPumpOptions {
  readonly hub: HubClient;
  readonly partitionId: string;
  readonly start: StartPosition;
  /**
   * The config key `start` came from (`checkpoint`, `partition_start`, `offset`, `start_position`), named if the
   * hub refuses it.
   */
  readonly startSource?: string;
  readonly ownerLevel?: number;
  readonly prefetchCount: number;
  /** Most events per batch. */
  readonly maxBatchSize: number;
  /**
   * Most batches of this partition in the pipeline at once: the next is handed over while earlier ones are
   * still exported; each is marked only once it and every earlier one were delivered. Default
   * DEFAULT_MAX_BATCHES_IN_FLIGHT (config/receiver-defaults.ts).
   */
  readonly maxBatchesInFlight?: number;
  /** Most event body bytes in those batches (one batch always goes). Default DEFAULT_BYTES_IN_FLIGHT. */
  readonly maxBytesInFlight?: number;
  /** The receiver's budget shared by all its partitions (internal/in-flight-budget.ts). Default none. */
  readonly inFlightBudget?: InFlightBudget;
  /** Longest wait for a batch, ms. */
  readonly maxWaitMs: number;
  readonly decode: Decoder;
  readonly context: DecodeContext;
  /**
   * Decodes a batch and encodes its log records off this thread (the receiver's decode pool), or undefined
   * when it cannot now. A rejected job is decoded here with `decode` instead, so nothing is lost or held.
   * Only given when the consumer takes encoded log records (`acceptsEncodedLogs`). Default: decode here.
   */
  readonly offload?: (events: ReceivedEvent[], context: DecodeContext) => Promise<EncodedDecode> | undefined;
  /** The pipeline; already wrapped with retry, so a rejection means "gave up" (or the stop signal). */
  readonly consumer: SignalConsumer;
  readonly checkpointer: Checkpointer;
  /** Where refused batches go. Without it (and without `dropRefused`) the partition holds and retries. */
  readonly deadLetter?: DeadLetterStore;
  /** The receiver's id (`azure_event_hub/logs`), named in dead-letter log lines. Default unnamed. */
  readonly receiverId?: string;
  /**
   * The signals the pipeline takes (the receiver's pipelines). Decoded items of any other signal (log records
   * of a receiver listed only by a metrics pipeline) are counted (`itemsWithoutPipeline`), logged and not
   * handed over: no pipeline could take them. Default every signal.
   */
  readonly signals?: ReadonlySet<Signal>;
  /** The user chose to drop batches the pipeline refuses (`dead_letter.drop`). Default false. */
  readonly dropRefused?: boolean;
  readonly counters: PumpCounters;
  readonly logger: Logger;
  readonly emit: (status: ReceiverStatus) => void;
  /** Reopen backoff after a transient reader failure, ms. Defaults 500 to 30000. */
  readonly reopenInitialMs?: number;
  readonly reopenMaxMs?: number;
  /** See DEFAULT_STALL_TIMEOUT_MS. Default 15000 ms. */
  readonly stallTimeoutMs?: number;
  /**
   * Wait between attempts at a refused batch the partition holds, ms (the receiver passes retry_on_failure's
   * intervals). Defaults 1000 to 60000.
   */
  readonly holdInitialMs?: number;
  readonly holdMaxMs?: number;
  /** A batch not delivered after this long puts the partition in `waiting` (batch-exporter.ts). Default 5000 ms. */
  readonly deliveryWaitReportMs?: number;
  /**
   * The reader accounts for retention gaps itself (Capture backfill, receiver/capture/): the decode step
   * does not count a skip in sequence numbers as lost again. Default false.
   */
  readonly gapsAccounted?: boolean;
  /** Undefined when the partition may read now, else resolves when it may (the memory guard's pause). */
  readonly readGate?: (signal: AbortSignal) => Promise<void> | undefined;
}
