import { test } from 'node:test';
import assert from 'node:assert/strict';
import { foreignOwner, HTTP_DATE_RESOLUTION_MS } from '../../../src/ownership/internal/foreign-owner.ts';

const NOW = 1_800_000_000_000;
const EXPIRY = 60_000;
const known = new Set(['collector-1', 'collector-2']);
const view = (ownerId: string | undefined, ageMs: number, leased = false) => ({
  ownerId,
  leased,
  lastModifiedMs: NOW - ageMs,
});

test('an SDK processor that wrote its claim within the expiry is a live foreign owner', () => {
  assert.equal(foreignOwner(view('sdk-uuid', 5_000), known, NOW, EXPIRY), 'sdk-uuid');
  assert.equal(foreignOwner(view('sdk-uuid', EXPIRY - 1), known, NOW, EXPIRY), 'sdk-uuid');
});

test("a foreign claim older than the expiry and the HTTP dates' one-second resolution is abandoned", () => {
  // Last-Modified and Date are whole seconds: an age of EXPIRY read from them may be EXPIRY - 999 ms.
  assert.equal(foreignOwner(view('sdk-uuid', EXPIRY), known, NOW, EXPIRY), 'sdk-uuid');
  assert.equal(foreignOwner(view('sdk-uuid', EXPIRY + HTTP_DATE_RESOLUTION_MS - 1), known, NOW, EXPIRY), 'sdk-uuid');
  assert.equal(foreignOwner(view('sdk-uuid', EXPIRY + HTTP_DATE_RESOLUTION_MS), known, NOW, EXPIRY), undefined);
  assert.equal(foreignOwner(view('sdk-uuid', 10 * EXPIRY), known, NOW, EXPIRY), undefined);
});

test('an owner id with a members/ blob is one of ours, however recent: the leases decide for our own', () => {
  assert.equal(foreignOwner(view('collector-1', 1_000), known, NOW, EXPIRY), undefined);
});

test('a leased blob is a claim of ours (SDK processors never lease ownership blobs)', () => {
  assert.equal(foreignOwner(view('sdk-uuid', 1_000, true), known, NOW, EXPIRY), undefined);
});

test('a released ownership (ownerid empty, or dropped by Azurite) has no owner', () => {
  assert.equal(foreignOwner(view('', 1_000), known, NOW, EXPIRY), undefined);
  assert.equal(foreignOwner(view(undefined, 1_000), known, NOW, EXPIRY), undefined);
});

test('expiry 0 turns the check off, and a blob without Last-Modified is not judged', () => {
  assert.equal(foreignOwner(view('sdk-uuid', 1_000), known, NOW, 0), undefined);
  const unknownAge = { ownerId: 'sdk-uuid', leased: false, lastModifiedMs: undefined };
  assert.equal(foreignOwner(unknownAge, known, NOW, EXPIRY), undefined);
});

test('the .NET expiry (2 min) keeps a claim 90 s old live', () => {
  assert.equal(foreignOwner(view('dotnet-processor', 90_000), known, NOW, 120_000), 'dotnet-processor');
});
