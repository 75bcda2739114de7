import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { classifyError, toBackendError } from '../../../../src/backends/internal/classify-error.ts';
import { BackendError, OwnershipLostError, isPermanentBackendError } from '../../../../src/backends/consumer.ts';

function sdkError(code: string, retryable: boolean, message = 'm'): Error {
  return Object.assign(new Error(message), { name: 'MessagingError', code, retryable });
}

describe('classifyError', () => {
  test('link stolen is ownership lost, by code or by condition', () => {
    assert.equal(classifyError(sdkError('ReceiverDisconnectedError', false)).kind, 'ownershipLost');
    assert.equal(classifyError({ condition: 'amqp:link:stolen', description: 'x' }).kind, 'ownershipLost');
  });

  test("a proxy's 407 is permanent and names proxy_url (or HTTPS_PROXY when the environment named it)", () => {
    // What the ws client reports when https-proxy-agent replays the proxy's answer to the CONNECT.
    const e = Object.assign(new Error('Unexpected server response: 407'), { retryable: false });
    const c = classifyError(e, { proxy: 'proxy_url' });
    assert.deepEqual([c.kind, c.permanent, c.configKey], ['proxyAuthenticationRequired', true, 'proxy_url']);
    assert.equal(classifyError(e, { proxy: 'HTTPS_PROXY' }).configKey, 'HTTPS_PROXY');
    const b = toBackendError(e, 'reading properties of hub h', { proxy: 'proxy_url' });
    assert.equal(b.code, 'ProxyAuthenticationRequired');
    assert.match(b.message, /the proxy refused its credentials \(check proxy_url\)/);
    assert.equal(classifyError(new Error('Unexpected server response: 404')).kind, 'fatal');
  });

  test('a refused credential is unauthorized even though core-amqp marks it retryable', () => {
    assert.equal(classifyError(sdkError('UnauthorizedError', true)).kind, 'unauthorized');
    assert.equal(classifyError({ condition: 'amqp:unauthorized-access' }).kind, 'unauthorized');
  });

  test('retryable errors are transient; known transient codes are too when the flag is missing', () => {
    assert.equal(classifyError(sdkError('ServerBusyError', true)).kind, 'transient');
    assert.equal(classifyError(Object.assign(new Error('reset'), { code: 'ECONNRESET' })).kind, 'transient');
    assert.equal(classifyError(Object.assign(new Error('x'), { code: 'DetachForcedError' })).kind, 'transient');
  });

  test('a peer breaking frame order (rhea throws a plain Error) is transient: a new connection helps', () => {
    assert.equal(classifyError(new Error('transfer after detach')).kind, 'transient');
    assert.equal(classifyError(new Error('frame sequence error: expected 3, got 5')).kind, 'transient');
    assert.equal(
      classifyError(Object.assign(new Error('Invalid protocol header for AMQP'), { name: 'ProtocolError' })).kind,
      'transient',
    );
    assert.equal(
      classifyError(Object.assign(new Error('write after end'), { code: 'ERR_STREAM_WRITE_AFTER_END' })).kind,
      'transient',
    );
  });

  test('non-retryable and unknown errors are fatal, and not permanent', () => {
    assert.equal(classifyError(sdkError('ArgumentError', false)).kind, 'fatal', 'an argument error outside an attach');
    assert.equal(classifyError(sdkError('InvalidOperationError', false)).permanent, false);
    assert.equal(classifyError(new TypeError('bad')).kind, 'fatal');
    assert.equal(classifyError('text').kind, 'fatal');
  });

  test('an AggregateError (retries exhausted) takes its most severe inner error', () => {
    assert.equal(
      classifyError(new AggregateError([sdkError('ServerBusyError', true), sdkError('ServerBusyError', true)])).kind,
      'transient',
    );
    assert.equal(
      classifyError(new AggregateError([sdkError('ServerBusyError', true), sdkError('UnauthorizedError', true)])).kind,
      'unauthorized',
    );
    assert.equal(
      classifyError(
        new AggregateError([sdkError('ServerBusyError', true), sdkError('ReceiverDisconnectedError', false)]),
      ).kind,
      'ownershipLost',
    );
  });
});

describe('toBackendError', () => {
  test('maps kinds to BackendError flags', () => {
    const lost = toBackendError(sdkError('ReceiverDisconnectedError', false), 'p0');
    assert.ok(lost instanceof OwnershipLostError);
    assert.equal(lost.retryable, false);
    const busy = toBackendError(sdkError('ServerBusyError', true), 'p0');
    assert.equal(busy.retryable, true);
    assert.equal(busy.code, 'ServerBusyError');
    const auth = toBackendError(sdkError('UnauthorizedError', true), 'p0');
    assert.equal(auth.retryable, false);
    assert.equal(auth.permanent, true);
    assert.equal(auth.code, 'Unauthorized');
    assert.equal(busy.permanent, false);
    assert.equal(lost.permanent, false, 'ownership lost is its own case, not a misconfiguration');
    const same = new BackendError('x', { retryable: false });
    assert.equal(toBackendError(same, 'c'), same);
  });

  test('redacts secrets from the message and drops a cause that held one', () => {
    const e = toBackendError(
      sdkError('UnauthorizedError', true, 'InvalidSignature: SharedAccessSignature sr=a&sig=TOPSECRET&se=1'),
      'hub',
    );
    assert.ok(!e.message.includes('TOPSECRET'));
    assert.equal(e.cause, undefined);
    const plain = sdkError('ServerBusyError', true, 'busy');
    assert.equal(toBackendError(plain, 'hub').cause, plain);
  });
});

const NOT_FOUND_GROUP =
  "The messaging entity 'sb://ns.example/hub1/ConsumerGroups/nogroup' could not be found. To know more visit " +
  'https://aka.ms/sbResourceMgrExceptions.';
const NOT_FOUND_HUB =
  "The messaging entity 'sb://ns.example/nohub' could not be found. To know more visit " +
  'https://aka.ms/sbResourceMgrExceptions.';
const READER = { hub: 'event_hub.name', auth: 'connection', startPosition: 'offset' } as const;

/** The classification table of docs/backends.md ("Errors"): error, permanence, config key. */
const TABLE: ReadonlyArray<{
  name: string;
  error: unknown;
  keys?: object;
  kind: string;
  code: string;
  configKey: string;
}> = [
  {
    name: 'hub not found (core-amqp translation)',
    error: sdkError('MessagingEntityNotFoundError', false, NOT_FOUND_HUB),
    kind: 'hubNotFound',
    code: 'HubNotFound',
    configKey: 'event_hub.name',
  },
  {
    name: 'hub not found, named only by EntityPath',
    error: sdkError('MessagingEntityNotFoundError', false, NOT_FOUND_HUB),
    keys: { hub: 'connection' },
    kind: 'hubNotFound',
    code: 'HubNotFound',
    configKey: 'connection',
  },
  {
    name: 'hub not found (raw AMQP detach error)',
    error: { condition: 'amqp:not-found', description: NOT_FOUND_HUB },
    kind: 'hubNotFound',
    code: 'HubNotFound',
    configKey: 'event_hub.name',
  },
  {
    name: 'consumer group not found (public entity form)',
    error: sdkError('MessagingEntityNotFoundError', false, NOT_FOUND_GROUP),
    kind: 'consumerGroupNotFound',
    code: 'ConsumerGroupNotFound',
    configKey: 'group',
  },
  {
    name: 'consumer group not found (service tracker form)',
    error: sdkError(
      'MessagingEntityNotFoundError',
      false,
      "The messaging entity 'ns:eventhub:hub1~16383|nogroup' could not be found.",
    ),
    kind: 'consumerGroupNotFound',
    code: 'ConsumerGroupNotFound',
    configKey: 'group',
  },
  {
    name: 'wrong key',
    error: sdkError('UnauthorizedError', true, 'InvalidSignature: the token signature is not valid.'),
    kind: 'unauthorized',
    code: 'Unauthorized',
    configKey: 'connection',
  },
  {
    name: 'refused Entra ID token',
    error: { condition: 'amqp:unauthorized-access', description: 'Unauthorized' },
    keys: { auth: 'auth' },
    kind: 'unauthorized',
    code: 'Unauthorized',
    configKey: 'auth',
  },
  {
    name: 'unknown partition',
    error: sdkError(
      'ArgumentOutOfRangeError',
      false,
      'The specified partition is invalid for an EventHub partition sender or receiver. It should be between 0 and 1.',
    ),
    kind: 'partitionNotFound',
    code: 'PartitionNotFound',
    configKey: 'partition',
  },
  {
    name: 'malformed offset on attach',
    error: sdkError('ArgumentError', false, "The offset '1234-5566' is not valid."),
    keys: READER,
    kind: 'invalidStartPosition',
    code: 'InvalidStartPosition',
    configKey: 'offset',
  },
  {
    name: 'sequence number past the end on attach',
    error: sdkError(
      'ArgumentError',
      false,
      "The supplied sequence number '488' is invalid. The last sequence number in the system is '482'.",
    ),
    keys: { startPosition: 'checkpoint' },
    kind: 'invalidStartPosition',
    code: 'InvalidStartPosition',
    configKey: 'checkpoint',
  },
  {
    name: 'out-of-range position on attach',
    error: { condition: 'com.microsoft:argument-out-of-range', description: "The supplied offset '9' is invalid." },
    keys: READER,
    kind: 'invalidStartPosition',
    code: 'InvalidStartPosition',
    configKey: 'offset',
  },
  {
    name: 'a position the backend cannot express',
    error: Object.assign(new RangeError("offset must be a plain token, got 'a b'"), { code: 'InvalidStartPosition' }),
    keys: { startPosition: 'partition_start' },
    kind: 'invalidStartPosition',
    code: 'InvalidStartPosition',
    configKey: 'partition_start',
  },
];

describe('permanent errors: kind, code and config key', () => {
  for (const row of TABLE) {
    test(row.name, () => {
      const c = classifyError(row.error, row.keys);
      assert.equal(c.kind, row.kind);
      assert.equal(c.permanent, true);
      assert.equal(c.configKey, row.configKey);
      const e = toBackendError(row.error, 'partition 0', row.keys);
      assert.ok(isPermanentBackendError(e));
      assert.equal(e.retryable, false);
      assert.equal(e.code, row.code);
      assert.equal(e.configKey, row.configKey);
      assert.match(e.message, new RegExp(`^partition 0: .*\\(check ${row.configKey.replace('.', '\\.')}\\)`));
      assert.ok(e.hint && e.hint.length > 20 && !e.hint.includes('\n'), 'one sentence saying what to do');
    });
  }

  test('a retry that ran out on a refused credential is still permanent (AggregateError)', () => {
    const e = toBackendError(
      new AggregateError([sdkError('ServerBusyError', true), sdkError('UnauthorizedError', true)]),
      'hub',
    );
    assert.equal(e.permanent, true);
    assert.equal(e.configKey, 'connection');
  });

  test('transient errors are not permanent and name no key', () => {
    const e = toBackendError(sdkError('ServerBusyError', true), 'p0', READER);
    assert.equal(e.permanent, false);
    assert.equal(e.configKey, undefined);
    assert.equal(e.hint, undefined);
    assert.equal(isPermanentBackendError(e), false);
    assert.equal(isPermanentBackendError(new Error('x')), false);
  });

  test('a permanent BackendError is never retryable, whatever it was built with', () => {
    const e = new BackendError('x', { retryable: true, permanent: true, configKey: 'group' });
    assert.equal(e.retryable, false);
    assert.equal(e.permanent, true);
  });

  test('the message of a permanent error stays redacted', () => {
    const e = toBackendError(
      sdkError('UnauthorizedError', true, 'ExpiredToken: SharedAccessSignature sr=a&sig=TOPSECRET&se=1'),
      'hub',
    );
    assert.equal(e.configKey, 'connection');
    assert.ok(!e.message.includes('TOPSECRET'));
    assert.equal(e.cause, undefined);
  });
});
