import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseReceiverConfig } from '../../../src/config/parse-receiver-config.ts';
import { ConfigError } from '../../../src/component/errors.ts';
import { retryOnFailureSchema } from '../../../src/pipeline/retry.ts';

const CONN =
  'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=Root;SharedAccessKey=c2VjcmV0S2V5VmFsdWU=;' +
  'EntityPath=hub';

function problems(input: unknown): string[] {
  try {
    parseReceiverConfig(input, ['receivers', 'azure_event_hub']);
  } catch (e) {
    assert.ok(e instanceof ConfigError);
    return [...e.issues];
  }
  assert.fail('expected a ConfigError');
}

test('a connection alone yields the complete default config', () => {
  const c = parseReceiverConfig({ connection: CONN });
  assert.equal(c.group, '$Default');
  assert.equal(c.format, 'azure');
  assert.equal(c.max_poll_events, 100);
  assert.equal(c.poll_rate, 5);
  assert.equal(c.checkpoint.interval, 10_000);
  assert.equal(c.ownership.lease_duration, 30_000);
  assert.equal(c.ownership.strategy, 'balanced');
  assert.equal(c.retry_on_failure.initial_interval, 5_000);
  assert.deepEqual(c.start_position, { kind: 'latest' });
  assert.equal(c.backend, undefined);
  assert.equal(c.hub_lag_interval, 30_000);
  assert.deepEqual(c.memory, { limit_mib: 0, check_interval: 250 });
});

test('memory: limit_mib is 0 (off) or at least 64; check_interval must be positive', () => {
  assert.deepEqual(parseReceiverConfig({ connection: CONN, memory: { limit_mib: 160 } }).memory, {
    limit_mib: 160,
    check_interval: 250,
  });
  assert.equal(
    parseReceiverConfig({ connection: CONN, memory: { limit_mib: 64, check_interval: '1s' } }).memory.check_interval,
    1_000,
  );
  const issues = problems({ connection: CONN, memory: { limit_mib: 10, check_interval: '0s' } });
  assert.ok(
    issues.some((i) => /memory\.limit_mib: must be 0 \(off\) or at least 64/.test(i)),
    issues.join('\n'),
  );
  assert.ok(
    issues.some((i) => /memory\.check_interval: must be greater than zero/.test(i)),
    issues.join('\n'),
  );
});

test("the Go receiver's documented keys parse unchanged, format '' meaning azure (the Go receiver's default)", () => {
  const c = parseReceiverConfig({
    connection: CONN,
    partition: '0',
    group: 'my-consumer-group',
    offset: '1234-5566',
    format: '',
    time_formats: { logs: ['01/02/2006 15:04:05'], metrics: ['01/02/2006 15:04:05'] },
    max_poll_events: 500,
    poll_rate: 2,
    prefetch_count: 1000,
  });
  assert.equal(c.format, 'azure');
  assert.equal(c.partition, '0');
  assert.equal(c.offset, '1234-5566');
});

test(
  'partition, offset or storage together with blob_checkpoint_store are refused, as the Go receiver refuses ' + 'them',
  () => {
    const store = {
      connection: 'DefaultEndpointsProtocol=https;AccountName=a;AccountKey=k;EndpointSuffix=core.windows.net',
      container_name: 'checkpoints',
    };
    assert.throws(
      () =>
        parseReceiverConfig({
          connection: CONN,
          partition: '0',
          offset: '1234-5566',
          storage: 'file_storage',
          blob_checkpoint_store: store,
        }),
      (e: Error) => {
        assert.match(e.message, /^ {2}- partition: cannot be used with blob_checkpoint_store .*partition_start/m);
        assert.match(e.message, /^ {2}- offset: cannot be used with blob_checkpoint_store/m);
        assert.match(e.message, /^ {2}- storage: cannot be used with blob_checkpoint_store/m);
        return true;
      },
    );
    // partition_start is this receiver's way to position partitions under leases: allowed with the store.
    const c = parseReceiverConfig({
      connection: CONN,
      partition_start: { '0': { offset: '1234-5566' } },
      blob_checkpoint_store: store,
    });
    assert.equal(c.partition_start['0']?.offset, '1234-5566');
  },
);

test('every problem is reported at once, each with its dotted path', () => {
  const lines = problems({ ownership: { lease_duration: '5s', renew_interval: '10s' }, offset: '12', format: 'xml' });
  const text = lines.join('\n');
  assert.match(text, /receivers\.azure_event_hub\.connection: required/);
  assert.match(text, /receivers\.azure_event_hub\.format: /);
  assert.ok(lines.length >= 2, text);
});

test('cross-field errors say what to do', () => {
  const text = problems({
    connection: CONN,
    offset: '5',
    ownership: { lease_duration: '15s', renew_interval: '10s' },
  }).join('\n');
  assert.match(text, /ownership\.renew_interval: .* at most half of lease_duration .* about a third/);
  assert.match(text, /offset: only applies with partition/);
  const lease = problems({ connection: CONN, ownership: { lease_duration: '90s' } }).join('\n');
  assert.match(lease, /ownership\.lease_duration: must be between 15s and 60s/);
  const fractional = problems({ connection: CONN, ownership: { lease_duration: '15500ms' } }).join('\n');
  assert.match(fractional, /ownership\.lease_duration: must be whole seconds/);
});

test('unknown keys are rejected with a suggestion', () => {
  const text = problems({ connection: CONN, blob_checkpoint_store: { connection: 'x', containr_name: 'abc' } }).join(
    '\n',
  );
  assert.match(text, /blob_checkpoint_store\.containr_name: unknown key; did you mean `container_name`\?/);
});

test('no secret from the input appears in any message', () => {
  const text = problems({
    connection: CONN.replace('EntityPath=hub', ''),
    blob_checkpoint_store: {
      connection: 'AccountKey=c2VjcmV0S2V5VmFsdWU=',
      storage_account_url: 'https://a.blob.core.windows.net',
      container_name: 'x',
    },
  }).join('\n');
  assert.doesNotMatch(text, /c2VjcmV0S2V5VmFsdWU=/);
});

test('hub_lag_interval: a duration, 0 turns the hub-wide lag off, anything between is refused', () => {
  assert.equal(parseReceiverConfig({ connection: CONN, hub_lag_interval: '2m' }).hub_lag_interval, 120_000);
  assert.equal(parseReceiverConfig({ connection: CONN, hub_lag_interval: 0 }).hub_lag_interval, 0);
  assert.match(
    problems({ connection: CONN, hub_lag_interval: '100ms' }).join('\n'),
    /hub_lag_interval: must be 0 \(off\) or at least 1s/,
  );
});

test(
  "retry_on_failure is the pipeline's section: same defaults, max_interval < initial_interval reported with its " +
    'path',
  () => {
    const c = parseReceiverConfig({ connection: CONN });
    assert.deepEqual(c.retry_on_failure, retryOnFailureSchema.parse({}));
    assert.equal(
      parseReceiverConfig({ connection: CONN, retry_on_failure: { max_elapsed_time: '1m' } }).retry_on_failure
        .max_interval,
      10_000,
    );
    const lines = problems({ connection: CONN, retry_on_failure: { initial_interval: '10s', max_interval: '1s' } });
    assert.equal(lines.length, 1, lines.join('\n'));
    assert.match(
      lines[0]!,
      new RegExp(
        String.raw`^receivers\.azure_event_hub\.retry_on_failure\.max_interval: \(1s\) must be at least` +
          String.raw` initial_interval \(10s\); raise max_interval`,
      ),
    );
    const typo = problems({ connection: CONN, retry_on_failure: { max_intervall: '1s' } });
    assert.match(typo.join('\n'), /retry_on_failure\.max_intervall: unknown key; did you mean `max_interval`\?/);
  },
);

test('start_position is parsed at validation: each form, and what is wrong with its path', () => {
  const at = (start_position: unknown) => parseReceiverConfig({ connection: CONN, start_position }).start_position;
  assert.deepEqual(at('earliest'), { kind: 'earliest' });
  assert.deepEqual(at('1h'), { kind: 'lookBack', lookBackMs: 3_600_000 });
  assert.deepEqual(at('2026-01-02T15:04:05+01:00'), {
    kind: 'enqueuedTime',
    enqueuedTime: new Date('2026-01-02T14:04:05Z'),
  });
  const [line, ...rest] = problems({ connection: CONN, start_position: 'yesterday' });
  assert.deepEqual(rest, []);
  assert.match(
    line!,
    /^receivers\.azure_event_hub\.start_position: 'yesterday' is not latest, earliest, an RFC 3339 time/,
  );
});

test('start_position never echoes a long or secret-looking value', () => {
  const key = 'c2VjcmV0S2V5VmFsdWU=';
  for (const value of [CONN, key, `SharedAccessKey=${key}`]) {
    const text = problems({ connection: CONN, start_position: value }).join('\n');
    assert.match(text, /start_position: a \d+-character value is not latest/);
    assert.ok(!text.includes(key), text);
  }
});

test('partition_start: keys must be partition ids, offsets may be opaque but not blank or padded', () => {
  const ok = parseReceiverConfig({
    connection: CONN,
    partition_start: { '0': { offset: '1234-5566' }, '1': { offset: 'geo:0:42' }, '2': { sequence_number: -1 } },
  });
  assert.equal(ok.partition_start['1']?.offset, 'geo:0:42');
  const text = problems({
    connection: CONN,
    partition_start: { p0: { sequence_number: 1 }, '1': { offset: ' 7' }, '2': { offset: '\t' } },
  }).join('\n');
  assert.match(text, /partition_start\.p0: 'p0' is not a partition id; partition ids are 0, 1, 2/);
  assert.match(text, /partition_start\.1\.offset: ' 7' is not an offset/);
  assert.match(text, /partition_start\.2\.offset: a 1-character value is not an offset/);
  assert.match(
    problems({ connection: CONN, partition_start: { '0': { sequence_numbr: 1 } } }).join('\n'),
    /partition_start\.0\.sequence_numbr: unknown key; did you mean `sequence_number`\?/,
  );
});

test("the Go receiver's partition and offset: any partition text (as the Go receiver), an opaque offset", () => {
  assert.equal(
    parseReceiverConfig({ connection: CONN, partition: '3', offset: 'opaque-offset' }).offset,
    'opaque-offset',
  );
  assert.equal(parseReceiverConfig({ connection: CONN, partition: 'foo', offset: '1234-5566' }).partition, 'foo');
  assert.match(
    problems({ connection: CONN, partition: '0', offset: '12 ' }).join('\n'),
    /\.offset: '12 ' is not an offset/,
  );
});

test('dead_letter: drop is an explicit boolean opt-in, default false, exclusive with a store', () => {
  assert.equal(parseReceiverConfig({ connection: CONN }).dead_letter, undefined);
  assert.deepEqual(parseReceiverConfig({ connection: CONN, dead_letter: { drop: true } }).dead_letter, { drop: true });
  assert.deepEqual(parseReceiverConfig({ connection: CONN, dead_letter: { directory: '/var/dlq' } }).dead_letter, {
    directory: '/var/dlq',
    drop: false,
  });
  const both = problems({ connection: CONN, dead_letter: { drop: true, directory: '/var/dlq' } });
  assert.deepEqual(both, [
    'receivers.azure_event_hub.dead_letter.drop: drop: true discards refused batches, a store keeps them; give drop: ' +
      'true or directory/container, not both',
  ]);
  assert.match(
    problems({ connection: CONN, dead_letter: { drop: true, container: 'dlq' } }).join('\n'),
    /dead_letter\.drop: .*not both/,
  );
  assert.match(problems({ connection: CONN, dead_letter: { drop: 'yes' } }).join('\n'), /dead_letter\.drop: /);
});

test('dead_letter: an empty section or drop: false alone says what to give', () => {
  for (const dead_letter of [{}, { drop: false }]) {
    assert.match(
      problems({ connection: CONN, dead_letter }).join('\n'),
      /^receivers\.azure_event_hub\.dead_letter: give directory or container .* or drop: true/,
    );
  }
  assert.match(
    problems({ connection: CONN, dead_letter: { directory: '/d', connection: 'UseDevelopmentStorage=true' } }).join(
      '\n',
    ),
    /dead_letter\.connection: only applies with container/,
  );
});

test(
  'encoding: azure_encoding and azure_encoding/<name> are accepted (the Go spelling of format azure_encoding); ' +
    'other ids are not',
  () => {
    for (const encoding of ['azure_encoding', 'azure_encoding/logs']) {
      assert.equal(parseReceiverConfig({ connection: CONN, encoding }).encoding, encoding);
    }
    assert.equal(parseReceiverConfig({ connection: CONN, format: 'azure_encoding' }).format, 'azure_encoding');
    for (const encoding of ['text_encoding', 'azure_encoding/', 'azureencoding']) {
      const text = problems({ connection: CONN, encoding }).join('\n');
      assert.match(
        text,
        new RegExp(
          `receivers\\.azure_event_hub\\.encoding: encoding extension "${encoding.replace('/', '\\/')}" is not ` +
            `supported; use encoding: azure_encoding`,
        ),
      );
    }
  },
);

test('transport defaults to amqp; proxy_url needs amqp_websockets and is checked without being quoted', () => {
  assert.equal(parseReceiverConfig({ connection: CONN }).transport, 'amqp');
  assert.equal(parseReceiverConfig({ connection: CONN }).proxy_url, undefined);
  const ws = parseReceiverConfig({
    connection: CONN,
    transport: 'amqp_websockets',
    proxy_url: 'http://u:S3cret-pa55@proxy:3128',
  });
  assert.deepEqual([ws.transport, ws.proxy_url], ['amqp_websockets', 'http://u:S3cret-pa55@proxy:3128']);
  assert.equal(parseReceiverConfig({ connection: CONN, transport: 'amqp_websockets' }).proxy_url, undefined);
  const text = problems({ connection: CONN, proxy_url: 'http://u:S3cret-pa55@proxy:3128' }).join('\n');
  assert.match(text, /proxy_url: needs transport: amqp_websockets/);
  const bad = problems({ connection: CONN, transport: 'amqp_websockets', proxy_url: 'ftp://u:S3cret-pa55@proxy' }).join(
    '\n',
  );
  assert.match(bad, /proxy_url: scheme 'ftp' is not supported; use an http:\/\/ or https:\/\/ \(CONNECT\) proxy/);
  assert.ok(!`${text}${bad}`.includes('S3cret'), 'the password is never printed');
});

test('ownership.foreign_ownership_expiry: 60s by default, 2m for .NET processors, 0 turns it off', () => {
  assert.equal(parseReceiverConfig({ connection: CONN }).ownership.foreign_ownership_expiry, 60_000);
  assert.equal(
    parseReceiverConfig({ connection: CONN, ownership: { lease_duration: '20s' } }).ownership.foreign_ownership_expiry,
    60_000,
  );
  assert.equal(
    parseReceiverConfig({ connection: CONN, ownership: { foreign_ownership_expiry: '2m' } }).ownership
      .foreign_ownership_expiry,
    120_000,
  );
  assert.equal(
    parseReceiverConfig({ connection: CONN, ownership: { foreign_ownership_expiry: 0 } }).ownership
      .foreign_ownership_expiry,
    0,
  );
  assert.ok(
    problems({ connection: CONN, ownership: { foreign_ownership_expiry: 'soon' } }).some((p) =>
      p.includes('ownership.foreign_ownership_expiry'),
    ),
  );
});

test(
  'event_metadata: none, eventhubs, messaging or a boolean, unset by default (the format decides); record_uid off ' +
    'by default',
  () => {
    const c = parseReceiverConfig({ connection: CONN });
    assert.equal(c.event_metadata, undefined);
    assert.equal(c.record_uid, false);
    for (const value of ['none', 'eventhubs', 'messaging', true, false]) {
      assert.equal(parseReceiverConfig({ connection: CONN, event_metadata: value }).event_metadata, value);
    }
    assert.equal(parseReceiverConfig({ connection: CONN, record_uid: true }).record_uid, true);
    const issues = problems({ connection: CONN, event_metadata: 'all', record_uid: 'yes' });
    assert.ok(
      issues.some((i) => /event_metadata: expected none, eventhubs or messaging \(or true \/ false\)/.test(i)),
      issues.join('\n'),
    );
    assert.ok(
      issues.some((i) => /record_uid/.test(i)),
      issues.join('\n'),
    );
  },
);
