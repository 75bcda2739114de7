/**
 * Child process of partition-memory.bench.ts: one receiver (the compiled dist/, as it ships) that reads
 * every partition of the hub in RECEIVER_CONFIG, so its memory is measured alone (the emulator lives in
 * the parent). The consumer notes each partition it got a record from; once every one of
 * EXPECT_PARTITIONS delivered, it prints `ALL`, so the parent knows every link is attached and has
 * delivered. Then it idles and answers commands on stdin, one per line:
 * `M`      prints `M <json>`: process.memoryUsage(), V8 heap statistics, VmRSS, each heap space's use and size, the
 * process's CPU time;
 *   `GC`     runs full collections (needs --expose-gc), then answers as `M`;
 *   `SNAP p` writes a heap snapshot to the path p, then prints `SNAPPED`;
 *   `PROF`   starts V8's CPU profiler (this thread); `PROF p` stops it, writes the profile to p, prints `PROFILED`.
 * RUNTIME=cli runs the receiver as `otelcol-azure-eventhub run` does (a worker thread with the CLI's heap
 * ceiling); the worker answers the commands, and VmRSS is still the whole process's.
 * SIGTERM or end of stdin: graceful shutdown, then exit 0.
 */
import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import { isMainThread, parentPort, Worker } from 'node:worker_threads';
import { getHeapStatistics, getHeapSpaceStatistics, writeHeapSnapshot } from 'node:v8';
import { Session } from 'node:inspector/promises';
import { writeFileSync } from 'node:fs';

const status = () => {
  const text = readFileSync('/proc/self/status', 'utf8');
  const kib = (key) => Number(new RegExp(`^${key}:\\s+(\\d+) kB`, 'm').exec(text)?.[1] ?? NaN) * 1024;
  return { vmRss: kib('VmRSS'), rssAnon: kib('RssAnon'), rssFile: kib('RssFile') };
};

const measure = () => {
  const h = getHeapStatistics();
  // Per space: [used, committed] bytes; a young generation grown under load and kept shows here.
  const spaces = Object.fromEntries(
    getHeapSpaceStatistics().map((s) => [s.space_name, [s.space_used_size, s.space_size]]),
  );
  const { user, system } = process.cpuUsage();
  return {
    ...process.memoryUsage(),
    cpuMicros: user + system,
    ...status(),
    heapTotalV8: h.total_heap_size,
    heapUsedV8: h.used_heap_size,
    mallocedMemory: h.malloced_memory,
    externalV8: h.external_memory,
    spaces,
  };
};

if (isMainThread && process.env.RUNTIME === 'cli') {
  // The CLI's own worker start (heap ceiling and flags), with this file as the worker's entry.
  const { DEFAULT_HEAP_LIMIT_MIB } = await import('../../../dist/distribution/heap-limit.js');
  const maxOldGenerationSizeMb = Number(process.env.HEAP_LIMIT_MIB ?? DEFAULT_HEAP_LIMIT_MIB);
  const worker = new Worker(new URL(import.meta.url), { resourceLimits: { maxOldGenerationSizeMb } });
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => worker.postMessage(line));
  lines.on('close', () => worker.postMessage('STOP'));
  process.on('SIGTERM', () => worker.postMessage('STOP'));
  worker.on('exit', (code) => process.exit(code));
} else {
  const { createAzureEventHubReceiver } = await import('../../../dist/index.js');
  const expected = Number(process.env.EXPECT_PARTITIONS ?? 1);
  const seen = new Set();
  let announced = false;
  const say = (line) => process.stdout.write(`${line}\n`);
  const consumer = {
    async consume(batch) {
      for (const r of batch.records) seen.add(r.attributes['messaging.destination.partition.id']);
      if (!announced && seen.size >= expected) {
        announced = true;
        say('ALL');
      }
    },
  };
  // The records name their partition through the event metadata (off by default for the azure format).
  const receiver = createAzureEventHubReceiver(
    { event_metadata: 'messaging', ...JSON.parse(process.env.RECEIVER_CONFIG ?? '{}') },
    consumer,
  );
  const profiler = new Session();
  profiler.connect();
  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    const forced = setTimeout(() => process.exit(143), 10_000);
    forced.unref();
    void receiver.shutdown().finally(() => process.exit(0));
  };
  const onCommand = (line) => {
    if (line === 'M') say(`M ${JSON.stringify(measure())}`);
    else if (line === 'GC') {
      // Several passes: weak references and finalizers free more on the second.
      for (let i = 0; i < 3; i++) globalThis.gc?.();
      say(`M ${JSON.stringify(measure())}`);
    } else if (line.startsWith('SNAP ')) {
      writeHeapSnapshot(line.slice(5));
      say('SNAPPED');
    } else if (line === 'PROF') {
      void profiler.post('Profiler.enable').then(() => profiler.post('Profiler.start'));
    } else if (line.startsWith('PROF ')) {
      void profiler.post('Profiler.stop').then(({ profile }) => {
        writeFileSync(line.slice(5), JSON.stringify(profile));
        say('PROFILED');
      });
    } else if (line === 'STOP') stop();
  };
  if (isMainThread) {
    const lines = createInterface({ input: process.stdin });
    lines.on('line', onCommand);
    lines.on('close', stop);
    process.on('SIGTERM', stop);
  } else {
    parentPort.on('message', onCommand);
  }
  await receiver.start();
  say('STARTED');
}
