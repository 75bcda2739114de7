/**
 * A client's source or target, as rhea 3.0.5 decoded it, turned into the plain fields object that rhea's
 * `link.set_source` / `set_target` expect. Handing rhea the decoded object itself copied its internal `value`
 * array too (lib/types.js `create` copies every enumerable property), and for an empty terminus that array is
 * rhea's List0 array, shared by every empty list in the process: the setters then wrote the terminus fields
 * into it, and every empty list decoded or created afterwards, by the emulator or by rhea clients in the same
 * process, had 11 items (found by the frame conformance test).
 */
export function plainTerminus(terminus: unknown): Record<string, unknown> {
  const fields: Record<string, unknown> = {};
  if (!terminus || typeof terminus !== 'object') return fields;
  // The named fields are getters on the decoded composite's prototype: for..in sees them, Object.keys does not.
  for (const name in terminus) {
    if (name === 'value') continue;
    const value = (terminus as Record<string, unknown>)[name];
    if (value !== undefined && value !== null && typeof value !== 'function') fields[name] = value;
  }
  return fields;
}
