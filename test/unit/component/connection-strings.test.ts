import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { parseEventHubConnectionString } from '@azure/event-hubs';
import { BlobServiceClient } from '@azure/storage-blob';
import {
  eventHubsConnectionStringProblem,
  storageConnectionStringProblem,
} from '../../../src/component/connection-strings.ts';

const KEY = 'a2V5LXZhbHVlLWZvci10ZXN0cw==';

/**
 * Whether the storage SDK takes it and yields a client with a usable URL (where `TypeError: Invalid URL` came from).
 */
function sdkTakesStorage(text: string): boolean {
  try {
    const url = BlobServiceClient.fromConnectionString(text).getContainerClient('c').url;
    return new URL(url).hostname !== '';
  } catch {
    return false;
  }
}

describe('storage connection strings: refused at validate exactly when the SDK would fail at run time', () => {
  const cases: [string, boolean][] = [
    [`DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${KEY};EndpointSuffix=core.windows.net`, true],
    [
      `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};BlobEndpoint=http://` +
        `127.0.0.1:10000/devstoreaccount1;`,
      true,
    ],
    ['UseDevelopmentStorage=true', true],
    ['BlobEndpoint=https://acct.blob.core.windows.net/;SharedAccessSignature=sv=2020-08-04&sig=abc', true],
    [`garbage;AccountName=x`, false],
    [`AccountName=acct;AccountKey=${KEY}`, false],
    [`DefaultEndpointsProtocol=https;AccountKey=${KEY};EndpointSuffix=core.windows.net`, false],
    [`DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=${KEY};BlobEndpoint=notaurl`, false],
    ['SharedAccessSignature=sv=2020&sig=abc', false],
    ['just text', false],
  ];
  for (const [text, ok] of cases) {
    test(`${ok ? 'accepted' : 'refused'}: ${text.replace(KEY, '<key>').slice(0, 70)}`, () => {
      assert.equal(sdkTakesStorage(text), ok, 'the SDK agrees with the table');
      const problem = storageConnectionStringProblem(text);
      assert.equal(problem === undefined, ok, problem);
      if (problem) assert.ok(!problem.includes(KEY) && !problem.includes('abc'), 'no value is quoted');
    });
  }
});

describe('Event Hubs connection strings', () => {
  test('a portal string, an emulator string and a SAS string are accepted, and the SDK parses them', () => {
    for (const text of [
      `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=listen;SharedAccessKey=${KEY};EntityPath=hub`,
      `Endpoint=sb://127.0.0.1:5672;SharedAccessKeyName=k;SharedAccessKey=${KEY};UseDevelopmentEmulator=true`,
      'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessSignature=SharedAccessSignature sr=x&sig=y&se=1&skn=k',
    ]) {
      assert.equal(eventHubsConnectionStringProblem(text), undefined, text);
      assert.doesNotThrow(() => parseEventHubConnectionString(text));
    }
  });

  test(
    'no URL, no host (an unset ${env:NS}), no key, or no pairs at all: refused, naming the part, not its ' + 'value',
    () => {
      assert.match(
        eventHubsConnectionStringProblem(`Endpoint=notaurl;SharedAccessKeyName=k;SharedAccessKey=${KEY}`)!,
        /Endpoint that is not a URL/,
      );
      assert.match(
        eventHubsConnectionStringProblem(
          `Endpoint=sb://.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=${KEY}`,
        )!,
        /Endpoint that is not a URL/,
      );
      assert.match(
        eventHubsConnectionStringProblem('Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k')!,
        /needs SharedAccessKeyName and SharedAccessKey/,
      );
      assert.match(
        eventHubsConnectionStringProblem(`SharedAccessKeyName=k;SharedAccessKey=${KEY}`)!,
        /has no Endpoint/,
      );
      assert.match(eventHubsConnectionStringProblem('invalid')!, /is not a connection string/);
      assert.ok(!eventHubsConnectionStringProblem(`Endpoint=x;SharedAccessKey=${KEY}`)!.includes(KEY));
    },
  );
});
