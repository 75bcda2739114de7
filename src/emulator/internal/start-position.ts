/**
 * The receiver's start position: the SDK sends it as a source filter `apache.org:selector-filter:string`
 * holding an SQL-like expression, e.g. `amqp.annotation.x-opt-offset > '-1'` (earliest),
 * `... > '@latest'`, `amqp.annotation.x-opt-sequence-number >= '42'` or
 * `amqp.annotation.x-opt-enqueued-time > '1700000000000'` (see @azure/event-hubs eventPosition.ts).
 */
import type { PartitionLog } from './partition-log.ts';

export type StartPosition =
  | { kind: 'offset'; offset: string; inclusive: boolean }
  | { kind: 'sequence'; sequenceNumber: number; inclusive: boolean }
  | { kind: 'time'; timeMs: number; inclusive: boolean }
  | { kind: 'earliest' };

/** Offsets with a meaning of their own in every format: before the first event, and the next new one. */
const SPECIAL_OFFSETS = new Set(['-1', '@latest']);

const FILTER_PATTERN = /^\s*amqp\.annotation\.x-opt-(offset|sequence-number|enqueued-time)\s*(>=|>)\s*'([^']*)'\s*$/i;

/** The selector filter's descriptor: 0x0000468C:0x00000004, or its symbolic name (AMQP filter registry). */
const SELECTOR_FILTER_CODE = 0x0000468c_00000004;
const SELECTOR_FILTER_NAME = 'apache.org:selector-filter:string';

/**
 * The selector expression in a source's filter map. The map's keys are the client's own names: the Azure
 * SDKs use the descriptor's name, rhea's `filter.selector()` `jms-selector`, Qpid Proton's `Selector`
 * `selector`; what makes an entry the selector is its descriptor. An entry named like the descriptor is
 * taken as the selector even without one.
 */
export function selectorExpression(filter: unknown): string | undefined {
  if (!filter || typeof filter !== 'object') return undefined;
  let named: unknown;
  for (const [key, value] of Object.entries(filter as Record<string, unknown>)) {
    const descriptor = (value as { descriptor?: { value?: unknown } } | null)?.descriptor;
    const code = descriptor && typeof descriptor === 'object' ? descriptor.value : descriptor;
    if (code === SELECTOR_FILTER_NAME || Number(code) === SELECTOR_FILTER_CODE) return expressionText(value);
    if (key === SELECTOR_FILTER_NAME) named = value;
  }
  return named === undefined ? undefined : expressionText(named);
}

function expressionText(value: unknown): string {
  const inner = (value as { value?: unknown } | null)?.value;
  return String(inner ?? value);
}

/** Parses a selector-filter expression; throws an Error with a user-facing reason when it is not one. */
export function parseStartFilter(expression: string | undefined): StartPosition {
  if (expression === undefined) return { kind: 'earliest' };
  const m = FILTER_PATTERN.exec(expression);
  if (!m) throw new Error(`The filter expression '${expression}' is not supported.`);
  const field = m[1]!.toLowerCase();
  const inclusive = m[2] === '>=';
  const value = m[3]!;
  // Whether an offset is one the partition wrote is checked against its log (offsetRefusal): offsets may
  // be opaque strings (geo-replicated namespaces).
  if (field === 'offset') {
    if (value === '') throw new Error(`The offset '${value}' is not valid.`);
    return { kind: 'offset', offset: value, inclusive };
  }
  const n = Number(value);
  if (!/^-?\d+$/.test(value) || !Number.isSafeInteger(n)) throw new Error(`The ${field} '${value}' is not valid.`);
  return field === 'sequence-number'
    ? { kind: 'sequence', sequenceNumber: n, inclusive }
    : { kind: 'time', timeMs: n, inclusive };
}

/**
 * The service's refusal of a position past the end of the partition, or undefined when it is fine. Event
 * Hubs detaches such a receiver with `com.microsoft:argument-error` and "The supplied offset '…' is invalid.
 * The last offset in the system is '…'" (the same for sequence numbers), rather than waiting at the end.
 * A position naming the next event to come (`> last`, `>= last + 1`) is fine; enqueued times never fail.
 */
export function pastEndRefusal(position: StartPosition, log: PartitionLog): string | undefined {
  const last = log.lastEnqueuedPosition;
  if (position.kind === 'offset' && !SPECIAL_OFFSETS.has(position.offset)) {
    const offset = log.offsets.parse(position.offset);
    if (offset === undefined) return `The offset '${position.offset}' is not valid.`;
    if (offset <= last.offset || (position.inclusive && offset <= log.nextOffsetValue)) return undefined;
    return (
      `The supplied offset '${position.offset}' is invalid. The last offset in the system is ` +
      `'${log.offsets.text(last.offset)}'.`
    );
  }
  if (position.kind === 'sequence') {
    const first = position.inclusive ? position.sequenceNumber : position.sequenceNumber + 1;
    if (first <= last.sequenceNumber + 1) return undefined;
    return (
      `The supplied sequence number '${position.sequenceNumber}' is invalid. The last sequence number in the ` +
      `system is '${last.sequenceNumber}'.`
    );
  }
  return undefined;
}

/** The sequence number of the first event to deliver, clamped to the retained range. */
export function resolveStartSequenceNumber(position: StartPosition, log: PartitionLog): number {
  const begin = log.beginSequenceNumber;
  const end = log.endSequenceNumber;
  let seq: number;
  switch (position.kind) {
    case 'earliest':
      seq = begin;
      break;
    case 'offset':
      if (position.offset === '-1') seq = begin;
      else if (position.offset === '@latest') seq = end;
      else seq = log.seekOffset(log.offsets.parse(position.offset) ?? Number.MAX_SAFE_INTEGER, position.inclusive);
      break;
    case 'sequence':
      seq = position.inclusive ? position.sequenceNumber : position.sequenceNumber + 1;
      break;
    case 'time':
      seq = log.seekEnqueuedTime(position.timeMs, position.inclusive);
      break;
  }
  return Math.min(Math.max(seq, begin), end);
}
