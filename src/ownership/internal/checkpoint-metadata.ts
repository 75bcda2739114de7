/**
 * Parses the `sequencenumber` metadata value: a decimal integer, or -1, which the reset tool writes for
 * "before the first retained event" (with offset "-1", the value the Azure SDKs read as the earliest position:
 * their start filter becomes `x-opt-offset > '-1'`). Undefined when absent or malformed.
 */
export function parseSequenceNumber(value: string | undefined): number | undefined {
  const text = value?.trim();
  if (text === undefined || !/^(-1|\d+)$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isSafeInteger(n) ? n : undefined;
}

/** The checkpoint that means "read from the first retained event": sequence number -1, offset "-1". */
export const EARLIEST_CHECKPOINT = { sequenceNumber: -1, offset: '-1' } as const;
