import { createRequire } from 'node:module';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';

const packageJson = createRequire(import.meta.url)('../../../package.json') as { version?: string };
const VERSION = packageJson.version ?? '0.0.0';

type Scope = ReadableLogRecord['instrumentationScope'];

/** Name of the instrumentation scope of the `raw` and `json` formats. */
export const SCOPE_NAME = 'otelcol-azure-eventhub';

/**
 * The one scope object shared by every record of a kind: sdk-logs requires a stable identity per scope, and the
 * OTLP encoders group records by object identity (and cache each scope's encoding).
 */
export const INSTRUMENTATION_SCOPE: Scope = Object.freeze({ name: SCOPE_NAME, version: VERSION });

/*
 * The `azure` and `azure_encoding` formats name the scope as the Go component whose output they reproduce does
 * (its package path; Go's version is the collector build's, ours the package's), so that output built on the Go
 * receiver's finds the same scope.
 */
/** pkg/translator/azure (the Go receiver's default translator). */
export const GO_AZURE_SCOPE: Scope = Object.freeze({
  name: 'github.com/open-telemetry/opentelemetry-collector-contrib/pkg/translator/azure',
  version: VERSION,
});
/** pkg/translator/azurelogs (`apply_semantic_conventions`): its metadata.ScopeName. */
export const GO_AZURELOGS_SCOPE: Scope = Object.freeze({ name: 'otelcol/azureresourcelogs', version: VERSION });

/** extension/encoding/azureencodingextension's scope name. */
export const GO_ENCODING_SCOPE_NAME =
  'github.com/open-telemetry/opentelemetry-collector-contrib/extension/encoding/azureencodingextension';
/** The scope attribute naming the log family (the extension's constants.FormatIdentificationTag). */
export const ATTR_ENCODING_FORMAT = 'encoding.format';
/** The extension's scope for a record it stored as text (no mapping applied): no `encoding.format`. */
export const GO_ENCODING_RAW_SCOPE: Scope = Object.freeze({ name: GO_ENCODING_SCOPE_NAME, version: VERSION });

const encodingScopes = new Map<string, Scope>();

/** The extension's scope for one `encoding.format` value, one frozen object per value. */
export function encodingScope(format: string): Scope {
  let scope = encodingScopes.get(format);
  if (scope === undefined) {
    scope = Object.freeze({
      name: GO_ENCODING_SCOPE_NAME,
      version: VERSION,
      attributes: Object.freeze({ [ATTR_ENCODING_FORMAT]: format }),
    });
    encodingScopes.set(format, scope);
  }
  return scope;
}

/**
 * The scope of metric points and spans (`azure` format): empty, as the Go receiver's metrics unmarshaler and traces
 * translator leave it (they set no name).
 */
export const GO_EMPTY_SCOPE: Scope = Object.freeze({ name: '' });
