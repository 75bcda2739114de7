import type { EventPosition } from '@azure/event-hubs';
import type { StartPosition } from '../consumer.ts';

/** Our start position as the SDK's EventPosition (the SDK turns it into the AMQP selector filter). */
export function toEventPosition(position: StartPosition): EventPosition {
  switch (position.kind) {
    case 'earliest':
      return { offset: '-1' };
    case 'latest':
      return { offset: '@latest' };
    case 'sequenceNumber':
      return { sequenceNumber: position.sequenceNumber, isInclusive: position.inclusive };
    case 'offset':
      return { offset: position.offset, isInclusive: position.inclusive };
    case 'enqueuedTime':
      return { enqueuedOn: position.enqueuedTime };
  }
}
