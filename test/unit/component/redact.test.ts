import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { quoteValue, redact, redactError, REDACTED } from '../../../src/component/redact.ts';

const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';

describe('redact', () => {
  test('masks the credentials of a URL (a proxy URL), keeping scheme, host and port', () => {
    assert.equal(
      redact('proxy http://collector:S3cret-pa55@proxy.corp:3128 refused'),
      `proxy http://${REDACTED}@proxy.corp:3128 refused`,
    );
    assert.equal(redact('https://token-only@proxy:443'), `https://${REDACTED}@proxy:443`);
    assert.equal(
      redact('wss://ns.servicebus.windows.net:443/$servicebus/websocket'),
      'wss://ns.servicebus.windows.net:443/$servicebus/websocket',
    );
    assert.equal(redact('mail a@b.c, see http://host/path?q=a@b'), 'mail a@b.c, see http://host/path?q=a@b');
  });

  test('masks SharedAccessKey in an Event Hubs connection string, keeping the rest', () => {
    const cs =
      `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${KEY};` + `EntityPath=hub`;
    const out = redact(cs);
    assert.ok(!out.includes(KEY));
    assert.equal(
      out,
      `Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=${REDACTED};EntityPath=hub`,
    );
  });

  test('masks a SharedAccessSignature connection string value including its spaces', () => {
    const token = 'SharedAccessSignature sr=sb%3a%2f%2fns%2fhub&sig=abc%2Bdef%3D&se=1700000000&skn=Root';
    const out = redact(`Endpoint=sb://ns/;SharedAccessSignature=${token};EntityPath=hub`);
    assert.equal(out, `Endpoint=sb://ns/;SharedAccessSignature=${REDACTED};EntityPath=hub`);
  });

  test('masks AccountKey in a storage connection string', () => {
    const cs =
      `DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=${KEY};BlobEndpoint=http://` +
      `127.0.0.1:1/devstoreaccount1;`;
    const out = redact(cs);
    assert.ok(!out.includes(KEY));
    assert.match(out, /AccountKey=\*\*\*;BlobEndpoint=/);
  });

  test('masks sig= in a SAS URL and in a bare SAS token', () => {
    assert.equal(
      redact('https://a.blob.core.windows.net/c?sv=2020&sig=SECRET%3D&se=1'),
      `https://a.blob.core.windows.net/c?sv=2020&sig=${REDACTED}&se=1`,
    );
    assert.equal(
      redact('token SharedAccessSignature sr=x&sig=SECRET&se=1 refused'),
      `token SharedAccessSignature sr=x&sig=${REDACTED}&se=1 refused`,
    );
  });

  test('is case-insensitive and handles several secrets and quotes', () => {
    const out = redact(`"sharedaccesskey=K1" and 'accountkey=K2'`);
    assert.ok(!out.includes('K1') && !out.includes('K2'));
  });

  test('leaves text without secrets untouched', () => {
    const text = 'receiver for hub "h" partition 3 disconnected: amqp:link:stolen';
    assert.equal(redact(text), text);
  });

  test('redactError includes name and masked message', () => {
    const out = redactError(new TypeError(`bad connection string SharedAccessKey=${KEY}`));
    assert.equal(out, `TypeError: bad connection string SharedAccessKey=${REDACTED}`);
    assert.equal(redactError('SharedAccessKey=abc'), `SharedAccessKey=${REDACTED}`);
  });

  test('masks a bearer token quoted from an Authorization header', () => {
    assert.equal(
      redact('401 for Authorization: Bearer eyJ0eXAi.eyJhdWQi.c2lnbmF0dXJl=='),
      `401 for Authorization: Bearer ${REDACTED}`,
    );
  });
});

describe('quoteValue', () => {
  test('quotes a short, harmless value', () => {
    assert.equal(quoteValue('yesterday'), "'yesterday'");
    assert.equal(quoteValue('2026-13-45T99:00:00Z'), "'2026-13-45T99:00:00Z'");
  });

  test('describes instead of quoting: a key, a connection string, a long value, control characters', () => {
    assert.equal(quoteValue(KEY), `a ${KEY.length}-character value`);
    assert.equal(quoteValue('c2VjcmV0S2V5VmFsdWU'), 'a 19-character value');
    const cs = `Endpoint=sb://ns/;SharedAccessKeyName=Root;SharedAccessKey=${KEY}`;
    assert.equal(quoteValue(cs), `a ${cs.length}-character value`);
    assert.equal(quoteValue('SharedAccessKey=x'), 'a 17-character value');
    assert.equal(quoteValue('x'.repeat(40)), 'a 40-character value');
    assert.equal(quoteValue('late\nst'), 'a 7-character value');
  });
});
