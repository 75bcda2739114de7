/** The `configKey` and `hint` an error may carry (backend and storage errors), as log fields. */
export function errorHints(error: unknown): { configKey?: string; hint?: string } {
  const e = error as { configKey?: unknown; hint?: unknown } | undefined;
  return {
    ...(typeof e?.configKey === 'string' ? { configKey: e.configKey } : {}),
    ...(typeof e?.hint === 'string' ? { hint: e.hint } : {}),
  };
}
