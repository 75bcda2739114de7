import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { goUrlPort, parseGoUrl, splitHostPort } from '../../../../src/decode/internal/go-url.ts';
import { parseGoBool, parseGoFloat, parseGoInt } from '../../../../src/decode/internal/azurelogs/go-values.ts';

describe('Go net/url and strconv rules', () => {
  test('a URL keeps its default port, raw query and decoded path and fragment', () => {
    const u = parseGoUrl('HTTPS://h.example:443/a%20b?x=1&y=%41#f%2Fg');
    assert.deepEqual(u, {
      scheme: 'https',
      host: 'h.example:443',
      path: '/a b',
      rawQuery: 'x=1&y=%41',
      fragment: 'f/g',
    });
    assert.equal(goUrlPort(u.host), '443');
    assert.equal(goUrlPort('[::1]:8080'), '8080');
    assert.equal(goUrlPort('[::1]'), '');
    assert.deepEqual(parseGoUrl('/only/path'), {
      scheme: '',
      host: '',
      path: '/only/path',
      rawQuery: '',
      fragment: '',
    });
  });

  test('an escaped path keeps other characters, beyond U+FFFF too; a scheme is letters, digits, + - .', () => {
    assert.equal(parseGoUrl('https://h/caf%C3%A9/é/😀%20x').path, '/café/é/😀 x');
    assert.equal(parseGoUrl('/%41\ud800').path, '/A\ufffd', 'a lone surrogate is U+FFFD, as Go decodes it');
    assert.deepEqual(parseGoUrl('svn+ssh.v2-x://h/p'), {
      scheme: 'svn+ssh.v2-x',
      host: 'h',
      path: '/p',
      rawQuery: '',
      fragment: '',
    });
    // A scheme starts with a letter: this is a first path segment with a colon, which Go refuses.
    assert.throws(() => parseGoUrl('2http://h/p'), /first path segment in URL cannot contain colon/);
  });

  test('what Go refuses is refused: bad escapes, bad ports, control characters, a colon in the first segment', () => {
    for (const bad of ['http://h/%zz', 'http://h:80x/', 'http://h/\u0001', ':/x', '1a:b']) {
      assert.throws(() => parseGoUrl(bad), /parse/, bad);
    }
  });

  test('splitHostPort: host and port, a missing port told apart from other errors', () => {
    assert.deepEqual(splitHostPort('example.com:443'), { host: 'example.com', port: '443' });
    assert.deepEqual(splitHostPort('[2001:db8::1]:80'), { host: '2001:db8::1', port: '80' });
    assert.deepEqual(splitHostPort('example.com'), { error: 'missing port in address' });
    assert.deepEqual(splitHostPort('[::1]'), { error: 'missing port in address' });
    assert.deepEqual(splitHostPort('a:b:c'), { error: 'too many colons in address' });
  });

  test('ParseInt, ParseFloat and ParseBool accept what Go accepts, nothing more', () => {
    assert.equal(parseGoInt('-42'), -42);
    for (const s of ['', ' 1', '1.0', '0x10', '1e3', '9223372036854775808']) assert.equal(parseGoInt(s), undefined, s);
    assert.equal(parseGoFloat('0.368'), 0.368);
    assert.equal(parseGoFloat('1e3'), 1000);
    assert.equal(parseGoFloat('-Inf'), -Infinity);
    for (const s of ['', ' 1', '0x10', '1,5']) assert.equal(parseGoFloat(s), undefined, s);
    assert.equal(parseGoBool('True'), true);
    assert.equal(parseGoBool('F'), false);
    assert.equal(parseGoBool('yes'), undefined);
  });
});
