import { checkServerIdentity } from 'node:tls';
import { CompressionAlgorithm, OTLPExporterBase } from '@opentelemetry/otlp-exporter-base';
import type { CreateSettings } from '../pipeline/factory.ts';
import type { SignalConsumer } from '../pipeline/consumer.ts';
import type { SignalItem } from '../pipeline/signal-items.ts';
import type { Signal } from '../pipeline/signals.ts';
import { otlpSignalSender, readTlsFiles } from './internal/otlp-common.ts';
import { measuredSerializer } from './internal/measured-serializer.ts';
import { OTLP_SIGNALS, type OtlpSignal } from './internal/otlp-signals.ts';
import { withPartialSuccessLog } from './internal/partial-success-log.ts';
import { combineSignalConsumers } from './internal/signal-consumers.ts';
import { GRPC_JS_VERSION_WRITTEN_FOR, trimGrpcAcceptEncoding } from './internal/grpc-js-accept-encoding.ts';
import type { OtlpGrpcExporterConfig } from './otlp-grpc-exporter-config.ts';

export { otlpGrpcExporterConfigSchema, type OtlpGrpcExporterConfig } from './otlp-grpc-exporter-config.ts';

/**
 * OTLP over gRPC: `@opentelemetry/exporter-logs-otlp-grpc`'s exporter (and its metrics and trace siblings)
 * rebuilt from its public parts with the one-pass protobuf encoders as serializers, and `@grpc/grpc-js` for
 * credentials and metadata, wrapped as a SignalConsumer for all three signals, each with its own
 * `retry_on_failure` and size bound: log records go to LogsService/Export, metric points to
 * opentelemetry.proto.collector.metrics.v1.MetricsService/Export, spans to
 * opentelemetry.proto.collector.trace.v1.TraceService/Export (internal/signal-consumers.ts). gRPC statuses CANCELLED,
 * DEADLINE_EXCEEDED, RESOURCE_EXHAUSTED with RetryInfo, ABORTED, OUT_OF_RANGE, UNAVAILABLE, DATA_LOSS are
 * retried; RESOURCE_EXHAUSTED without RetryInfo splits the request (src/pipeline/request-bytes-limit.ts,
 * which also keeps every request below `max_request_bytes`); any other status is permanent. TLS unless
 * `tls.insecure`.
 */
export async function createOtlpGrpcExporter(
  config: OtlpGrpcExporterConfig,
  settings?: CreateSettings,
): Promise<SignalConsumer> {
  const path = settings?.id ? `exporters.${settings.id}` : 'otlp';
  // Loaded on use, so configs without a gRPC exporter never load gRPC.
  const [grpc, grpcBase] = await Promise.all([
    import('@grpc/grpc-js'),
    import('@opentelemetry/otlp-grpc-exporter-base'),
  ]);
  // gzip must stay on against grpcio servers, which list their encodings with spaces (see the file).
  if (config.compression === 'gzip' && trimGrpcAcceptEncoding() === 'unknown-shape') {
    settings?.logger?.warn(
      'cannot keep gzip on against grpcio servers (@grpc/grpc-js internals changed): ' +
        'a server listing "identity, deflate, gzip" may receive uncompressed calls',
      { written_for: GRPC_JS_VERSION_WRITTEN_FOR },
    );
  }
  const hostPort = config.endpoint.replace(/^https?:\/\//, '').replace(/\/+$/, '');
  let credentials;
  if (config.tls.insecure) {
    credentials = grpc.credentials.createInsecure();
  } else {
    const { ca, cert, key } = await readTlsFiles(config.tls, path);
    const override = config.tls.server_name_override;
    credentials = grpc.credentials.createSsl(ca ?? null, key ?? null, cert ?? null, {
      rejectUnauthorized: !config.tls.insecure_skip_verify,
      ...(override
        ? {
            checkServerIdentity: (_host: string, peer: Parameters<typeof checkServerIdentity>[1]) =>
              checkServerIdentity(override, peer),
          }
        : {}),
    });
  }
  const metadata = new grpc.Metadata();
  for (const [k, v] of Object.entries(config.headers)) metadata.set(k, v);
  const name = settings?.id ?? 'otlp';
  // What `@opentelemetry/exporter-logs-otlp-grpc`'s OTLPLogExporter is (0.223.1), from the same public parts
  // of otlp-grpc-exporter-base, with the one-pass encoder as the serializer (the same bytes, less CPU); the
  // metrics and trace exporters the same with their service's method.
  const sender = <S extends Signal>(spec: OtlpSignal<S>): SignalConsumer => {
    const options = grpcBase.convertLegacyOtlpGrpcOptions(
      {
        url: `${config.tls.insecure ? 'http' : 'https'}://${hostPort}`,
        credentials,
        metadata,
        compression: config.compression === 'gzip' ? CompressionAlgorithm.GZIP : CompressionAlgorithm.NONE,
        timeoutMillis: config.timeout,
      },
      spec.envName,
    );
    // Measured requests are sent as measured: the size bound costs no second encoding.
    const watched = withPartialSuccessLog(spec.proto, spec.signal, name, settings?.logger);
    const serializer = measuredSerializer<unknown, SignalItem<S>>(watched);
    const delegate = grpcBase.createOtlpGrpcExportDelegate(
      options,
      serializer,
      spec.grpcComponent,
      spec.helper,
      undefined,
      spec.grpcServiceName,
      spec.grpcPath,
    );
    const exporter = new OTLPExporterBase<readonly SignalItem<S>[]>(delegate);
    // gRPC is protobuf: log records encoded ahead go as they are.
    return otlpSignalSender(exporter, spec.signal, serializer, config, name, settings, { encodedLogs: true });
  };
  return combineSignalConsumers(
    {
      logs: sender(OTLP_SIGNALS.logs),
      metrics: sender(OTLP_SIGNALS.metrics),
      traces: sender(OTLP_SIGNALS.traces),
    },
    name,
  );
}
