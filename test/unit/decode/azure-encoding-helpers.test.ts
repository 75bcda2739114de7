import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LogAttributes } from '@opentelemetry/api-logs';
import {
  int64Of,
  putHostPort,
  putHttpProtocol,
  putStr,
  putTlsProtocol,
} from '../../../src/decode/internal/azure-encoding/attributes.ts';
import { repairSingleQuotedJson as singleQuotedToJson } from '../../../src/decode/internal/properties-string.ts';
import { putUrl } from '../../../src/decode/internal/azure-encoding/url.ts';

const attrs = (fill: (a: LogAttributes) => void): LogAttributes => {
  const a: LogAttributes = {};
  fill(a);
  return a;
};

describe("azure_encoding helpers (the Go extension's setters)", () => {
  it('host:port: splits, keeps a bare address or IPv6 as is, sends a malformed value to *.original_address', () => {
    assert.deepEqual(
      attrs((a) => putHostPort(a, 'server.address', 'server.port', '10.0.0.1:8080')),
      { 'server.address': '10.0.0.1', 'server.port': 8080 },
    );
    assert.deepEqual(
      attrs((a) => putHostPort(a, 'server.address', 'server.port', 'example.com')),
      { 'server.address': 'example.com' },
    );
    assert.deepEqual(
      attrs((a) => putHostPort(a, 'client.address', 'client.port', '2001:db8::1')),
      { 'client.address': '2001:db8::1' },
    );
    assert.deepEqual(
      attrs((a) => putHostPort(a, 'client.address', 'client.port', '[2001:db8::1]:443')),
      { 'client.address': '2001:db8::1', 'client.port': 443 },
    );
    assert.deepEqual(
      attrs((a) => putHostPort(a, 'client.address', 'client.port', 'host:http')),
      { 'client.original_address': 'host:http' },
    );
    assert.deepEqual(
      attrs((a) => putHostPort(a, 'source.address', 'source.port', 'host:')),
      { 'source.address_original': 'host:' },
    );
  });

  it('URLs as net/url reads them: the port as written, credentials redacted, a bad URL as url.original', () => {
    assert.deepEqual(
      attrs((a) => putUrl(a, 'https://user:pw@h.example:443/a%2Fb?q=1#frag')),
      {
        'url.full': 'https://REDACTED:REDACTED@h.example:443/a%2Fb?q=1#frag',
        'url.port': 443,
        'url.scheme': 'https',
        'url.domain': 'h.example',
        'url.path': '/a/b',
        'url.query': 'q=1',
        'url.fragment': 'frag',
      },
    );
    assert.deepEqual(
      attrs((a) => putUrl(a, 'http://h:port/')),
      { 'url.original': 'http://h:port/' },
    );
    assert.deepEqual(
      attrs((a) => putUrl(a, '/bad%zz')),
      { 'url.original': '/bad%zz' },
    );
    assert.deepEqual(
      attrs((a) => putUrl(a, '/relative/path?x')),
      { 'url.full': '/relative/path?x', 'url.path': '/relative/path', 'url.query': 'x' },
    );
  });

  it('"-" and "" set nothing; numbers follow json.Number (int64 only for whole base-10 text)', () => {
    assert.deepEqual(
      attrs((a) => {
        putStr(a, 'x', '-');
        putStr(a, 'y', '');
      }),
      {},
    );
    assert.equal(int64Of('42'), 42);
    assert.equal(int64Of('4.2'), undefined);
    assert.equal(int64Of('9223372036854775808'), undefined);
  });

  it('protocols: known TLS and HTTP versions split, others kept as *.original', () => {
    assert.deepEqual(
      attrs((a) => putTlsProtocol(a, 'TLS 1.2')),
      { 'tls.protocol.name': 'TLS', 'tls.protocol.version': '1.2' },
    );
    assert.deepEqual(
      attrs((a) => putTlsProtocol(a, 'TLSv1.2')),
      { 'tls.protocol.original': 'TLSv1.2' },
    );
    assert.deepEqual(
      attrs((a) => putHttpProtocol(a, 'HTTP/2.0')),
      { 'network.protocol.name': 'http', 'network.protocol.version': '2.0' },
    );
    assert.deepEqual(
      attrs((a) => putHttpProtocol(a, 'SPDY')),
      { 'network.protocol.original': 'SPDY' },
    );
  });

  it("single-quoted Function App JSON becomes JSON: \\' unescaped, inner double quotes escaped", () => {
    assert.deepEqual(JSON.parse(singleQuotedToJson("{'a':'it\\'s','b':'say \"hi\"','n':2}")), {
      a: "it's",
      b: 'say "hi"',
      n: 2,
    });
  });
});
