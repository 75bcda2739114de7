import {
  CompressionAlgorithm,
  OTLPExporterBase,
  type OTLPExporterNodeConfigBase,
} from '@opentelemetry/otlp-exporter-base';
import { convertLegacyHttpOptions, createOtlpHttpExportDelegate } from '@opentelemetry/otlp-exporter-base/node-http';
import { PermanentError } from '../component/errors.ts';
import type { CreateSettings } from '../pipeline/factory.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import { signalItems, type SignalItem } from '../pipeline/signal-items.ts';
import type { Signal } from '../pipeline/signals.ts';
import { otlpSignalSender, readTlsFiles } from './internal/otlp-common.ts';
import { measuredSerializer, type MeasuredSerializer } from './internal/measured-serializer.ts';
import { disableLibraryRetry, OTLP_EXPORTER_BASE_VERSION } from './internal/otlp-exporter-base-retry.ts';
import { OTLP_SIGNALS, type OtlpSignal } from './internal/otlp-signals.ts';
import { withPartialSuccessLog } from './internal/partial-success-log.ts';
import { combineSignalConsumers } from './internal/signal-consumers.ts';
import {
  DEFAULT_GZIP_LEVEL,
  effectiveGzipLevel,
  GzipTransport,
  ZLIB_DEFAULT_GZIP_LEVEL,
} from './internal/gzip-transport.ts';
import type { OtlpHttpExporterConfig } from './otlp-http-exporter-config.ts';

export { otlpHttpExporterConfigSchema, type OtlpHttpExporterConfig } from './otlp-http-exporter-config.ts';

/** The gzip level the exporter uses: compression_level, else compression_params.level, else 1. */
export function gzipLevel(config: Pick<OtlpHttpExporterConfig, 'compression_level' | 'compression_params'>): number {
  return effectiveGzipLevel(config.compression_level ?? config.compression_params?.level ?? DEFAULT_GZIP_LEVEL);
}

type EndpointKeys = 'endpoint' | 'logs_endpoint' | 'metrics_endpoint' | 'traces_endpoint';

/**
 * The URL a signal is posted to: its own key, else `<endpoint>/v1/<signal>`; undefined when neither is set
 * (a batch of that signal is then refused permanently, naming the key to set).
 */
export function signalUrl(config: Pick<OtlpHttpExporterConfig, EndpointKeys>, signal: Signal): string | undefined {
  const own =
    signal === 'logs' ? config.logs_endpoint : signal === 'metrics' ? config.metrics_endpoint : config.traces_endpoint;
  if (own) return own;
  return config.endpoint ? `${config.endpoint.replace(/\/+$/, '')}/${OTLP_SIGNALS[signal].httpPath}` : undefined;
}

/**
 * OTLP over HTTP on the OpenTelemetry JS exporters' parts (see createSignalExporter), wrapped as a
 * SignalConsumer for all three signals: a batch's log records go to `/v1/logs`, its metric points to
 * `/v1/metrics`, its spans to `/v1/traces` (or the `*_endpoint` keys), each signal in requests of its own,
 * and the batch is acknowledged when the server answered 2xx to every request
 * (internal/signal-consumers.ts). 4xx other than 408/429 is permanent; 5xx, 408, 429, network errors and
 * timeouts are retried by `retry_on_failure`, per signal and only by it: the library's own retry is turned
 * off (internal/otlp-exporter-base-retry.ts), so one attempt is one HTTP request. A Retry-After on a
 * 429/502/503/504 makes the next attempt wait at least that long. With gzip, bodies are compressed at
 * `compression_level` by our transport step (internal/gzip-transport.ts). Requests stay below
 * `max_request_bytes`, and a 413 splits the request (src/pipeline/request-bytes-limit.ts).
 */
export async function createOtlpHttpExporter(
  config: OtlpHttpExporterConfig,
  settings?: CreateSettings,
): Promise<SignalConsumer> {
  const path = settings?.id ? `exporters.${settings.id}` : 'otlphttp';
  const tlsFiles = await readTlsFiles(config.tls, path);
  const name = settings?.id ?? 'otlphttp';
  const warned = new Set<string>();
  const warnOnce = (message: string, fields: Record<string, unknown>) => {
    if (warned.has(message)) return;
    warned.add(message);
    settings?.logger?.warn(message, fields);
  };
  const context = { name, path, tlsFiles, warnOnce, settings };
  const [logs, metrics, traces] = await Promise.all([
    signalSender(OTLP_SIGNALS.logs, config, context),
    signalSender(OTLP_SIGNALS.metrics, config, context),
    signalSender(OTLP_SIGNALS.traces, config, context),
  ]);
  return combineSignalConsumers({ logs, metrics, traces }, name);
}

interface SenderContext {
  readonly name: string;
  readonly path: string;
  readonly tlsFiles: { ca?: Buffer; cert?: Buffer; key?: Buffer };
  readonly warnOnce: (message: string, fields: Record<string, unknown>) => void;
  readonly settings?: CreateSettings;
}

/**
 * One signal's sender: its own library exporter posting to the signal's URL, with `retry_on_failure` and
 * `max_request_bytes` of its own, so a retry resends only this signal's request.
 */
async function signalSender<S extends Signal>(
  spec: OtlpSignal<S>,
  config: OtlpHttpExporterConfig,
  context: SenderContext,
): Promise<SignalConsumer> {
  const { name, settings } = context;
  const url = signalUrl(config, spec.signal);
  if (url === undefined) {
    const keys = `${context.path}.endpoint or ${context.path}.${spec.signal}_endpoint`;
    return {
      consume: (batch) =>
        signalItems(batch, spec.signal).length === 0
          ? Promise.resolve()
          : Promise.reject(new PermanentError(`${name}: no URL for ${spec.signal}: set ${keys}`)),
    };
  }
  const { ca, cert, key } = context.tlsFiles;
  const gzip = config.compression === 'gzip';
  const level = gzipLevel(config);
  // Measured requests are sent as measured: the size bound costs no second encoding.
  const encoder = config.encoding === 'json' ? spec.json : spec.proto;
  const watched = withPartialSuccessLog(encoder, spec.signal, name, settings?.logger);
  const serializer = measuredSerializer<unknown, SignalItem<S>>(watched);
  // gzip happens in our transport (internal/gzip-transport.ts) at `level`: the library is told to send the
  // body as is, and the header says what it is. `libraryGzip` is the fallback when that cannot be wired.
  const build = async (libraryGzip: boolean) => {
    const options: OTLPExporterNodeConfigBase = {
      url,
      headers: gzip && !libraryGzip ? { ...config.headers, 'Content-Encoding': 'gzip' } : { ...config.headers },
      compression: libraryGzip ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
      timeoutMillis: config.timeout,
      // Applies to https:// endpoints; the library drops ca/cert/key for http://.
      httpAgentOptions: {
        keepAlive: true,
        ca,
        cert,
        key,
        rejectUnauthorized: !config.tls.insecure_skip_verify,
        ...(config.tls.server_name_override ? { servername: config.tls.server_name_override } : {}),
      },
    };
    return createSignalExporter(spec, options, config.encoding, serializer);
  };
  let exporter = await build(false);
  // One retry_on_failure attempt = one HTTP request: the library's own retry layer is taken out.
  let retry = disableLibraryRetry(exporter, gzip ? (inner) => new GzipTransport(inner, level) : undefined);
  if (retry === 'unknown-shape' && gzip) {
    // Our transport could not go in: the body would leave uncompressed under a gzip header. Let the library gzip.
    await exporter.shutdown();
    exporter = await build(true);
    retry = disableLibraryRetry(exporter);
    const level6 = ZLIB_DEFAULT_GZIP_LEVEL;
    const message = `cannot set the gzip level (the OTLP library's internals changed): gzip at level ${level6}`;
    context.warnOnce(message, {
      written_for: OTLP_EXPORTER_BASE_VERSION,
      compression_level: level,
    });
  }
  if (retry === 'unknown-shape') {
    const message =
      "cannot turn off the OTLP library's own retry (its internals changed): an attempt may send several requests";
    context.warnOnce(message, { written_for: OTLP_EXPORTER_BASE_VERSION });
  }
  return otlpSignalSender(exporter, spec.signal, serializer, config, name, settings, {
    encodedLogs: config.encoding === 'proto',
  });
}

/**
 * What the OpenTelemetry JS OTLP/HTTP exporters (`@opentelemetry/exporter-logs-otlp-proto` and `-http`,
 * 0.223.1, and their metrics and trace siblings) are, built from the same public parts of
 * otlp-exporter-base, with the request serializer wrapped so the size bound measures the bytes that are
 * then sent (internal/measured-serializer.ts). For protobuf the serializer is our one-pass encoder of the
 * signal (internal/otlp-proto-*.ts; for logs the same bytes as upstream's, less CPU), for JSON our strict
 * encoder (internal/otlp-json-*.ts: strict OTLP/JSON, the same content as the proto encoding). Transport,
 * headers, compression, timeouts, partial-success logging and environment variables behave as in the
 * library's exporters.
 */
function createSignalExporter<S extends Signal>(
  spec: OtlpSignal<S>,
  options: OTLPExporterNodeConfigBase,
  encoding: 'proto' | 'json',
  serializer: MeasuredSerializer<unknown, SignalItem<S>>,
): OTLPExporterBase<readonly SignalItem<S>[]> {
  const contentType = encoding === 'json' ? 'application/json' : 'application/x-protobuf';
  const http = convertLegacyHttpOptions(options, spec.envName, spec.httpPath, { 'Content-Type': contentType });
  const delegate = createOtlpHttpExportDelegate(http, serializer, spec.httpComponent, spec.helper, undefined);
  return new OTLPExporterBase(delegate);
}
