import type { RecordRoute } from '../../azure-decoder.ts';
import type { DecoderOptions } from '../../decoder.ts';

/**
 * The `azure` format's traces route: Application Insights requests and dependencies become spans.
 * Placeholder until the traces mapping lands: takes nothing, so every record stays a log record.
 */
export function createTraceRoute(_options: DecoderOptions): RecordRoute {
  return () => false;
}
