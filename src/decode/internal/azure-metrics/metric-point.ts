import type { HrTime } from '@opentelemetry/api';
import type { AnyValueMap } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
import type { MetricPoint } from '../../../pipeline/signals.ts';
import { GO_EMPTY_SCOPE } from '../scope.ts';

/**
 * Points carry no attributes, as in Go: the Event Hubs metadata that log records get (sequence number,
 * offset, ...) would make every event a new time series. One frozen object is shared by all points.
 */
export const NO_POINT_ATTRIBUTES: AnyValueMap = Object.freeze({});

/** One gauge point with every field present, so all points share one object shape. */
export function gaugePoint(
  resource: Resource,
  name: string,
  startTime: HrTime | undefined,
  time: HrTime,
  value: number,
): MetricPoint {
  return {
    resource,
    scope: GO_EMPTY_SCOPE,
    name,
    // The Go receiver sets neither: Azure's diagnostic-settings export does not say a metric's unit.
    unit: '',
    description: '',
    kind: 'gauge',
    startTime,
    time,
    value,
    attributes: NO_POINT_ATTRIBUTES,
  };
}
