import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  bypassesProxy,
  environmentProxyUrl,
  parseProxyUrl,
  redactProxyUrl,
  resolveProxy,
  storageProxySettings,
} from '../../../src/component/network-proxy.ts';

const SECRET = 'pa55-W0rd';

test('the environment is read as the Azure SDKs read it: HTTPS_PROXY, ALL_PROXY, HTTP_PROXY, upper case first', () => {
  assert.equal(environmentProxyUrl({}), undefined);
  assert.equal(environmentProxyUrl({ http_proxy: 'http://h:1' }), 'http://h:1');
  assert.equal(environmentProxyUrl({ HTTP_PROXY: 'http://h:1', all_proxy: 'http://a:2' }), 'http://a:2');
  assert.equal(
    environmentProxyUrl({ https_proxy: 'http://lower:3', HTTPS_PROXY: 'http://upper:4', ALL_PROXY: 'http://a:2' }),
    'http://upper:4',
  );
  assert.equal(environmentProxyUrl({ HTTPS_PROXY: '', https_proxy: 'http://lower:3' }), 'http://lower:3');
});

test('NO_PROXY: a leading dot matches the domain and its subdomains, anything else one exact host', () => {
  const env = { NO_PROXY: ' .corp.example , 10.0.0.1,localhost' };
  assert.ok(bypassesProxy('corp.example', env));
  assert.ok(bypassesProxy('ns.corp.example', env));
  assert.ok(!bypassesProxy('notcorp.example', env));
  assert.ok(bypassesProxy('10.0.0.1', env));
  assert.ok(bypassesProxy('LOCALHOST', env));
  assert.ok(!bypassesProxy('ns.servicebus.windows.net', env));
  assert.ok(bypassesProxy('ns.servicebus.windows.net', { no_proxy: '.windows.net' }));
  assert.ok(!bypassesProxy('x', {}));
});

test('resolveProxy: proxy_url first, then the environment; NO_PROXY exempts from both', () => {
  const env = { HTTPS_PROXY: 'http://env-proxy:3128', NO_PROXY: '.internal' };
  assert.equal(resolveProxy('ns.servicebus.windows.net', undefined, env)?.host, 'env-proxy:3128');
  assert.equal(resolveProxy('ns.servicebus.windows.net', 'http://mine:8080', env)?.host, 'mine:8080');
  assert.equal(resolveProxy('ns.internal', 'http://mine:8080', env), undefined);
  assert.equal(resolveProxy('ns.servicebus.windows.net', undefined, {}), undefined);
  assert.throws(
    () => resolveProxy('h', undefined, { HTTPS_PROXY: `socks5://u:${SECRET}@p:1080` }),
    (e: Error) => /HTTPS_PROXY.*socks5/.test(e.message) && !e.message.includes(SECRET),
  );
});

test(
  'parseProxyUrl accepts http and https CONNECT proxies and says what to write otherwise, never quoting the ' + 'URL',
  () => {
    assert.ok(parseProxyUrl('http://proxy:3128').ok);
    assert.ok(parseProxyUrl(`https://user:${SECRET}@proxy:443`).ok);
    for (const [bad, why] of [
      [`socks5://u:${SECRET}@p:1080`, /scheme 'socks5' is not supported/],
      [`u:${SECRET}@p:1080`, /not supported|not a URL/],
      [`proxy:3128`, /not supported|not a URL/],
      [`http://u:${SECRET}@p:3128/path`, /without a path/],
      [`not a url ${SECRET}`, /is not a URL/],
    ] as const) {
      const r = parseProxyUrl(bad);
      assert.ok(!r.ok, bad);
      assert.match(r.message, why);
      assert.ok(!r.message.includes(SECRET));
    }
  },
);

test('redactProxyUrl masks credentials; storageProxySettings splits the URL the way the storage SDK wants it', () => {
  assert.equal(redactProxyUrl(`http://u:${SECRET}@p:3128`), 'http://***@p:3128');
  assert.equal(redactProxyUrl('http://p:3128'), 'http://p:3128');
  assert.equal(redactProxyUrl('::'), 'an unparsable proxy URL');
  assert.equal(storageProxySettings(undefined), undefined);
  assert.deepEqual(storageProxySettings('http://user%40corp:p%3Ass@proxy:3128'), {
    host: 'http://proxy',
    port: 3128,
    username: 'user@corp',
    password: 'p:ss',
  });
  assert.deepEqual(storageProxySettings('https://proxy'), { host: 'https://proxy', port: 443 });
  assert.deepEqual(storageProxySettings('http://proxy'), { host: 'http://proxy', port: 80 });
});
