import type { ReadableLogRecord } from '@opentelemetry/sdk-logs';

/**
 * Copies of records whose attributes and body carry no double marks (Go's float64 numbers,
 * src/pipeline/double-values.ts): a JSON round trip drops the non-enumerable mark. For comparing this package's
 * encoders with upstream's, which knows no marks and writes every whole number as an int.
 */
export function withoutDoubleMarks(records: readonly ReadableLogRecord[]): ReadableLogRecord[] {
  return records.map((r) => ({
    ...r,
    attributeDoubles: undefined, // the decoders' mark of a record's own attributes
    bodyDoubles: undefined, // and of its map body
    attributes: JSON.parse(JSON.stringify(r.attributes)),
    body: r.body === undefined ? undefined : JSON.parse(JSON.stringify(r.body)),
  }));
}
