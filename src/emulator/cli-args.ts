/** Command-line flags of `eventhubs-emulator`, parsed into EmulatorOptions (pure: no I/O). */
import { parseArgs } from 'node:util';
import { EMULATOR_TIERS, type EmulatorTier } from './tier-quotas.ts';
import type { EmulatorHubConfig, EmulatorOptions } from './types.ts';

export const USAGE = `Usage: eventhubs-emulator [options]

A local Azure Event Hubs-compatible AMQP 1.0 server (for development and tests).

Options:
  --host HOST              interface to listen on (default 127.0.0.1)
  --port PORT              TCP port (default 5672; 0 picks a free port)
  --websocket-port PORT    also serve AMQP over WebSockets on this port (0 picks a free port), path
                           /$servicebus/websocket; wss with --tls-cert/--tls-key (the Azure SDKs need wss)
  --hub NAME:PARTITIONS    a hub with 1 to 32 partitions, more with --tier (repeatable)
  --tier TIER              namespace quotas: emulator (default; 1-32 partitions per hub), basic,
                           standard (32), premium (100), dedicated (1024)
  --units N                processing (premium) or capacity (dedicated) units for the quotas (default 1)
  --consumer-group NAME    a consumer group added to every hub (repeatable; $Default always exists)
  --retention DURATION     event retention, e.g. 30s, 15m, 1h, 2d, 500ms (default 1h)
  --ack-delay DURATION     delay producers' acknowledgements like a network round trip, e.g. 5ms (default 0)
  --opaque-offsets         serve offsets as opaque strings, as geo-replicated namespaces do
  --config FILE            hubs from a Microsoft Docker emulator config (JSON)
  --sas-key NAME=KEY       verify SAS tokens signed with this key (repeatable)
  --tls-cert FILE          PEM certificate: serve AMQPS (needs --tls-key)
  --tls-key FILE           PEM private key for --tls-cert
  --capture HUB=CONTAINER  Event Hubs Capture for this hub into this blob container (repeatable;
                           needs --capture-storage)
  --capture-storage CONN   Blob Storage connection string Capture writes with (e.g. Azurite's)
  --capture-interval DUR   Capture time window, e.g. 30s, 5m (default 5m)
  --capture-size BYTES     Capture size window in bytes (default 314572800)
  --capture-format FORMAT  blob name format with every token (default
                           {Namespace}/{EventHub}/{PartitionId}/{Year}/{Month}/{Day}/{Hour}/{Minute}/{Second})
  --capture-namespace NAME {Namespace} in blob names (default emulatorNs1)
  --capture-encoding ENC   Avro (codec null, default) or AvroDeflate
  --capture-skip-empty     write no file for a window without events
  -h, --help               show this help
`;

export class CliUsageError extends Error {
  override name = 'CliUsageError';
}

export interface CliArgs {
  options: EmulatorOptions;
  configFile?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  help: boolean;
}

const DURATION_UNITS_MS: Record<string, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** Parses `30s`, `15m`, `1h`, `2d`, `500ms` (a bare number is milliseconds). */
export function parseDurationMs(text: string, flag = '--retention'): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (!m) throw new CliUsageError(`${flag}: '${text}' is not a duration; use e.g. 30s, 15m, 1h, 2d`);
  const ms = Number(m[1]) * DURATION_UNITS_MS[m[2] ?? 'ms']!;
  if (!(ms > 0)) throw new CliUsageError(`${flag}: must be positive, got '${text}'`);
  return Math.round(ms);
}

function parsePort(flag: string, text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65_535)
    throw new CliUsageError(`${flag}: '${text}' is not a port number (0 to 65535)`);
  return port;
}

export function parseCliArgs(argv: string[]): CliArgs {
  let values: Record<string, string | string[] | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      allowPositionals: false,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        'websocket-port': { type: 'string' },
        hub: { type: 'string', multiple: true },
        'consumer-group': { type: 'string', multiple: true },
        retention: { type: 'string' },
        'ack-delay': { type: 'string' },
        'opaque-offsets': { type: 'boolean' },
        tier: { type: 'string' },
        units: { type: 'string' },
        config: { type: 'string' },
        'sas-key': { type: 'string', multiple: true },
        'tls-cert': { type: 'string' },
        'tls-key': { type: 'string' },
        capture: { type: 'string', multiple: true },
        'capture-storage': { type: 'string' },
        'capture-interval': { type: 'string' },
        'capture-size': { type: 'string' },
        'capture-format': { type: 'string' },
        'capture-namespace': { type: 'string' },
        'capture-encoding': { type: 'string' },
        'capture-skip-empty': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    }));
  } catch (err) {
    throw new CliUsageError((err as Error).message);
  }
  const options: EmulatorOptions = {};
  if (typeof values.host === 'string') options.host = values.host;
  if (typeof values.port === 'string') options.port = parsePort('--port', values.port);
  const websocketPort = values['websocket-port'];
  if (typeof websocketPort === 'string') options.websocketPort = parsePort('--websocket-port', websocketPort);
  const hubs: EmulatorHubConfig[] = [];
  for (const spec of (values.hub as string[] | undefined) ?? []) {
    const m = /^([^:]+):(\d+)$/.exec(spec);
    if (!m) throw new CliUsageError(`--hub: '${spec}' must be NAME:PARTITIONS, e.g. logs:4`);
    hubs.push({ name: m[1]!, partitions: Number(m[2]) });
  }
  applyCapture(values, hubs);
  if (hubs.length > 0) options.hubs = hubs;
  const groups = values['consumer-group'] as string[] | undefined;
  if (groups?.length) options.consumerGroups = groups;
  if (typeof values.tier === 'string') {
    if (!(EMULATOR_TIERS as readonly string[]).includes(values.tier)) {
      throw new CliUsageError(`--tier: '${values.tier}' is not a tier; use one of ${EMULATOR_TIERS.join(', ')}`);
    }
    options.tier = values.tier as EmulatorTier;
  }
  if (typeof values.units === 'string') {
    if (!/^[1-9]\d{0,3}$/.test(values.units))
      throw new CliUsageError(`--units: '${values.units}' must be a whole number from 1 to 9999`);
    options.capacityUnits = Number(values.units);
  }
  if (typeof values.retention === 'string') options.retentionMs = parseDurationMs(values.retention);
  if (typeof values['ack-delay'] === 'string') options.ackDelayMs = parseDurationMs(values['ack-delay'], '--ack-delay');
  if (values['opaque-offsets'] === true) options.opaqueOffsets = true;
  const sasKeys: Record<string, string> = {};
  for (const spec of (values['sas-key'] as string[] | undefined) ?? []) {
    const eq = spec.indexOf('=');
    // The message never echoes the value: it may hold the key.
    if (eq <= 0 || eq === spec.length - 1) throw new CliUsageError('--sas-key: must be NAME=KEY');
    sasKeys[spec.slice(0, eq)] = spec.slice(eq + 1);
  }
  if (Object.keys(sasKeys).length > 0) options.sasKeys = sasKeys;
  const cert = values['tls-cert'] as string | undefined;
  const key = values['tls-key'] as string | undefined;
  if ((cert === undefined) !== (key === undefined))
    throw new CliUsageError('--tls-cert and --tls-key must be given together');
  return {
    options,
    help: values.help === true,
    ...(typeof values.config === 'string' ? { configFile: values.config } : {}),
    ...(cert !== undefined ? { tlsCertFile: cert } : {}),
    ...(key !== undefined ? { tlsKeyFile: key } : {}),
  };
}

/** `--capture HUB=CONTAINER` and its settings, onto the hubs declared with `--hub`. */
function applyCapture(
  values: Record<string, string | string[] | boolean | undefined>,
  hubs: EmulatorHubConfig[],
): void {
  const specs = (values.capture as string[] | undefined) ?? [];
  const storage = values['capture-storage'];
  const settingsGiven = Object.keys(values).some((k) => k.startsWith('capture-') && k !== 'capture-storage');
  if (specs.length === 0) {
    if (typeof storage === 'string' || settingsGiven)
      throw new CliUsageError('--capture-* settings need --capture HUB=CONTAINER');
    return;
  }
  // The message never echoes the connection string: it holds the account key.
  if (typeof storage !== 'string' || storage === '')
    throw new CliUsageError('--capture needs --capture-storage CONNECTION (a Blob Storage connection string)');
  const encoding = values['capture-encoding'];
  if (encoding !== undefined && encoding !== 'Avro' && encoding !== 'AvroDeflate')
    throw new CliUsageError(`--capture-encoding: '${String(encoding)}' must be Avro or AvroDeflate`);
  const size = values['capture-size'];
  if (typeof size === 'string' && !/^[1-9]\d*$/.test(size))
    throw new CliUsageError(`--capture-size: '${size}' must be a whole number of bytes`);
  for (const spec of specs) {
    const m = /^([^=]+)=(.+)$/.exec(spec);
    if (!m) throw new CliUsageError(`--capture: '${spec}' must be HUB=CONTAINER, e.g. logs=capture`);
    const hub = hubs.find((h) => h.name.toLowerCase() === m[1]!.toLowerCase());
    if (!hub) throw new CliUsageError(`--capture: hub '${m[1]}' is not declared with --hub`);
    hub.capture = {
      storageConnectionString: storage,
      blobContainer: m[2]!,
      ...(typeof values['capture-interval'] === 'string'
        ? { intervalMs: parseDurationMs(values['capture-interval'], '--capture-interval') }
        : {}),
      ...(typeof size === 'string' ? { sizeLimitBytes: Number(size) } : {}),
      ...(typeof values['capture-format'] === 'string' ? { archiveNameFormat: values['capture-format'] } : {}),
      ...(typeof values['capture-namespace'] === 'string' ? { namespace: values['capture-namespace'] } : {}),
      ...(encoding !== undefined ? { encoding } : {}),
      ...(values['capture-skip-empty'] === true ? { skipEmptyArchives: true } : {}),
    };
  }
}
