import { test } from 'node:test';
import assert from 'node:assert/strict';
import { alternateNamespaces } from '../../../src/ownership/namespace-spellings.ts';

const KEY = 'SharedAccessKeyName=k;SharedAccessKey=v';

test('an Endpoint naming a port: the Python SDK spelling host:port is the alternate', () => {
  assert.deepEqual(alternateNamespaces(`Endpoint=sb://127.0.0.1:5671;${KEY}`, '127.0.0.1'), ['127.0.0.1:5671']);
  assert.deepEqual(
    alternateNamespaces(
      `Endpoint=sb://NS.servicebus.windows.net:5671/;${KEY};EntityPath=h`,
      'ns.servicebus.windows.net',
    ),
    ['ns.servicebus.windows.net:5671'],
  );
  assert.deepEqual(alternateNamespaces(`${KEY};endpoint = sb://localhost:40123/`, 'localhost'), ['localhost:40123']);
});

test('no port, no connection string, or no Endpoint: no alternate (every SDK writes the same names)', () => {
  assert.deepEqual(
    alternateNamespaces(`Endpoint=sb://ns.servicebus.windows.net/;${KEY}`, 'ns.servicebus.windows.net'),
    [],
  );
  assert.deepEqual(alternateNamespaces(undefined, 'ns.servicebus.windows.net'), []);
  assert.deepEqual(alternateNamespaces(KEY, 'ns'), []);
  assert.deepEqual(alternateNamespaces(`Endpoint=sb://[::1];${KEY}`, '::1'), []);
});
