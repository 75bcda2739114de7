import { EventHubConsumerClient } from '@azure/event-hubs';

/**
 * A real SDK client that never connects: a placeholder key on a closed port (the constructor does not
 * connect), for tests that read its private fields. Close it when done.
 */
export function unconnectedClient(): EventHubConsumerClient {
  return new EventHubConsumerClient(
    '$Default',
    'Endpoint=sb://127.0.0.1:1/;SharedAccessKeyName=k;SharedAccessKey=placeholder;EntityPath=h;' +
      'UseDevelopmentEmulator=true',
  );
}
