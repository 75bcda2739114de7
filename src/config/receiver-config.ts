import { z } from 'zod';
import { durationMs } from '../component/duration.ts';
import { retryOnFailureSchema } from '../pipeline/retry.ts';
import { startPositionSchema } from './start-position.ts';
import { quoteValue } from '../component/redact.ts';
import { eventHubsConnectionStringProblem, storageConnectionStringProblem } from '../component/connection-strings.ts';
import { AMQP_TRANSPORTS, parseProxyUrl } from '../component/network-proxy.ts';
import { DEFAULT_ARCHIVE_NAME_FORMAT, archiveNameFormatProblem } from '../capture/archive-name-format.ts';
import {
  DEFAULT_CHECKPOINT_INTERVAL_MS,
  DEFAULT_CONSUMER_GROUP,
  DEFAULT_FOREIGN_OWNERSHIP_EXPIRY_MS,
  DEFAULT_HUB_LAG_INTERVAL_MS,
  DEFAULT_LEASE_DURATION_MS,
  DEFAULT_MAX_BATCHES_IN_FLIGHT,
  DEFAULT_MAX_POLL_EVENTS,
  DEFAULT_MEMORY_CHECK_INTERVAL_MS,
  DEFAULT_POLL_RATE_S,
  DEFAULT_SHUTDOWN_TIMEOUT_MS,
  DEFAULT_UPDATE_INTERVAL_MS,
  MAX_LEASE_DURATION_MS,
  MAX_MAX_BATCHES_IN_FLIGHT,
  MAX_MAX_POLL_EVENTS,
  MIN_LEASE_DURATION_MS,
} from './receiver-defaults.ts';

/**
 * The `azure_event_hub` receiver's config section. Keys follow the Go collector's `azureeventhub`
 * receiver so its configs run unchanged; our additions (backend, ownership, checkpoint, start_position,
 * retry_on_failure, dead_letter, ...) live beside them. Defaults live in the schema, so parsing `{}`
 * (plus a connection) yields the complete default config. Durations: Go-style strings or milliseconds.
 */

const blobCheckpointStore = z.strictObject({
  /** Storage connection string (account key or SAS). Either this or storage_account_url. */
  connection: z.string().min(1).optional(),
  /** Blob service URL, used with Entra ID auth. */
  storage_account_url: z.url().optional(),
  /** Container for ownership and checkpoint blobs. Required. */
  container_name: z.string().min(3, 'container names need at least 3 characters'),
  /** Create the container when it does not exist. Default false (the Go receiver requires it to exist). */
  create_container: z.boolean().default(false),
});

/** `capture`: where the hub's Capture files are, for backfill past retention and `replay` (docs/capture.md). */
const capture = z.strictObject({
  /** Storage connection string of the Capture account. Default: blob_checkpoint_store's account. */
  connection: z.string().min(1).optional(),
  /** Blob service URL of the Capture account, used with Entra ID auth. Default: blob_checkpoint_store's account. */
  storage_account_url: z.url().optional(),
  /** The Capture destination's container. Required. */
  container_name: z.string().min(3, 'container names need at least 3 characters'),
  /** The destination's archive name format; every token required. Default the service's default format. */
  archive_name_format: z.string().default(DEFAULT_ARCHIVE_NAME_FORMAT),
  /**
   * `{Namespace}` in blob names. Default the first label of the hub's namespace host (`myns` of
   * myns.servicebus.windows.net).
   */
  namespace: z.string().min(1).optional(),
});

const ownership = z
  .strictObject({
    /**
     * Blob lease duration, 15s to 60s. Default 30s: renewed every 10 s, so a crashed instance's partitions
     * are read again within about 35 s (lease + update_interval). 15s halves that at twice the renewals.
     */
    lease_duration: durationMs.default(DEFAULT_LEASE_DURATION_MS),
    /** Lease renewal interval. Default a third of lease_duration. */
    renew_interval: durationMs.optional(),
    /** How often ownership is rebalanced. Default 5s. */
    update_interval: durationMs.default(DEFAULT_UPDATE_INTERVAL_MS),
    /** `balanced` claims one partition per round; `greedy` its whole fair share at once. Default balanced. */
    strategy: z.enum(['balanced', 'greedy']).default('balanced'),
    /** This instance's owner id. Default a random UUID per process. */
    owner_id: z.string().min(1).optional(),
    /**
     * How long an ownership written by a processor outside this fleet (an Azure SDK processor, the Go
     * receiver, Filebeat) counts as live after its last write; its partitions are not read meanwhile.
     * Default 60s (the JS and Go SDKs); set 2m beside .NET processors; 0 turns the check off.
     */
    foreign_ownership_expiry: durationMs.default(DEFAULT_FOREIGN_OWNERSHIP_EXPIRY_MS),
  })
  .default({
    lease_duration: DEFAULT_LEASE_DURATION_MS,
    update_interval: DEFAULT_UPDATE_INTERVAL_MS,
    strategy: 'balanced',
    foreign_ownership_expiry: DEFAULT_FOREIGN_OWNERSHIP_EXPIRY_MS,
  });

/** Smallest `memory.limit_mib` accepted: the receiver's own heap at rest takes a few tens of MiB. 64 MiB. */
export const MIN_MEMORY_LIMIT_MIB = 64;

/**
 * Bounds the memory of the thread the receiver runs on without V8 flags (receiver/memory-guard.ts,
 * docs/embedding.md#memory). Off unless `limit_mib` is set.
 */
const memory = z
  .strictObject({
    /**
     * Memory of the receiver's thread (V8 heap in use plus Buffers: `heapUsed + external`), MiB, to stay
     * under: the receiver bounds V8's heap growth, collects garbage above it, and pauses reading while it
     * stays above. 0 = off. Default 0.
     */
    limit_mib: z
      .number()
      .int()
      .min(0)
      .default(0)
      .refine((n) => n === 0 || n >= MIN_MEMORY_LIMIT_MIB, {
        message:
          `must be 0 (off) or at least ${MIN_MEMORY_LIMIT_MIB}: the receiver alone holds a few tens of MiB ` +
          `at rest`,
      }),
    /** Time between measurements. Default 250ms. */
    check_interval: durationMs
      .refine((ms) => ms > 0, 'must be greater than zero')
      .default(DEFAULT_MEMORY_CHECK_INTERVAL_MS),
  })
  .default({ limit_mib: 0, check_interval: DEFAULT_MEMORY_CHECK_INTERVAL_MS });

const checkpoint = z
  .strictObject({
    /**
     * Checkpoint at most this often per partition. Default 10s: after a crash at most about this much of
     * each partition is read again; shorter costs one storage write per partition per interval.
     */
    interval: durationMs.default(DEFAULT_CHECKPOINT_INTERVAL_MS),
    /** Also checkpoint after this many events since the last one; 0 disables. Default 0. */
    every_n_events: z.number().int().min(0).default(0),
  })
  .default({ interval: DEFAULT_CHECKPOINT_INTERVAL_MS, every_n_events: 0 });

/**
 * An event offset. Only checked for what can never be an offset (blank, surrounding whitespace, control
 * characters): offsets are opaque strings (decimal on most namespaces, not on geo-replicated ones).
 */
function checkOffset(value: string, ctx: z.RefinementCtx): void {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it looks for
  if (value.trim() === '' || value.trim() !== value || /[\u0000-\u001f\u007f]/.test(value)) {
    const message =
      `${quoteValue(value)} is not an offset: copy it as the hub or a checkpoint shows it, without ` + `spaces`;
    ctx.addIssue({ code: 'custom', message });
  }
}

/** Whether `id` can be a partition id: the hub lists them as "0", "1", ... */
const isPartitionId = (id: string) => /^\d+$/.test(id);
const notAPartitionId = (id: string) =>
  `${quoteValue(id)} is not a partition id; partition ids are 0, 1, 2, ... as the hub lists them`;

const partitionStart = z
  .strictObject({
    /** Sequence number to start at (-1: before the first event). */
    sequence_number: z.number().int().min(-1).optional(),
    /** Offset to start at (opaque; not necessarily a number). */
    offset: z.string().superRefine(checkOffset).optional(),
    /** Include the event at that position. Default false (start after it). */
    inclusive: z.boolean().default(false),
  })
  .refine(
    (p) => (p.sequence_number === undefined) !== (p.offset === undefined),
    'give exactly one of sequence_number or offset',
  );

/**
 * What happens to a batch the exporter refuses (permanently, or after `retry_on_failure.max_elapsed_time`).
 * Without this section nothing is dropped: the partition holds and retries with capped backoff until the
 * batch is accepted (the hub is the buffer; lag grows). With a store (`directory` or `container`) the
 * events are written there, then checkpointed past. `drop: true` is the explicit opt-in to discard them.
 */
const deadLetter = z
  .strictObject({
    /** A directory of JSON-lines files. */
    directory: z.string().min(1).optional(),
    /** A blob container (uses `connection`, or the checkpoint store's account). */
    container: z.string().min(3).optional(),
    /** Storage connection string for `container`. Default: the checkpoint store's account. */
    connection: z.string().min(1).optional(),
    /** Discard refused batches (counted, logged, checkpointed past) instead of holding the partition. Default false. */
    drop: z.boolean().default(false),
  })
  .superRefine((d, ctx) => {
    if (d.directory && d.container)
      ctx.addIssue({ code: 'custom', path: [], message: 'give either directory or container, not both' });
    if (d.drop && (d.directory || d.container)) {
      const message =
        'drop: true discards refused batches, a store keeps them; give drop: true or directory/container, not both';
      ctx.addIssue({ code: 'custom', path: ['drop'], message });
    }
    if (!d.drop && !d.directory && !d.container) {
      const message =
        'give directory or container (to keep refused batches), or drop: true (to discard them); or remove dead_letter';
      ctx.addIssue({ code: 'custom', path: [], message });
    }
    if (d.connection && !d.container)
      ctx.addIssue({ code: 'custom', path: ['connection'], message: 'only applies with container' });
  });

const authObject = z.looseObject({
  type: z.enum(['connection_string', 'default', 'managed_identity', 'workload_identity', 'service_principal']),
});

/**
 * The section's shape with its defaults, before cross-field checks: `receiverConfigObject.parse({})` is the default
 * config.
 */
export const receiverConfigObject = z.strictObject({
  /** Event Hubs connection string (SharedAccessKey or SharedAccessSignature; may carry EntityPath). */
  connection: z.string().min(1).optional(),
  /** Entra ID: the id of an auth extension (Go receiver style) or an inline auth object. */
  auth: z.union([z.string().min(1), authObject]).optional(),
  event_hub: z
    .strictObject({ name: z.string().min(1).optional(), namespace: z.string().min(1).optional() })
    .default({}),
  /** Consumer group. Default `$Default`. */
  group: z.string().min(1).default(DEFAULT_CONSUMER_GROUP),
  /** Read only this partition (no ownership balancing). Default: all partitions. */
  // Not checked for being a partition id: the Go receiver's own test configs use `partition: foo`.
  partition: z.string().default(''),
  /** Go receiver: start offset for `partition` when there is no checkpoint (exclusive). */
  offset: z
    .string()
    .default('')
    .superRefine((offset, ctx) => void (offset === '' || checkOffset(offset, ctx))),
  /**
   * Go receiver: id of a storage extension. Accepted with a warning, unused: checkpoints go to blob_checkpoint_store.
   */
  storage: z.string().optional(),
  /** Go receiver: refuse `connection` and require `auth`. Default false. */
  require_auth: z.boolean().default(false),
  /**
   * `azure` (resource logs), `azure_encoding` (the Go azure_encoding extension's output), `raw`, `json`;
   * `""` means azure, as in the Go receiver (its default). Default azure.
   */
  format: z
    .enum(['azure', 'azure_encoding', 'raw', 'json', ''])
    .default('azure')
    .transform((f) => (f === '' ? 'azure' : f)),
  /** Go receiver: encoding extension id. `azure_encoding` or `azure_encoding/<name>` selects format azure_encoding. */
  encoding: z.string().optional(),
  /** `azure_encoding` format: decode only these categories. Default all. Set from the extension's `logs` section. */
  include_categories: z.array(z.string()).default([]),
  /** `azure_encoding` format: drop these categories (wins over include_categories). Default none. */
  exclude_categories: z.array(z.string()).default([]),
  apply_semantic_conventions: z.boolean().default(false),
  /**
   * Event Hubs metadata on log records: `none`, `eventhubs` (all under `azure.eventhubs.*`) or `messaging`
   * (`messaging.*`, `server.address`; the names before 0.2, never replacing a name the content uses); `true` is
   * `eventhubs`, `false` `none`. Default `none` for azure and azure_encoding (as the Go receiver), `messaging`
   * for raw and json.
   */
  event_metadata: z
    .union([z.boolean(), z.enum(['none', 'eventhubs', 'messaging'])], {
      error: 'expected none, eventhubs or messaging (or true / false)',
    })
    .optional(),
  /** A deterministic `log.record.uid` on each log record, for de-duplication downstream. Default false. */
  record_uid: z.boolean().default(false),
  /** Extra timestamp layouts per signal (Go reference-time layouts), tried before the built-in ones. Default none. */
  time_formats: z
    .strictObject({
      logs: z.array(z.string()).optional(),
      metrics: z.array(z.string()).optional(),
      traces: z.array(z.string()).optional(),
    })
    .default({}),
  /**
   * Azure metrics (with a metrics pipeline): `""` (default) gives one gauge per aggregation (total, count,
   * minimum, maximum, average), `average` one gauge per record, the average; the Go receiver's two values.
   */
  metric_aggregation: z
    .string()
    .optional()
    .superRefine((value, ctx) => {
      if (value === undefined || value === '' || value === 'average') return;
      const message =
        `${quoteValue(value)} is not an aggregation mode: use "" (a gauge per aggregation) or ` +
        `"average" (one gauge, the average), as the Go receiver`;
      ctx.addIssue({ code: 'custom', message });
    }),
  /** Regex sanitizers tried, in order, only on events whose JSON does not parse. */
  sanitizers: z.array(z.strictObject({ pattern: z.string().min(1), replacement: z.string() })).default([]),
  /** Most events per batch handed to the pipeline. Default 100. */
  max_poll_events: z.number().int().min(1).max(MAX_MAX_POLL_EVENTS).default(DEFAULT_MAX_POLL_EVENTS),
  /** Longest wait, in seconds, before handing over fewer than max_poll_events. Default 5. */
  poll_rate: z.number().min(0).default(DEFAULT_POLL_RATE_S),
  /** Events buffered per partition ahead of the pipeline. 0 = 300; negative disables. Default 0. */
  prefetch_count: z.number().int().default(0),
  /**
   * Batches of one partition in the pipeline at once: the next is handed over while earlier ones are still
   * exported; the checkpoint passes a batch only once it and every earlier one were delivered. Default 2.
   */
  max_batches_in_flight: z.number().int().min(1).max(MAX_MAX_BATCHES_IN_FLIGHT).default(DEFAULT_MAX_BATCHES_IN_FLIGHT),
  /**
   * Threads that decode events and encode the log records as OTLP protobuf, off the pipeline's thread:
   * `auto` (one fewer than the cores, counting a container's CPU quota: none on one core, at most 2),
   * 0 (off) or a number. Used only where every pipeline of the receiver is a logs pipeline whose
   * processors and exporters take encoded records (`batch` without send_batch_max_size, `memory_limiter`;
   * `otlphttp` with encoding proto, `otlp`); elsewhere decoding stays on the pipeline's thread. Default auto.
   */
  decode_workers: z
    .union([z.literal('auto'), z.number().int().min(0).max(64)], {
      error: 'expected auto, 0 (off) or a number of threads up to 64',
    })
    .default('auto'),
  /** `polling` (default) or `streaming`; when absent, the receiver.azureeventhub.streaming gate decides. */
  backend: z.enum(['polling', 'streaming']).optional(),
  /**
   * `amqp` (AMQP over TCP, TLS port 5671) or `amqp_websockets` (AMQP over WebSockets: `wss`, port 443, path
   * `/$servicebus/websocket`; for networks that allow only 443 or an HTTP proxy). Default amqp.
   */
  transport: z.enum(AMQP_TRANSPORTS).default('amqp'),
  /**
   * HTTP(S) CONNECT proxy, `http://[user:password@]host:port`, for AMQP over WebSockets and blob storage;
   * needs `transport: amqp_websockets`. Default: `HTTPS_PROXY` / `ALL_PROXY` / `HTTP_PROXY` minus `NO_PROXY`.
   * Never printed with its credentials.
   */
  proxy_url: z.string().min(1).optional(),
  blob_checkpoint_store: blobCheckpointStore.optional(),
  ownership,
  checkpoint,
  /**
   * Without a checkpoint: `latest` (default), `earliest`, an RFC 3339 time, or a look-back duration ("1h").
   * Parsed here, once, into a `StartPositionSetting`.
   */
  start_position: startPositionSchema,
  /** Per-partition start without a checkpoint: `{ "0": { sequence_number: 42 } }`. A checkpoint wins. */
  partition_start: z
    .record(z.string(), partitionStart)
    .default({})
    .superRefine((entries, ctx) => {
      for (const id of Object.keys(entries)) {
        if (!isPartitionId(id)) ctx.addIssue({ code: 'custom', path: [id], message: notAPartitionId(id) });
      }
    }),
  /** Backoff for retryable export failures; the same section and defaults as the exporters' (pipeline/retry.ts). */
  retry_on_failure: retryOnFailureSchema.prefault({}),
  /**
   * Where refused batches go: a store, or `drop: true`. Absent: nothing is dropped; the partition holds and retries.
   */
  dead_letter: deadLetter.optional(),
  /**
   * Event Hubs Capture of this hub: events that expired from the hub before they were read are read from its
   * files instead (backfill), and `replay` reads time ranges from them. Default off.
   */
  capture: capture.optional(),
  /** The hub's retention, for the retention headroom ratio (the service does not report it). */
  retention: durationMs.optional(),
  /** Bounds the receiver's memory without V8 flags: `limit_mib` (MiB, 0 = off), `check_interval`. Default off. */
  memory,
  /** Longest graceful stop. Default 30s. */
  shutdown_timeout: durationMs.default(DEFAULT_SHUTDOWN_TIMEOUT_MS),
  /**
   * A checkpoint that cannot be right (beyond the partition's last sequence number: a recreated hub, a
   * reused container): `fail` (default) leaves the partition unread and the receiver unhealthy until
   * `checkpoints reset`; `earliest` / `latest` rewrite the checkpoint there and read on (logged, counted).
   */
  on_invalid_checkpoint: z.enum(['fail', 'earliest', 'latest']).default('fail'),
  /**
   * How often the hub-wide lag (every partition, whoever owns it) is read from the hub and the checkpoint
   * store: one management call and one checkpoint read per partition each time. Default 30s; 0 turns it off.
   */
  hub_lag_interval: durationMs.default(DEFAULT_HUB_LAG_INTERVAL_MS),
});

export const receiverConfigSchema = receiverConfigObject
  // `when: () => true` runs these checks even when a field failed, so every problem is reported at once;
  // fields that failed still hold their raw input here, hence the type guards.
  .superRefine(
    (c, ctx) => {
      const num = (v: unknown): v is number => typeof v === 'number';
      if (!c.connection && !c.auth)
        ctx.addIssue({
          code: 'custom',
          path: ['connection'],
          message: 'required: give a connection string, or auth with event_hub.name and event_hub.namespace',
        });
      const hub = c.event_hub ?? {};
      if (!c.connection && c.auth) {
        if (!hub.name)
          ctx.addIssue({ code: 'custom', path: ['event_hub', 'name'], message: 'required when auth is used' });
        if (!hub.namespace)
          ctx.addIssue({ code: 'custom', path: ['event_hub', 'namespace'], message: 'required when auth is used' });
      }
      if (typeof c.connection === 'string' && !/EntityPath=/i.test(c.connection) && !hub.name) {
        ctx.addIssue({
          code: 'custom',
          path: ['event_hub', 'name'],
          message: 'required: the connection string has no EntityPath',
        });
      }
      const hubProblem = typeof c.connection === 'string' ? eventHubsConnectionStringProblem(c.connection) : undefined;
      if (hubProblem) ctx.addIssue({ code: 'custom', path: ['connection'], message: hubProblem });
      if (c.require_auth === true && !c.auth) {
        ctx.addIssue({ code: 'custom', path: ['auth'], message: 'required when require_auth is true' });
      }
      if (c.require_auth === true && c.connection) {
        const message = 'must not be set when require_auth is true (as in the Go receiver); use auth';
        ctx.addIssue({ code: 'custom', path: ['connection'], message });
      }
      if (c.offset && !c.partition)
        ctx.addIssue({
          code: 'custom',
          path: ['offset'],
          message: 'only applies with partition; set partition, or use partition_start',
        });
      if (c.encoding && !isAzureEncodingId(c.encoding)) {
        ctx.addIssue({
          code: 'custom',
          path: ['encoding'],
          message:
            `encoding extension "${c.encoding}" is not supported; use encoding: azure_encoding (or ` +
            `azure_encoding/<name>), or format: azure | azure_encoding | raw | json`,
        });
      }
      const b = c.blob_checkpoint_store;
      if (b && !!b.connection === !!b.storage_account_url) {
        ctx.addIssue({
          code: 'custom',
          path: ['blob_checkpoint_store', 'connection'],
          message: 'give exactly one of connection or storage_account_url',
        });
      }
      checkBlobStoreExclusions(c, ctx);
      const storageStrings = [
        [['blob_checkpoint_store', 'connection'], b?.connection],
        [['dead_letter', 'connection'], c.dead_letter?.connection],
        [['capture', 'connection'], c.capture?.connection],
      ] as const;
      for (const [path, text] of storageStrings) {
        const problem = typeof text === 'string' ? storageConnectionStringProblem(text) : undefined;
        if (problem)
          ctx.addIssue({
            code: 'custom',
            path: [...path],
            message: `${problem} (a storage account connection string)`,
          });
      }
      const o = c.ownership ?? {};
      if (
        num(o.lease_duration) &&
        (o.lease_duration < MIN_LEASE_DURATION_MS || o.lease_duration > MAX_LEASE_DURATION_MS)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['ownership', 'lease_duration'],
          message: `must be between 15s and 60s (blob leases allow no other durations), got ${o.lease_duration} ms`,
        });
      } else if (num(o.lease_duration) && o.lease_duration % 1000 !== 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['ownership', 'lease_duration'],
          message: `must be whole seconds (blob leases are set in seconds), got ${o.lease_duration} ms`,
        });
      }
      if (num(o.renew_interval) && num(o.lease_duration) && o.renew_interval > o.lease_duration / 2) {
        ctx.addIssue({
          code: 'custom',
          path: ['ownership', 'renew_interval'],
          message:
            `(${o.renew_interval} ms) must be at most half of lease_duration (${o.lease_duration} ms); set ` +
            `it to about a third (${Math.round(o.lease_duration / 3)} ms)`,
        });
      }
      if (num(c.hub_lag_interval) && c.hub_lag_interval !== 0 && c.hub_lag_interval < 1_000) {
        const message =
          `must be 0 (off) or at least 1s: every round reads each partition once; got ` + `${c.hub_lag_interval} ms`;
        ctx.addIssue({ code: 'custom', path: ['hub_lag_interval'], message });
      }
      if (typeof c.proxy_url === 'string') {
        const proxy = parseProxyUrl(c.proxy_url);
        if (!proxy.ok) ctx.addIssue({ code: 'custom', path: ['proxy_url'], message: proxy.message });
        else if (c.transport !== 'amqp_websockets') {
          const message =
            'needs transport: amqp_websockets (AMQP over TCP cannot go through an HTTP proxy; ' +
            'the Azure SDKs too use a proxy only with WebSockets)';
          ctx.addIssue({ code: 'custom', path: ['proxy_url'], message });
        }
      }
      checkCapture(c.capture, b, ctx);
      if (c.dead_letter?.container && !c.dead_letter.connection && !b) {
        ctx.addIssue({
          code: 'custom',
          path: ['dead_letter', 'connection'],
          message: 'required for a dead-letter container when there is no blob_checkpoint_store',
        });
      }
    },
    { when: () => true },
  );

function checkCapture(
  c: { connection?: unknown; storage_account_url?: unknown; archive_name_format?: unknown } | undefined,
  checkpointStore: unknown,
  ctx: z.RefinementCtx,
): void {
  if (!c) return;
  if (c.connection && c.storage_account_url) {
    ctx.addIssue({
      code: 'custom',
      path: ['capture', 'connection'],
      message: 'give at most one of connection or storage_account_url',
    });
  }
  if (!c.connection && !c.storage_account_url && !checkpointStore) {
    const message =
      'required (or storage_account_url) when there is no blob_checkpoint_store to share the account with';
    ctx.addIssue({ code: 'custom', path: ['capture', 'connection'], message });
  }
  const problem =
    typeof c.archive_name_format === 'string' ? archiveNameFormatProblem(c.archive_name_format) : undefined;
  if (problem)
    ctx.addIssue({
      code: 'custom',
      path: ['capture', 'archive_name_format'],
      message: `${problem}; copy it from the hub's Capture settings`,
    });
}

/** What users write (keys optional where a default exists). */
export type ReceiverConfigInput = z.input<typeof receiverConfigSchema>;
/** The validated config with every default filled in. */
export type ReceiverConfig = z.output<typeof receiverConfigSchema>;

/** `azure_encoding` or `azure_encoding/<name>`: the only encoding extension this receiver implements. */
export function isAzureEncodingId(id: string): boolean {
  return /^azure_encoding(\/[^/\s]+)?$/.test(id);
}

/**
 * The Go receiver refuses `blob_checkpoint_store` together with `partition`/`offset` or `storage`
 * (config.go Validate: "mutually exclusive"): a fixed partition bypasses the fleet's leases, so its
 * checkpoints would be written without a lease. Refused the same way here, saying what to use instead.
 */
function checkBlobStoreExclusions(
  c: { partition?: unknown; offset?: unknown; storage?: unknown; blob_checkpoint_store?: unknown },
  ctx: z.RefinementCtx,
): void {
  if (!c.blob_checkpoint_store) return;
  const why = 'cannot be used with blob_checkpoint_store (the Go receiver refuses it too)';
  const issue = (key: string, message: string) => ctx.addIssue({ code: 'custom', path: [key], message });
  if (c.partition) {
    issue(
      'partition',
      `${why}: the fleet's leases decide which instance reads which partition, and checkpoints are written only ` +
        'under a lease. Remove partition to share all partitions; to start one partition at a position use ' +
        'partition_start',
    );
  }
  if (c.offset) issue('offset', `${why}; use partition_start: { "<id>": { offset: "<offset>" } }`);
  if (c.storage) issue('storage', `${why}: checkpoints go to blob_checkpoint_store; remove storage`);
}
