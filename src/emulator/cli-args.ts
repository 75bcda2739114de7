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
  if (!/^\d+$/.test(text) || port > 65_535) throw new CliUsageError(`${flag}: '${text}' is not a port number (0 to 65535)`);
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
    if (!/^[1-9]\d{0,3}$/.test(values.units)) throw new CliUsageError(`--units: '${values.units}' must be a whole number from 1 to 9999`);
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
  if ((cert === undefined) !== (key === undefined)) throw new CliUsageError('--tls-cert and --tls-key must be given together');
  return {
    options,
    help: values.help === true,
    ...(typeof values.config === 'string' ? { configFile: values.config } : {}),
    ...(cert !== undefined ? { tlsCertFile: cert } : {}),
    ...(key !== undefined ? { tlsKeyFile: key } : {}),
  };
}
