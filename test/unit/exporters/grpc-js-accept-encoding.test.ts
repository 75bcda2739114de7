import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { Metadata } from '@grpc/grpc-js';
import {
  GRPC_JS_VERSION_WRITTEN_FOR,
  trimGrpcAcceptEncoding,
} from '../../../src/exporters/internal/grpc-js-accept-encoding.ts';

const require = createRequire(import.meta.url);
const { CompressionFilter } = require('@grpc/grpc-js/build/src/compression-filter.js');
/** grpc-js's key for gzip in `grpc.default_compression_algorithm` (CompressionAlgorithms.gzip). */
const GZIP = 2;

function filterAfterAnswer(acceptEncoding: string): { currentCompressionAlgorithm: string } {
  const filter = new CompressionFilter({ 'grpc.default_compression_algorithm': GZIP }, {});
  const metadata = new Metadata();
  metadata.set('grpc-accept-encoding', acceptEncoding);
  filter.receiveMetadata(metadata);
  return filter;
}

describe('grpc-js grpc-accept-encoding workaround', () => {
  test(
    `written for the installed @grpc/grpc-js (${GRPC_JS_VERSION_WRITTEN_FOR}): on upgrade, check whether ` +
      `upstream trims the list now`,
    () => {
      assert.equal(require('@grpc/grpc-js/package.json').version, GRPC_JS_VERSION_WRITTEN_FOR);
    },
  );

  test('patches the compression filter (idempotent); a grpcio-style list with spaces keeps gzip', () => {
    assert.equal(trimGrpcAcceptEncoding(), 'patched');
    assert.equal(trimGrpcAcceptEncoding(), 'patched');
    assert.equal(filterAfterAnswer('identity, deflate, gzip').currentCompressionAlgorithm, 'gzip');
    assert.equal(filterAfterAnswer('identity,deflate,gzip').currentCompressionAlgorithm, 'gzip');
  });

  test("a server that does not list gzip still turns compression off (the spec's rule is kept)", () => {
    trimGrpcAcceptEncoding();
    assert.equal(filterAfterAnswer('identity, deflate').currentCompressionAlgorithm, 'identity');
  });
});
