/**
 * Application property values as both backends hand them over: what the wire holds, as rhea decodes it,
 * except that timestamps become ms numbers, as the SDK's `ReceivedEventData.properties` has them. Binary
 * values stay bytes (the SDK's `properties` turns them into objects of byte values, `{ '0': 1, ... }`).
 */
export function datesToNumbers(value: unknown): unknown {
  if (value instanceof Date) return value.getTime();
  if (Array.isArray(value)) return value.map(datesToNumbers);
  if (value !== null && typeof value === 'object' && !(value instanceof Uint8Array)) {
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = datesToNumbers(v);
    return out;
  }
  return value;
}

/**
 * The polling backend's application properties from the raw AMQP map and the SDK's copy of it. The SDK's
 * copy (`convertDatesToNumbers`, @azure/event-hubs 6.0.4) differs from `datesToNumbers(raw)` only in values
 * that are objects (timestamps, binary, lists, maps): when every value is a string, number or boolean, it
 * is the same map, already copied, and is taken as it is instead of copying the raw map once more per event.
 */
export function pollingProperties(
  raw: Record<string, unknown>,
  sdkCopy: Record<string, unknown> | undefined,
): Record<string, unknown> {
  if (sdkCopy !== undefined) {
    let primitive = true;
    for (const key in raw) {
      const v = raw[key];
      if (typeof v === 'object' && v !== null) {
        primitive = false;
        break;
      }
    }
    if (primitive) return sdkCopy;
  }
  return datesToNumbers(raw) as Record<string, unknown>;
}
