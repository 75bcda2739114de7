import { parseArgs } from 'node:util';
import type { CliIo } from '../cli-io.ts';
import type { Components } from '../components.ts';
import { EXIT_OK } from '../exit-codes.ts';
import { UsageError } from '../usage-error.ts';
import { Service } from '../service.ts';
import { createJsonLogger } from '../../telemetry/json-logger.ts';
import type { ReceiverConfig } from '../../config/receiver-config.ts';
import type { ReceiverCreateSettings } from '../../receiver/receiver.ts';
import type { ResolvedConfig } from '../resolve-config.ts';
import { captureReplayHub, type ReplayProgress } from '../../receiver/capture/capture-replay-hub.ts';
import { captureLocation, capturePartitions } from '../../receiver/capture/capture-source.ts';
import { CONFIG_OPTIONS, CONFIG_OPTIONS_HELP, gatesFromFlags, loadFromFlags } from './config-options.ts';

export const REPLAY_HELP = `\
Usage: otelcol-azure-eventhub replay --config FILE --from TIME --to TIME [--partition ID] [--receiver ID]

Sends the events Event Hubs Capture holds for a time range (enqueued at or after --from, before --to)
through the config's pipelines, partition by partition in sequence order, then exits: for re-ingesting
into a new backend. Reads the receiver's \`capture\` section (docs/capture.md). Never reads or writes the
live checkpoints or leases: the run keeps its positions in memory.

Options:
${CONFIG_OPTIONS_HELP}
      --from TIME          RFC 3339 time with a zone, e.g. 2026-01-02T03:00:00Z. Required.
      --to TIME            RFC 3339 time with a zone, after --from. Required.
      --partition ID       Only this partition. Default every partition of the hub.
      --receiver ID        The receiver whose capture section and pipelines to use (needed with several).

Progress goes to stderr, one line per capture file read; a summary with the events per partition at the end.
Exit codes: 0 done, 1 storage, hub or pipeline failed, 2 bad flags or config.`;

const OPTIONS = {
  ...CONFIG_OPTIONS,
  from: { type: 'string' },
  to: { type: 'string' },
  partition: { type: 'string' },
  receiver: { type: 'string' },
} as const;

function parseTime(flag: string, text: string | undefined): Date {
  if (text === undefined)
    throw new UsageError(`${flag}: required, an RFC 3339 time with a zone (2026-01-02T03:00:00Z)`);
  const ok = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/.test(text);
  const time = new Date(text);
  if (!ok || Number.isNaN(time.getTime()))
    throw new UsageError(`${flag}: '${text}' is not an RFC 3339 time with a zone (2026-01-02T03:00:00Z)`);
  return time;
}

/** The config with one receiver reading Capture for the range, without checkpoint store or leases. */
function replayConfig(
  config: ResolvedConfig,
  receiverId: string,
  partition: string | undefined,
  progress: (p: ReplayProgress) => void,
  range: { from: Date; to: Date },
  onHub: (partitionIds: Promise<readonly string[]>) => void,
): ResolvedConfig {
  const r = config.receivers.get(receiverId)!;
  const c = r.config as ReceiverConfig;
  if (!c.capture)
    throw new UsageError(
      `receivers.${receiverId}.capture: required for replay (where the Capture files are; docs/capture.md)`,
    );
  const store = c.blob_checkpoint_store;
  const ownAccount = c.capture.connection || c.capture.storage_account_url;
  const capture =
    ownAccount || !store
      ? c.capture
      : { ...c.capture, connection: store.connection, storage_account_url: store.storage_account_url };
  // No blob_checkpoint_store: positions live in memory, so no live checkpoint or lease is read or written.
  const { blob_checkpoint_store: _dropped, ...rest } = c;
  const replay: ReceiverConfig = {
    ...rest,
    capture,
    start_position: { kind: 'earliest' } as ReceiverConfig['start_position'],
    partition: partition ?? '',
    hub_lag_interval: 0,
  };
  const factory = {
    ...r.factory,
    create: (settings: ReceiverCreateSettings, cfg: unknown, next: Parameters<typeof r.factory.create>[2]) => {
      const wrapHub: ReceiverCreateSettings['wrapHub'] = (hub) => {
        onHub(hub.getHubProperties().then((p) => p.partitionIds));
        const location = captureLocation(replay, hub, settings.credential, undefined);
        return captureReplayHub(hub, { capture: capturePartitions(location!), ...range, onProgress: progress });
      };
      return r.factory.create({ ...settings, wrapHub }, cfg, next);
    },
  };
  const receivers = new Map([[receiverId, { ...r, factory, config: replay }]]);
  const pipelines = config.service.pipelines
    .filter((p) => p.receivers.includes(receiverId))
    .map((p) => ({ ...p, receivers: [receiverId] }));
  return { ...config, receivers, service: { ...config.service, pipelines } } as ResolvedConfig;
}

/** `replay`: re-sends a time range of captured events through the configured pipelines. */
export async function replayCommand(args: readonly string[], io: CliIo, components: Components): Promise<number> {
  const { values } = parseArgs({ args: [...args], options: OPTIONS, strict: true, allowPositionals: false });
  if (values.help) {
    io.out(REPLAY_HELP);
    return EXIT_OK;
  }
  const from = parseTime('--from', values.from);
  const to = parseTime('--to', values.to);
  if (to.getTime() <= from.getTime()) throw new UsageError('--to: must be after --from');
  const config = await loadFromFlags(values, io.env, components);
  const ids = [...config.receivers.keys()];
  const receiverId = values.receiver ?? (ids.length === 1 ? ids[0]! : undefined);
  if (receiverId === undefined || !config.receivers.has(receiverId)) {
    throw new UsageError(
      values.receiver
        ? `--receiver: '${values.receiver}' is not configured; receivers: ${ids.join(', ')}`
        : `the config has ${ids.length} receivers (${ids.join(', ')}); name one with --receiver`,
    );
  }
  const logs = config.service.telemetry.logs;
  const logger = createJsonLogger({
    level: logs.level === 'debug' ? 'debug' : 'warn',
    encoding: logs.encoding,
    write: (line) => io.err(line.replace(/\n$/, '')),
  });
  const partitions = new Map<string, ReplayProgress>();
  let allDone: () => void = () => {};
  const finished = new Promise<void>((resolve) => (allDone = resolve));
  let expected: number | undefined;
  const onProgress = (p: ReplayProgress): void => {
    partitions.set(p.partitionId, p);
    if (!p.done) io.err(`replay: partition ${p.partitionId}: file ${p.filesRead}/${p.filesTotal}, ${p.events} events`);
    const done = [...partitions.values()].filter((x) => x.done).length;
    if (expected !== undefined && done >= expected) allDone();
  };
  let partitionIds: Promise<readonly string[]> | undefined;
  const replay = replayConfig(
    config,
    receiverId,
    values.partition,
    onProgress,
    { from, to },
    (ids) => (partitionIds = ids),
  );
  const started = Date.now();
  const service = await Service.start(replay, { logger, featureGates: gatesFromFlags(values, io.env) });
  try {
    // Every partition of the hub (or the one asked for) must report done before the run ends.
    expected = values.partition ? 1 : (await partitionIds!).length;
    if ([...partitions.values()].filter((x) => x.done).length >= expected) allDone();
    await finished;
  } finally {
    // Graceful: the batches in flight are exported, processors and exporters flush.
    await service.shutdown();
  }
  const total = [...partitions.values()].reduce((sum, p) => sum + p.events, 0);
  for (const p of [...partitions.values()].sort((a, b) => Number(a.partitionId) - Number(b.partitionId))) {
    io.out(`partition ${p.partitionId}: ${p.events} events from ${p.filesTotal} capture files`);
  }
  io.out(
    `replayed ${total} events enqueued from ${from.toISOString()} to ${to.toISOString()} in ` +
      `${((Date.now() - started) / 1000).toFixed(1)} s; no checkpoint was read or written`,
  );
  return EXIT_OK;
}
