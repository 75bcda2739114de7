import { readFile } from 'node:fs/promises';
import { ConfigError } from '../../component/errors.ts';
import type { CreateSettings } from '../../pipeline/factory.ts';
import type { SignalConsumer } from '../../pipeline/consumer.ts';
import { fromItemExporter, type ItemExporter } from '../../pipeline/exporter-adapter.ts';
import { limitRequestBytes } from '../../pipeline/request-bytes-limit.ts';
import { retryOptionsFromConfig, withRetry, type RetryOnFailureConfig } from '../../pipeline/retry.ts';
import type { SignalItem } from '../../pipeline/signal-items.ts';
import type { Signal } from '../../pipeline/signals.ts';
import { withEncodedLogs } from './encoded-logs-sender.ts';
import type { TlsConfig } from './otlp-config.ts';
import type { MeasuredSerializer } from './measured-serializer.ts';

/** The PEM material a TLS section names, read from disk. A missing file is a ConfigError naming the key. */
export async function readTlsFiles(
  tls: TlsConfig,
  path: string,
): Promise<{ ca?: Buffer; cert?: Buffer; key?: Buffer }> {
  const read = async (file: string | undefined, key: string) => {
    if (!file) return undefined;
    try {
      return await readFile(file);
    } catch (error) {
      throw new ConfigError([
        `${path}.tls.${key}: cannot read '${file}': ${(error as NodeJS.ErrnoException).code ?? String(error)}`,
      ]);
    }
  };
  const [ca, cert, key] = await Promise.all([
    read(tls.ca_file, 'ca_file'),
    read(tls.cert_file, 'cert_file'),
    read(tls.key_file, 'key_file'),
  ]);
  return { ca, cert, key };
}

/** Extra time the adapter waits beyond `timeout` for the OTLP library's callback. 5 000 ms. */
const CALLBACK_GRACE_MS = 5_000;

/**
 * One signal's OTLP sender, the same for HTTP and gRPC: the library exporter as a consumer of that signal's
 * part, `retry_on_failure` around each attempt, and `max_request_bytes` measured with the bytes then sent.
 * With `encodedLogs` (protobuf logs senders), it also takes log records encoded ahead (encoded-logs-sender.ts).
 */
export function otlpSignalSender<S extends Signal>(
  exporter: ItemExporter<SignalItem<S>>,
  signal: S,
  serializer: MeasuredSerializer<unknown, SignalItem<S>>,
  config: {
    readonly timeout: number;
    readonly max_request_bytes: number;
    readonly retry_on_failure: RetryOnFailureConfig;
  },
  name: string,
  settings: Pick<CreateSettings, 'logger' | 'onExportAttempt'> | undefined,
  options: { readonly encodedLogs?: boolean } = {},
): SignalConsumer {
  const consumer = fromItemExporter(exporter, signal, { timeoutMs: config.timeout + CALLBACK_GRACE_MS, name });
  const logger = settings?.logger;
  const retrying = withRetry(
    consumer,
    retryOptionsFromConfig(config.retry_on_failure, { logger, onAttempt: settings?.onExportAttempt }),
  );
  const bounded = limitRequestBytes(retrying, {
    maxBytes: config.max_request_bytes,
    measure: serializer.measure,
    signal,
    name,
    logger,
  });
  if (!options.encodedLogs || signal !== 'logs') return bounded;
  const logsSerializer = serializer as MeasuredSerializer<unknown, SignalItem<'logs'>>;
  return withEncodedLogs(bounded, retrying, logsSerializer, { maxBytes: config.max_request_bytes, name });
}
