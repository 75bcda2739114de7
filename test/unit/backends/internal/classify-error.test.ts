import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { classifyError, toBackendError } from '../../../../src/backends/internal/classify-error.ts';
import { BackendError, OwnershipLostError } from '../../../../src/backends/consumer.ts';

function sdkError(code: string, retryable: boolean, message = 'm'): Error {
  return Object.assign(new Error(message), { name: 'MessagingError', code, retryable });
}

describe('classifyError', () => {
  test('link stolen is ownership lost, by code or by condition', () => {
    assert.equal(classifyError(sdkError('ReceiverDisconnectedError', false)).kind, 'ownershipLost');
    assert.equal(classifyError({ condition: 'amqp:link:stolen', description: 'x' }).kind, 'ownershipLost');
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
    assert.equal(classifyError(Object.assign(new Error('Invalid protocol header for AMQP'), { name: 'ProtocolError' })).kind, 'transient');
    assert.equal(classifyError(Object.assign(new Error('write after end'), { code: 'ERR_STREAM_WRITE_AFTER_END' })).kind, 'transient');
  });

  test('non-retryable and unknown errors are fatal', () => {
    assert.equal(classifyError(sdkError('MessagingEntityNotFoundError', false)).kind, 'fatal');
    assert.equal(classifyError(new TypeError('bad')).kind, 'fatal');
    assert.equal(classifyError('text').kind, 'fatal');
  });

  test('an AggregateError (retries exhausted) takes its most severe inner error', () => {
    assert.equal(classifyError(new AggregateError([sdkError('ServerBusyError', true), sdkError('ServerBusyError', true)])).kind, 'transient');
    assert.equal(classifyError(new AggregateError([sdkError('ServerBusyError', true), sdkError('UnauthorizedError', true)])).kind, 'unauthorized');
    assert.equal(classifyError(new AggregateError([sdkError('ServerBusyError', true), sdkError('ReceiverDisconnectedError', false)])).kind, 'ownershipLost');
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
    assert.equal(auth.code, 'Unauthorized');
    const same = new BackendError('x', { retryable: false });
    assert.equal(toBackendError(same, 'c'), same);
  });

  test('redacts secrets from the message and drops a cause that held one', () => {
    const e = toBackendError(sdkError('UnauthorizedError', true, 'InvalidSignature: SharedAccessSignature sr=a&sig=TOPSECRET&se=1'), 'hub');
    assert.ok(!e.message.includes('TOPSECRET'));
    assert.equal(e.cause, undefined);
    const plain = sdkError('ServerBusyError', true, 'busy');
    assert.equal(toBackendError(plain, 'hub').cause, plain);
  });
});
