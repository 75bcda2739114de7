/**
 * The AMQP source filter that sets where a receiver link starts. Event Hubs reads a
 * `apache.org:selector-filter:string` (descriptor 0x468C00000004) holding a SQL-like comparison on one
 * message annotation; `-1` is the first retained offset and `@latest` the next new event
 * (docs/EVENT-HUBS-PROTOCOL.md, "Receiving").
 */
import type { StartPosition } from '../consumer.ts';

export const SELECTOR_FILTER_NAME = 'apache.org:selector-filter:string';
export const SELECTOR_FILTER_DESCRIPTOR = 0x468c00000004;

const OFFSET = 'amqp.annotation.x-opt-offset';
const SEQUENCE_NUMBER = 'amqp.annotation.x-opt-sequence-number';
const ENQUEUED_TIME = 'amqp.annotation.x-opt-enqueued-time';

export function toSelectorFilter(position: StartPosition): string {
  switch (position.kind) {
    case 'earliest':
      return `${OFFSET} > '-1'`;
    case 'latest':
      return `${OFFSET} > '@latest'`;
    case 'sequenceNumber':
      if (!Number.isSafeInteger(position.sequenceNumber))
        throw new RangeError(`sequence number must be an integer, got ${position.sequenceNumber}`);
      return `${SEQUENCE_NUMBER} ${position.inclusive ? '>=' : '>'} '${position.sequenceNumber}'`;
    case 'offset':
      // The value sits inside single quotes; anything but a plain token would change the expression.
      if (!/^[-@\w.:]+$/.test(position.offset))
        throw new RangeError(`offset must be a plain token such as '1024', got '${position.offset}'`);
      return `${OFFSET} ${position.inclusive ? '>=' : '>'} '${position.offset}'`;
    case 'enqueuedTime': {
      const ms = position.enqueuedTime.getTime();
      if (!Number.isFinite(ms)) throw new RangeError('enqueued time is not a valid date');
      return `${ENQUEUED_TIME} > '${ms}'`;
    }
  }
}
