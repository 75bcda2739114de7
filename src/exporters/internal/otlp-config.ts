// The config keys `otlphttp` and `otlp` share, and their defaults: what `validate` needs, without the
// exporters' runtime (the OpenTelemetry exporter and transformer packages load when an exporter is created).
import { z } from 'zod';
import { durationMs } from '../../component/duration.ts';
import { retryOnFailureSchema } from '../../pipeline/retry.ts';

/** Per-request timeout of the OTLP exporters. 30 000 ms, as the collector's exporter helper. */
export const DEFAULT_OTLP_TIMEOUT_MS = 30_000;

/** The collector's client `tls` settings (configtls), the subset Node's HTTP and gRPC clients can honour. */
export const tlsSchema = z
  .strictObject({
    /**
     * gRPC (`otlp`): plaintext instead of TLS. HTTP (`otlphttp`): no effect, the endpoint scheme decides. Default
     * false.
     */
    insecure: z.boolean().default(false),
    /** Accept any server certificate (testing only). Default false. */
    insecure_skip_verify: z.boolean().default(false),
    /** PEM file of CA certificates to trust instead of the system roots. */
    ca_file: z.string().min(1).optional(),
    /** PEM client certificate for mutual TLS (with key_file). */
    cert_file: z.string().min(1).optional(),
    /** PEM client key for mutual TLS (with cert_file). */
    key_file: z.string().min(1).optional(),
    /** Server name to verify instead of the endpoint's host. */
    server_name_override: z.string().min(1).optional(),
  })
  .refine((t) => !!t.cert_file === !!t.key_file, {
    message: 'cert_file and key_file go together; set both or neither',
    path: ['cert_file'],
  });

export type TlsConfig = z.output<typeof tlsSchema>;

/**
 * Default `max_request_bytes` of `otlp` (gRPC): 4 MiB, the message limit of gRPC servers by default (the
 * collector's otlp receiver, grpc-go, grpc-js, C-core), less 64 KiB of headroom for proxies that count
 * more than the message. 4 128 768 bytes.
 */
export const DEFAULT_GRPC_MAX_REQUEST_BYTES = 4 * 1024 * 1024 - 64 * 1024;
/**
 * Default `max_request_bytes` of `otlphttp`: 8 MiB, well below the collector's `max_request_body_size`
 * (20 MiB, which it also applies after decompression); gzip (about 30:1 on Azure logs) makes that ~0.3 MB
 * on the wire, below common proxy limits such as nginx's 1 MiB. 8 388 608 bytes.
 */
export const DEFAULT_HTTP_MAX_REQUEST_BYTES = 8 * 1024 * 1024;
/** The smallest `max_request_bytes` accepted (0 aside). 1 KiB. */
export const MIN_MAX_REQUEST_BYTES = 1024;

/** `max_request_bytes`: 0 (no bound of ours) or at least 1 KiB, in bytes. */
export function maxRequestBytesSchema(defaultBytes: number) {
  return z
    .number({ error: 'expected a number of bytes, e.g. 4128768 (0: no bound)' })
    .int('expected a whole number of bytes')
    .refine((n) => n === 0 || n >= MIN_MAX_REQUEST_BYTES, {
      message: `must be 0 (no bound) or at least ${MIN_MAX_REQUEST_BYTES} bytes; requests are split to stay below it`,
    })
    .default(defaultBytes);
}

/** Keys shared by `otlphttp` and `otlp`. */
export const otlpCommonShape = {
  /** Extra request headers (gRPC metadata for `otlp`), e.g. an API key. Never logged. Default none. */
  headers: z.record(z.string(), z.string()).default({}),
  /** `gzip` or `none` (`""` means none; best for a collector on the same host). Default gzip, as the collector. */
  compression: z
    .enum(['gzip', 'none', ''], {
      error: 'expected gzip or none ("" means none); zstd is not available: Node 20\'s zlib has no zstd',
    })
    .default('gzip')
    .transform((c) => (c === '' ? 'none' : c)),
  /** Time one export request (one attempt of retry_on_failure) may take. Default 30 s. */
  timeout: durationMs.default(DEFAULT_OTLP_TIMEOUT_MS),
  tls: tlsSchema.prefault({}),
  /** Backoff for retryable failures; see the pipeline's retry. Defaults: 5 s, 30 s, 300 s, ×1.5, ±50 %. */
  retry_on_failure: retryOnFailureSchema.prefault({}),
  /**
   * Refused when enabled: true (see SENDING_QUEUE_REFUSAL). Accepted with `enabled: false`; other keys
   * (queue_size, num_consumers, ...) are accepted and ignored with a warning. Default: no queue.
   */
  sending_queue: z
    .looseObject({ enabled: z.boolean().optional() })
    .superRefine((q, ctx) => {
      if (q.enabled === true) ctx.addIssue({ code: 'custom', path: ['enabled'], message: SENDING_QUEUE_REFUSAL });
    })
    .optional(),
};

/**
 * Why `sending_queue.enabled: true` is refused rather than implemented: a queue acknowledges a batch when it
 * is queued, and the receiver checkpoints what is acknowledged, so a crash would lose every queued batch
 * the checkpoint already passed. Here the hub is the buffer: a batch is acknowledged only once exported.
 */
export const SENDING_QUEUE_REFUSAL =
  'is not supported: a sending queue acknowledges batches before they are exported, and checkpoints follow ' +
  'acknowledgements, so a crash would lose queued events. The hub is the buffer here: each batch is checkpointed ' +
  'only after export. Remove sending_queue (or set enabled: false); for throughput raise max_poll_events or ' +
  'add the batch processor, and use retry_on_failure for outages';

/** Warnings for an accepted `sending_queue` section (enabled false or not given): its settings change nothing. */
export function sendingQueueWarnings(config: { sending_queue?: Record<string, unknown> }): string[] {
  const q = config.sending_queue;
  if (!q) return [];
  const others = Object.keys(q).filter((k) => k !== 'enabled');
  if (q.enabled === false && others.length === 0) return [];
  return [
    'sending_queue: ignored; there is no sending queue here (the hub is the buffer, batches are checkpointed after ' +
      'export)',
  ];
}
