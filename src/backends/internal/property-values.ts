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
