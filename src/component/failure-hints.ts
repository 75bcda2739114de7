/**
 * What a failure says about itself. Backend errors (`BackendError`) and storage errors (`StorageError`)
 * carry `permanent` (retrying with the same configuration cannot help), the `configKey` to fix and a `hint`;
 * this reads them from any error, for the pump's retry policy, the health state and log lines alike.
 */
export interface FailureHints {
  readonly permanent: boolean;
  readonly configKey?: string;
  readonly hint?: string;
}

export function failureHints(error: unknown): FailureHints {
  const e = error as { permanent?: unknown; configKey?: unknown; hint?: unknown; code?: unknown } | undefined;
  // A refused credential is permanent even from an error that does not say (e.g. thrown before classification).
  const permanent = e?.permanent === true || (e?.permanent === undefined && e?.code === 'Unauthorized');
  return { permanent, ...errorHints(error) };
}

/** Only the `configKey` and `hint` an error carries, as log fields. */
export function errorHints(error: unknown): { configKey?: string; hint?: string } {
  const e = error as { configKey?: unknown; hint?: unknown } | undefined;
  return {
    ...(typeof e?.configKey === 'string' ? { configKey: e.configKey } : {}),
    ...(typeof e?.hint === 'string' ? { hint: e.hint } : {}),
  };
}
