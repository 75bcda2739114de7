/** Numeric partition ids ("2" before "10"), then anything else in string order. */
export function comparePartitionIds(a: string, b: string): number {
  const na = Number(a);
  const nb = Number(b);
  const aNumeric = a !== '' && Number.isInteger(na);
  const bNumeric = b !== '' && Number.isInteger(nb);
  if (aNumeric && bNumeric) return na - nb;
  if (aNumeric !== bNumeric) return aNumeric ? -1 : 1;
  return a < b ? -1 : a > b ? 1 : 0;
}

export function sortPartitionIds(ids: Iterable<string>): string[] {
  return [...ids].sort(comparePartitionIds);
}
