/* The parity comparator itself: a harness that cannot see a difference would pass anything. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  acceptedBy,
  compareRecords,
  flattenExpected,
  fromJs,
  type Difference,
  type FlatRecord,
} from '../../helpers/go-parity.ts';

const goRecord = (attributes: Record<string, unknown>[]) =>
  flattenExpected({
    resourceLogs: [
      {
        resource: { attributes: [{ key: 'azure.resource.id', value: { stringValue: '/R' } }] },
        scopeLogs: [
          {
            scope: { name: 's' },
            logRecords: [{ timeUnixNano: '5', severityNumber: 9, severityText: 'Informational', attributes }],
          },
        ],
      },
    ],
  });
const ours = (attributes: Record<string, unknown>, over: Partial<FlatRecord> = {}): FlatRecord[] => [
  {
    resource: { 'azure.resource.id': { s: '/R' } },
    scopeName: 's',
    timeUnixNano: '5',
    severityNumber: 9,
    severityText: 'Informational',
    body: undefined,
    attributes: (fromJs(attributes) as { m: FlatRecord['attributes'] }).m,
    eventName: '',
    ...over,
  },
];

describe('Go parity comparator', () => {
  test(
    'equal records give no diff; Event Hubs metadata is compared like any attribute (the decoders write none by ' +
      'default)',
    () => {
      const expected = goRecord([
        { key: 'n', value: { intValue: '3' } },
        { key: 'm', value: { kvlistValue: { values: [{ key: 'x', value: { doubleValue: 1.5 } }] } } },
      ]);
      assert.deepEqual(compareRecords(expected, ours({ n: 3, m: { x: 1.5 } })), []);
      assert.deepEqual(
        compareRecords(expected, ours({ n: 3, m: { x: 1.5 }, 'messaging.system': 'eventhubs' })).map((d) => d.kind),
        ['extra'],
      );
    },
  );

  test('int vs double, a changed value, a missing and an extra attribute are each reported with their path', () => {
    const expected = goRecord([
      { key: 'p', value: { kvlistValue: { values: [{ key: 'int', value: { doubleValue: 429 } }] } } },
      { key: 'gone', value: { stringValue: 'x' } },
      { key: 'v', value: { stringValue: 'a' } },
    ]);
    const diffs = compareRecords(expected, ours({ p: { int: 429 }, v: 'b', added: true }));
    assert.deepEqual(
      diffs.map((d) => [d.kind, d.path]),
      [
        ['int-vs-double', 'records[0].attributes["p"]["int"]'],
        ['missing', 'records[0].attributes["gone"]'],
        ['value', 'records[0].attributes["v"]'],
        ['extra', 'records[0].attributes["added"]'],
      ],
    );
  });

  test('metadata names the Go output sets too are compared; count, severity and body differences are seen', () => {
    const expected = goRecord([{ key: 'server.address', value: { stringValue: '23.100.1.29' } }]);
    assert.deepEqual(
      compareRecords(expected, ours({ 'server.address': 'ns' })).map((d) => d.kind),
      ['value'],
    );
    const diffs = compareRecords(goRecord([]), ours({}, { severityNumber: 4, body: { s: 'm' } }));
    assert.deepEqual(
      diffs.map((d) => d.path),
      ['records[0].severityNumber', 'records[0].body'],
    );
    assert.equal(compareRecords(goRecord([]), [])[0]!.kind, 'count');
  });

  test(
    'differences.yaml entries match by oracle, case, kind and path; input-field needs the field in the ' + 'input',
    () => {
      const entry: Difference = {
        id: 'x',
        oracle: 'translator-azure',
        case: '*',
        path: 'records[*].attributes["azure.*"]',
        kind: 'extra',
        when: 'input-field',
        why: 'w',
      };
      const input = new Uint8Array(Buffer.from(JSON.stringify({ records: [{ listenerName: 'L' }] })));
      const c = { oracle: 'translator-azure' as const, name: 'c', input };
      const extra = (path: string, actual: unknown) => ({ path, kind: 'extra' as const, actual });
      assert.equal(acceptedBy(extra('records[0].attributes["azure.listenerName"]', 'L'), c, [entry]), entry);
      assert.equal(
        acceptedBy(extra('records[0].attributes["azure.listenerName"]', 'other'), c, [entry]),
        undefined,
        'same value only',
      );
      assert.equal(
        acceptedBy(extra('records[0].attributes["azure.result.type"]', 'L'), c, [entry]),
        undefined,
        'not an input field',
      );
      assert.equal(
        acceptedBy(extra('records[0].attributes["azure.listenerName"]', 'L'), { ...c, oracle: 'azurelogs' }, [entry]),
        undefined,
      );
      assert.equal(
        acceptedBy({ ...extra('records[0].attributes["azure.listenerName"]', 'L'), kind: 'value' }, c, [entry]),
        undefined,
      );
      const deep: Difference = {
        ...entry,
        path: 'records[*].attributes["azure.*"]**',
        kind: 'int-vs-double',
        when: undefined,
      };
      assert.equal(
        acceptedBy({ path: 'records[2].attributes["azure.properties"]["a"][0]', kind: 'int-vs-double' }, c, [deep]),
        deep,
      );
      assert.equal(
        acceptedBy({ path: 'records[2].attributes["cloud.x"]', kind: 'int-vs-double' }, c, [deep]),
        undefined,
      );
    },
  );

  test('input-path accepts azure.record.<path> only with the input value at that path, keys with dots included', () => {
    const entry: Difference = {
      id: 'k',
      oracle: 'azure-encoding',
      case: '*',
      path: 'records[*].attributes["azure.record.*"]',
      kind: 'extra',
      when: 'input-path',
      why: 'w',
    };
    const record = {
      Stamp: 'S',
      identity: { claims: { 'http://x.org/claims/name': 'N' } },
      properties: { list: ['a', 1] },
    };
    const input = new Uint8Array(Buffer.from(JSON.stringify({ records: [record] })));
    const c = { oracle: 'azure-encoding' as const, name: 'c', input };
    const extra = (key: string, actual: unknown) => ({
      path: `records[0].attributes["azure.record.${key}"]`,
      kind: 'extra' as const,
      actual,
    });
    assert.equal(acceptedBy(extra('Stamp', 'S'), c, [entry]), entry);
    assert.equal(acceptedBy(extra('identity.claims.http://x.org/claims/name', 'N'), c, [entry]), entry);
    assert.equal(acceptedBy(extra('properties.list', ['a', { int: '1' }]), c, [entry]), entry);
    assert.equal(acceptedBy(extra('Stamp', 'other'), c, [entry]), undefined, 'same value only');
    assert.equal(acceptedBy(extra('server.address', 'S'), c, [entry]), undefined, 'not an input path');
  });
});
