/*
 * "Never drop a field" in the azure_encoding format: what the Go extension drops or rewrites is kept verbatim as
 * azure.record.<field path>, and what it keeps unchanged is not repeated.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, it } from 'node:test';
import { createDecoder } from '../../../src/decode/create-decoder.ts';

const ctx = {
  namespace: 'ns.servicebus.windows.net',
  eventHubName: 'hub',
  consumerGroup: '$Default',
  partitionId: '0',
};
const ENQUEUED = new Date('2030-01-01T00:00:00Z');

function decodeBody(body: Uint8Array) {
  const decoder = createDecoder({ format: 'azure_encoding', now: () => 0 });
  return decoder([{ body, sequenceNumber: 1, offset: '1', enqueuedTime: ENQUEUED }], ctx).records;
}

function decode(records: unknown[]) {
  return decodeBody(new TextEncoder().encode(JSON.stringify({ records })));
}

const T = '2025-04-24T13:14:28Z';

const kept = (attributes: Record<string, unknown>) =>
  Object.fromEntries(Object.entries(attributes).filter(([k]) => k.startsWith('azure.record.')));

describe('azure_encoding keeps what the Go mapping drops', () => {
  it('keeps rewritten, unnamed and "-" values verbatim, and does not repeat values Go keeps', () => {
    const [r] = decode([
      {
        time: T,
        resourceId: '/R',
        category: 'FrontDoorAccessLog',
        Stamp: 'FDWeb',
        properties: {
          requestUri: 'https://h.example/a',
          securityProtocol: 'TLS 1.3',
          clientCountry: 'Netherlands',
          userAgent: '-',
          httpStatusCode: '200',
        },
      },
    ]);
    assert.ok(r);
    assert.equal(r.attributes['tls.protocol.version'], '1.3');
    assert.equal(r.attributes['url.full'], 'https://h.example/a');
    assert.deepEqual(kept(r.attributes), {
      'azure.record.Stamp': 'FDWeb',
      'azure.record.properties.securityProtocol': 'TLS 1.3',
      'azure.record.properties.clientCountry': 'Netherlands',
      'azure.record.properties.userAgent': '-',
    });
  });

  it('counts each occurrence: a second field with the text of a mapped one is kept', () => {
    const [r] = decode([{ time: T, category: 'SomeCategory', resultType: 'Succeeded', Status: 'Succeeded' }]);
    assert.ok(r);
    assert.equal(r.attributes['azure.result.type'], 'Succeeded');
    assert.deepEqual(kept(r.attributes), { 'azure.record.Status': 'Succeeded' });
  });

  it('keeps a whole array when a value inside it is not in the output', () => {
    const [r] = decode([{ time: T, category: 'Administrative', hops: ['a', { b: 'c' }] }]);
    assert.ok(r);
    assert.deepEqual(kept(r.attributes), { 'azure.record.hops': ['a', { b: 'c' }] });
  });

  it('does not count our Event Hubs metadata as the record keeping a value', () => {
    // "0" is the partition id and "eventhubs" the messaging system: neither is the record's own value.
    const [r] = decode([{ time: T, category: 'FrontDoorAccessLog', properties: { retries: '0', via: 'eventhubs' } }]);
    assert.ok(r);
    assert.deepEqual(kept(r.attributes), {
      'azure.record.properties.retries': '0',
      'azure.record.properties.via': 'eventhubs',
    });
  });

  it('loses no input value of any parity fixture: each appears in the record it belongs to', () => {
    const root = new URL('../../fixtures/go-parity/azure-encoding/', import.meta.url);
    const cases = readdirSync(root);
    assert.ok(cases.length >= 17);
    for (const name of cases) {
      const input = readFileSync(new URL(`${name}/input.json`, root));
      const doc = JSON.parse(input.toString('utf8')) as { records?: unknown[] } | unknown[];
      const items = Array.isArray(doc) ? doc : (doc.records ?? []);
      const records = decodeBody(new Uint8Array(input));
      assert.equal(records.length, items.length, name);
      items.forEach((item, i) => {
        const r = records[i]!;
        const texts = new Set<string>([
          ...textsOf(r.attributes),
          ...textsOf(r.body),
          ...textsOf(r.resource.attributes),
        ]);
        if (r.severityText !== undefined) texts.add(r.severityText);
        for (const [path, value] of leaves(item)) {
          if (/^(time|timestamp|eventTimestamp|EventTimeString)$/i.test(path)) continue; // the record time
          assert.ok(texts.has(String(value)), `${name} record ${i}: ${path} = ${String(value)} is in no output value`);
        }
      });
    }
  });
});

function textsOf(value: unknown, out: string[] = []): string[] {
  if (value === undefined || value === null) return out;
  if (typeof value === 'object') for (const v of Object.values(value as object)) textsOf(v, out);
  else out.push(String(value));
  return out;
}

function leaves(value: unknown, path = '', out: [string, unknown][] = []): [string, unknown][] {
  if (value === undefined || value === null || value === '') return out;
  if (typeof value === 'object') {
    for (const [k, v] of Object.entries(value as object)) leaves(v, path === '' ? k : `${path}.${k}`, out);
  } else {
    out.push([path, value]);
  }
  return out;
}
