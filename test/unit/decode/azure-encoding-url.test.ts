import { describe, it } from 'node:test';
import assert from 'node:assert/strict';
import type { LogAttributes } from '@opentelemetry/api-logs';
import { putUrl } from '../../../src/decode/internal/azure-encoding/url.ts';

const put = (raw: string): LogAttributes => {
  const a: LogAttributes = {};
  putUrl(a, raw);
  return a;
};

describe('azure_encoding url.full: Go URL.String() of the shared net/url parse', () => {
  it('writes back what Go writes: a bare ?, an escaped fragment, no // without an authority', () => {
    assert.equal(put('http://h/p?')['url.full'], 'http://h/p?');
    assert.equal(put('http://h/a#b%2Fc')['url.full'], 'http://h/a#b%2Fc');
    assert.equal(put('http://h/a#b%2Fc')['url.fragment'], 'b/c');
    assert.equal(put('http:/path')['url.full'], 'http:/path');
    assert.equal(put('http:///path')['url.full'], 'http:///path');
  });

  it('an opaque URL keeps its text and has no path', () => {
    assert.deepEqual(put('mailto:x@y'), { 'url.full': 'mailto:x@y', 'url.scheme': 'mailto' });
  });

  it('refuses a bad host character but not a control character in the fragment, as net/url does', () => {
    assert.deepEqual(put('http://h b/'), { 'url.original': 'http://h b/' });
    assert.equal(put('http://h/a#\u0001')['url.fragment'], '\u0001');
  });
});
