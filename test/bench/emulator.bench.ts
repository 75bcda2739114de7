/**
 * Emulator delivery throughput: preloads 1-KiB events with `append()` and measures how fast they reach
 * (1) a bare rhea receiver and (2) the SDK's EventHubConsumerClient. Baseline, same script and machine: a
 * minimal rhea server that sends the same pre-encoded messages with no Event Hubs logic, to the same
 * bare receiver; the ratio says how much the emulator's own work costs. Target: >= 50,000 events/s.
 */
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { CHILD_EXEC_ARGV } from './internal/child-loader.ts';
import rhea from 'rhea';
import { EventHubConsumerClient, earliestEventPosition } from '@azure/event-hubs';
import { startEmulator } from '../../src/emulator/index.ts';

const EVENTS = Number(process.env.BENCH_EMULATOR_EVENTS ?? 100_000);
const EVENT_BYTES = 1024;
const RUNS = 3;
const TIMEOUT_MS = 120_000;
const CREDIT_WINDOW = 1_000;
const HUB = 'bench';
const ADDRESS = `${HUB}/ConsumerGroups/$Default/Partitions/0`;

function body(i: number): Buffer {
  const b = Buffer.alloc(EVENT_BYTES, 0x61);
  b.write(String(i));
  return b;
}

/** Receives `count` messages with a bare rhea client; returns events per second. */
async function rheaReceive(port: number, count: number, filter: boolean): Promise<number> {
  const container = (rhea as any).create_container();
  return new Promise<number>((resolve, reject) => {
    let received = 0;
    let started = 0;
    const timer = setTimeout(
      () => reject(new Error(`rhea receiver got ${received} of ${count} in ${TIMEOUT_MS} ms`)),
      TIMEOUT_MS,
    );
    const connection = container.connect({ host: '127.0.0.1', port, reconnect: false });
    const source: Record<string, unknown> = { address: ADDRESS };
    if (filter) {
      source.filter = {
        'apache.org:selector-filter:string': (rhea as any).types.wrap_described(
          "amqp.annotation.x-opt-offset > '-1'",
          0x468c00000004,
        ),
      };
    }
    connection.open_receiver({ source, credit_window: CREDIT_WINDOW, autoaccept: true });
    container.on('receiver_open', () => (started = performance.now()));
    container.on('message', () => {
      received++;
      if (received === count) {
        const rate = count / ((performance.now() - started) / 1000);
        clearTimeout(timer);
        connection.close();
        resolve(rate);
      }
    });
    container.on('error', reject);
  });
}

/** A minimal rhea server that sends pre-encoded messages while credit lasts: the baseline. */
async function baselineServer(messages: Buffer[]): Promise<{ port: number; close(): void }> {
  const container = (rhea as any).create_container();
  container.on('sender_open', (ctx: any) => {
    ctx.sender.set_source(ctx.sender.remote.attach.source);
    ctx.sender.local.attach.snd_settle_mode = 1;
  });
  const sent = new WeakMap<object, number>();
  container.on('sendable', (ctx: any) => {
    let i = sent.get(ctx.sender) ?? 0;
    while (i < messages.length && ctx.sender.sendable()) ctx.sender.send(messages[i++], undefined, 0);
    sent.set(ctx.sender, i);
  });
  const server = container.listen({ host: '127.0.0.1', port: 0 });
  await new Promise((r) => server.once('listening', r));
  return { port: server.address().port, close: () => server.close() };
}

async function sdkReceive(connectionString: string, count: number): Promise<number> {
  const consumer = new EventHubConsumerClient('$Default', connectionString);
  let received = 0;
  let started = 0;
  try {
    return await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`SDK got ${received} of ${count} in ${TIMEOUT_MS} ms`)),
        TIMEOUT_MS,
      );
      started = performance.now();
      const sub = consumer.subscribe(
        '0',
        {
          processEvents: async (events) => {
            received += events.length;
            if (received >= count) {
              clearTimeout(timer);
              const rate = count / ((performance.now() - started) / 1000);
              await sub.close();
              resolve(rate);
            }
          },
          processError: async (err) => reject(err),
        },
        { startPosition: earliestEventPosition, maxBatchSize: 1_000, prefetchCount: 3_000, maxWaitTimeInSeconds: 1 },
      );
    });
  } finally {
    await consumer.close();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number) => Math.round(n).toLocaleString('en-US');

/** Runs in a child process, so the server and the receiver under test each have their own core. */
async function serve(role: string): Promise<void> {
  if (role === 'emulator') {
    const emulator = await startEmulator({ port: 0, hubs: [{ name: HUB, partitions: 1 }] });
    const started = performance.now();
    for (let i = 0; i < EVENTS; i += 1_000) {
      emulator.append(
        HUB,
        '0',
        Array.from({ length: Math.min(1_000, EVENTS - i) }, (_, j) => ({
          body: body(i + j),
          properties: { n: i + j },
        })),
      );
    }
    const rate = EVENTS / ((performance.now() - started) / 1000);
    console.log(
      JSON.stringify({
        port: emulator.port,
        connectionString: emulator.connectionString(HUB),
        preloadEventsPerSec: Math.round(rate),
      }),
    );
    process.on('SIGUSR2', () => console.log(JSON.stringify({ cpuMicros: cpuMicros() })));
    process.once('SIGTERM', () => void emulator.stop().then(() => process.exit(0)));
  } else {
    const encoded = Array.from({ length: EVENTS }, (_, i) =>
      (rhea as any).message.encode({
        body: (rhea as any).message.data_section(body(i)),
        application_properties: { n: i },
        message_annotations: {
          'x-opt-sequence-number': i,
          'x-opt-offset': String(i * 1100),
          'x-opt-enqueued-time': new Date(),
        },
      }),
    );
    const server = await baselineServer(encoded);
    console.log(JSON.stringify({ port: server.port }));
    process.on('SIGUSR2', () => console.log(JSON.stringify({ cpuMicros: cpuMicros() })));
    process.once('SIGTERM', () => process.exit(0));
  }
}

function cpuMicros(): number {
  const u = process.cpuUsage();
  return u.user + u.system;
}

/** A server child: its start-up line, a way to read its CPU time so far, and stop. */
interface Child {
  info: any;
  cpuMicros(): Promise<number>;
  stop(): void;
}

async function startChild(role: string): Promise<Child> {
  const child = spawn(process.execPath, [...CHILD_EXEC_ARGV, fileURLToPath(import.meta.url)], {
    env: { ...process.env, BENCH_EMULATOR_ROLE: role },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const info = await new Promise<any>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error(`${role} server did not start`)), TIMEOUT_MS);
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const nl = out.indexOf('\n');
      if (nl >= 0) {
        clearTimeout(timer);
        resolve(JSON.parse(out.slice(0, nl)));
      }
    });
    child.once('exit', (code) => reject(new Error(`${role} server exited with ${code}`)));
  });
  let lines = '';
  let waiter: ((v: number) => void) | undefined;
  child.stdout.on('data', (c: Buffer) => {
    lines += c.toString();
    let nl;
    while ((nl = lines.indexOf('\n')) >= 0) {
      const line = lines.slice(0, nl);
      lines = lines.slice(nl + 1);
      if (line.includes('cpuMicros')) waiter?.(JSON.parse(line).cpuMicros);
    }
  });
  return {
    info,
    cpuMicros: () =>
      new Promise<number>((resolve) => {
        waiter = resolve;
        child.kill('SIGUSR2');
      }),
    stop: () => child.kill('SIGTERM'),
  };
}

const role = process.env.BENCH_EMULATOR_ROLE;
if (role) {
  await serve(role);
} else {
  const emulator = await startChild('emulator');
  const baseline = await startChild('baseline');
  console.log(
    `preloaded ${fmt(EVENTS)} events of ${EVENT_BYTES} B at ${fmt(emulator.info.preloadEventsPerSec)} events/s ` +
      `(append)`,
  );
  const rheaRates: number[] = [];
  const baseRates: number[] = [];
  const sdkRates: number[] = [];
  const emulatorCpuPerEvent: number[] = [];
  const baselineCpuPerEvent: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    let cpu0 = await baseline.cpuMicros();
    baseRates.push(await rheaReceive(baseline.info.port, EVENTS, false));
    baselineCpuPerEvent.push(((await baseline.cpuMicros()) - cpu0) / EVENTS);
    cpu0 = await emulator.cpuMicros();
    rheaRates.push(await rheaReceive(emulator.info.port, EVENTS, true));
    emulatorCpuPerEvent.push(((await emulator.cpuMicros()) - cpu0) / EVENTS);
    sdkRates.push(await sdkReceive(emulator.info.connectionString, EVENTS));
    console.log(
      `run ${run + 1}: server CPU per event: emulator ${emulatorCpuPerEvent[run]!.toFixed(2)} µs, bare rhea server ` +
        `${baselineCpuPerEvent[run]!.toFixed(2)} µs`,
    );
    console.log(
      `run ${run + 1}: baseline rhea server → rhea ${fmt(baseRates[run]!)}/s, emulator → rhea ` +
        `${fmt(rheaRates[run]!)}/s, emulator → SDK ${fmt(sdkRates[run]!)}/s`,
    );
  }
  baseline.stop();
  emulator.stop();
  const result = {
    events: EVENTS,
    eventBytes: EVENT_BYTES,
    preloadEventsPerSec: emulator.info.preloadEventsPerSec,
    baselineRheaEventsPerSec: Math.round(median(baseRates)),
    emulatorToRheaEventsPerSec: Math.round(median(rheaRates)),
    emulatorToSdkEventsPerSec: Math.round(median(sdkRates)),
    emulatorVsBaselineRatio: Number((median(rheaRates) / median(baseRates)).toFixed(2)),
    emulatorServerCpuMicrosPerEvent: Number(median(emulatorCpuPerEvent).toFixed(2)),
    baselineServerCpuMicrosPerEvent: Number(median(baselineCpuPerEvent).toFixed(2)),
    emulatorServerEventsPerCpuSecond: Math.round(1e6 / median(emulatorCpuPerEvent)),
    targetEventsPerSec: 50_000,
  };
  console.log(
    `emulator server capacity: ${fmt(result.emulatorServerEventsPerCpuSecond)} events per CPU-second ` +
      `(${result.emulatorServerCpuMicrosPerEvent} µs/event; bare rhea server ` +
      `${result.baselineServerCpuMicrosPerEvent} µs/event)`,
  );
  console.log(
    `median of ${RUNS}: emulator → rhea ${fmt(result.emulatorToRheaEventsPerSec)}/s ` +
      `(${result.emulatorVsBaselineRatio}× the bare rhea server), emulator → SDK ` +
      `${fmt(result.emulatorToSdkEventsPerSec)}/s`,
  );
  console.log(`BENCH_RESULT ${JSON.stringify(result)}`);
  process.exit(0);
}
