/**
 * Workaround for `@grpc/grpc-js` internals, written for 1.14.7 (build/src/compression-filter.js).
 *
 * Why: gzip on the `otlp` exporter silently switched off against a grpcio (gRPC C-core) server after its
 * first answer. C-core advertises what it accepts as `grpc-accept-encoding: identity, deflate, gzip`,
 * with a space after each comma (src/core/lib/compression/compression_internal.cc, CommaSeparatedLists).
 * grpc-js's CompressionFilter splits that value on ',' without trimming (`receiveMetadata`), finds
 * " gzip" but no "gzip", concludes the server cannot decompress gzip, and from then on sends every message
 * of the channel uncompressed: the answer of the first call is remembered for the whole channel, so only
 * the calls started before it arrived were compressed. grpc-go had the same bug (grpc/grpc-go#6951, fixed
 * by trimming); C-core itself trims when it parses the header.
 *
 * How: `CompressionFilter.prototype.receiveMetadata` is wrapped so that the header's names are trimmed
 * ("identity,deflate,gzip") before the original reads them. Nothing else changes: a server that really
 * does not list gzip still turns compression off, as the gRPC compression spec asks.
 * test/unit/exporters/grpc-js-accept-encoding.test.ts fails when the installed version or this shape
 * changes, and test/integration/exporters/otlp-grpc-compression.test.ts counts compressed frames at a
 * server answering like grpcio.
 */
import { createRequire } from 'node:module';

/** The @grpc/grpc-js version this workaround was written and checked for. */
export const GRPC_JS_VERSION_WRITTEN_FOR = '1.14.7';

/** `patched`: spaced lists are trimmed. `unknown-shape`: grpc-js's internals differ; nothing was changed. */
export type AcceptEncodingPatchResult = 'patched' | 'unknown-shape';

const PATCHED = Symbol.for('otelcol-azure-eventhub.grpc-accept-encoding-trimmed');
const HEADER = 'grpc-accept-encoding';

interface MetadataLike {
  get(key: string): unknown[];
  set(key: string, value: string): void;
}

type ReceiveMetadata = (this: unknown, metadata: MetadataLike) => unknown;

/** Installs the workaround once per process (idempotent); safe to call before every exporter is built. */
export function trimGrpcAcceptEncoding(): AcceptEncodingPatchResult {
  let proto: { receiveMetadata?: ReceiveMetadata; [PATCHED]?: true } | undefined;
  try {
    const require = createRequire(import.meta.url);
    proto = require('@grpc/grpc-js/build/src/compression-filter.js')?.CompressionFilter?.prototype;
  } catch {
    return 'unknown-shape';
  }
  if (!proto || typeof proto.receiveMetadata !== 'function') return 'unknown-shape';
  if (proto[PATCHED]) return 'patched';
  const original = proto.receiveMetadata;
  proto.receiveMetadata = function receiveMetadata(this: unknown, metadata: MetadataLike) {
    const value = metadata?.get?.(HEADER)?.[0];
    if (typeof value === 'string' && /\s/.test(value)) {
      metadata.set(
        HEADER,
        value
          .split(',')
          .map((name) => name.trim())
          .filter(Boolean)
          .join(','),
      );
    }
    return original.call(this, metadata);
  };
  proto[PATCHED] = true;
  return 'patched';
}
