import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CliUsageError, parseCliArgs, parseDurationMs } from '../../../src/emulator/cli-args.ts';
import { EmulatorConfigError, hubsFromDockerConfig } from '../../../src/emulator/docker-config.ts';

test('flags map to emulator options', () => {
  const args = parseCliArgs([
    '--host',
    '0.0.0.0',
    '--port',
    '0',
    '--hub',
    'logs:4',
    '--hub',
    'metrics:1',
    '--consumer-group',
    'a',
    '--consumer-group',
    'b',
    '--retention',
    '15m',
    '--sas-key',
    'k1=abc=',
    '--tls-cert',
    'c.pem',
    '--tls-key',
    'k.pem',
    '--config',
    'x.json',
  ]);
  assert.deepEqual(args.options, {
    host: '0.0.0.0',
    port: 0,
    hubs: [
      { name: 'logs', partitions: 4 },
      { name: 'metrics', partitions: 1 },
    ],
    consumerGroups: ['a', 'b'],
    retentionMs: 900_000,
    sasKeys: { k1: 'abc=' },
  });
  assert.equal(args.configFile, 'x.json');
  assert.equal(args.tlsCertFile, 'c.pem');
  assert.equal(parseCliArgs(['-h']).help, true);
});

test('--websocket-port takes a port (0 = a free one) and refuses anything else', () => {
  assert.equal(parseCliArgs(['--websocket-port', '0']).options.websocketPort, 0);
  assert.equal(parseCliArgs(['--websocket-port', '8443']).options.websocketPort, 8443);
  assert.equal(parseCliArgs([]).options.websocketPort, undefined);
  assert.throws(() => parseCliArgs(['--websocket-port', 'wss']), /--websocket-port: 'wss' is not a port number/);
  assert.throws(() => parseCliArgs(['--websocket-port', '70000']), /--websocket-port: '70000' is not a port number/);
});

test('durations accept ms, s, m, h, d and reject the rest', () => {
  assert.equal(parseDurationMs('500ms'), 500);
  assert.equal(parseDurationMs('30s'), 30_000);
  assert.equal(parseDurationMs('1h'), 3_600_000);
  assert.equal(parseDurationMs('2d'), 172_800_000);
  assert.equal(parseDurationMs('250'), 250);
  assert.throws(() => parseDurationMs('soon'), CliUsageError);
  assert.throws(() => parseDurationMs('0s'), /positive/);
});

test('bad flags give clear usage errors that never echo a key', () => {
  assert.throws(() => parseCliArgs(['--hub', 'nopartitions']), /NAME:PARTITIONS/);
  assert.throws(() => parseCliArgs(['--port', 'http']), /not a port/);
  assert.throws(() => parseCliArgs(['--bogus']), CliUsageError);
  assert.throws(() => parseCliArgs(['--tls-cert', 'c.pem']), /together/);
  assert.throws(
    () => parseCliArgs(['--sas-key', 'supersecretvalue']),
    (err: Error) => !err.message.includes('supersecretvalue'),
  );
});

test('the Docker emulator config format gives hubs and consumer groups, with every error at once', () => {
  const hubs = hubsFromDockerConfig({
    UserConfig: {
      NamespaceConfig: [
        {
          Type: 'EventHub',
          Name: 'emulatorNs1',
          Entities: [
            { Name: 'eh1', PartitionCount: '2', ConsumerGroups: [{ Name: 'cg1' }] },
            { Name: 'eh2', PartitionCount: 3 },
          ],
        },
      ],
      LoggingConfig: { Type: 'File' },
    },
  });
  assert.deepEqual(hubs, [
    { name: 'eh1', partitions: 2, consumerGroups: ['cg1'] },
    { name: 'eh2', partitions: 3, consumerGroups: [] },
  ]);
  assert.throws(() => hubsFromDockerConfig({}), EmulatorConfigError);
  assert.throws(
    () =>
      hubsFromDockerConfig({
        UserConfig: {
          NamespaceConfig: [
            {
              Entities: [
                { Name: 'a', PartitionCount: 40 },
                { PartitionCount: 1, ConsumerGroups: [{}] },
              ],
            },
          ],
        },
      }),
    (err: Error) =>
      /Entities\[0\]\.PartitionCount/.test(err.message) &&
      /Entities\[1\]\.Name/.test(err.message) &&
      /ConsumerGroups\[0\]\.Name/.test(err.message),
  );
});

test("--ack-delay sets the producers' acknowledgement delay; a bad value names the flag", () => {
  assert.equal(parseCliArgs(['--ack-delay', '5ms']).options.ackDelayMs, 5);
  assert.equal(parseCliArgs([]).options.ackDelayMs, undefined);
  assert.throws(() => parseCliArgs(['--ack-delay', 'soon']), /^CliUsageError: --ack-delay: 'soon' is not a duration/);
});

test("--capture turns Capture on for a declared hub, with the service's settings", () => {
  const cs = 'DefaultEndpointsProtocol=http;AccountName=a;AccountKey=c2VjcmV0;BlobEndpoint=http://127.0.0.1:1/a;';
  const { options } = parseCliArgs([
    '--hub',
    'logs:2',
    '--hub',
    'other:1',
    '--capture',
    'logs=archive',
    '--capture-storage',
    cs,
    '--capture-interval',
    '30s',
    '--capture-size',
    '1048576',
    '--capture-encoding',
    'AvroDeflate',
    '--capture-skip-empty',
  ]);
  assert.deepEqual(options.hubs![0]!.capture, {
    storageConnectionString: cs,
    blobContainer: 'archive',
    intervalMs: 30_000,
    sizeLimitBytes: 1_048_576,
    encoding: 'AvroDeflate',
    skipEmptyArchives: true,
  });
  assert.equal(options.hubs![1]!.capture, undefined, 'Capture is per hub, off by default');
  assert.throws(() => parseCliArgs(['--hub', 'logs:1', '--capture', 'logs=archive']), /needs --capture-storage/);
  assert.throws(
    () => parseCliArgs(['--hub', 'logs:1', '--capture', 'nope=archive', '--capture-storage', cs]),
    /hub 'nope' is not declared/,
  );
  assert.throws(() => parseCliArgs(['--hub', 'logs:1', '--capture-interval', '1m']), /need --capture HUB=CONTAINER/);
  const secret = (() => {
    try {
      parseCliArgs([
        '--hub',
        'logs:1',
        '--capture',
        'logs=archive',
        '--capture-storage',
        cs,
        '--capture-encoding',
        'zip',
      ]);
    } catch (error) {
      return (error as Error).message;
    }
    return '';
  })();
  assert.match(secret, /must be Avro or AvroDeflate/);
  assert.doesNotMatch(secret, /c2VjcmV0/, 'the storage key is never echoed');
});
