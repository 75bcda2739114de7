import { createRequire } from 'node:module';
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';

const packageJson = createRequire(import.meta.url)('../../../package.json') as { version?: string };

/** Name of the instrumentation scope on every record this receiver produces. */
export const SCOPE_NAME = 'otelcol-azure-eventhub';

/**
 * The one scope object shared by every record: sdk-logs requires a stable identity per scope, and the OTLP
 * transformer groups records by object identity.
 */
export const INSTRUMENTATION_SCOPE: ReadableLogRecord['instrumentationScope'] = Object.freeze({
  name: SCOPE_NAME,
  version: packageJson.version ?? '0.0.0',
});
