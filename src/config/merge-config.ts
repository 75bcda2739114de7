/**
 * Merges config documents the way the collector merges several `--config` files: maps merge key by
 * key, recursively; anything else (scalars, lists) in a later document replaces the earlier value.
 * Inputs are not modified.
 */
export function mergeConfig(base: unknown, override: unknown): unknown {
  if (!isPlainObject(base) || !isPlainObject(override)) return override === undefined ? base : override;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(override)) out[key] = key in base ? mergeConfig(base[key], value) : value;
  return out;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}
