import type { RecordRoute } from '../../azure-decoder.ts';
import type { DecoderOptions } from '../../decoder.ts';

/**
 * The `azure` format's metrics route: Azure platform metric records (`metricName`) become metric points.
 * Placeholder until the metrics mapping lands: takes nothing, so every record stays a log record.
 */
export function createMetricRoute(_options: DecoderOptions): RecordRoute {
  return () => false;
}
