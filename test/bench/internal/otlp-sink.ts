/**
 * An OTLP/HTTP logs sink for benchmarks, run as its own process (`node --import tsx otlp-sink.ts`) so its
 * work is not counted against the collector it receives from. It acknowledges every POST with 200 and an
 * empty `ExportLogsServiceResponse`, after reading the whole body, gunzipping it when it is gzip-encoded
 * and counting its log records (a walk over the protobuf wire format, nothing decoded beyond that).
 *
 * BENCH_SINK_LATENCY_MS (default 0) delays every answer by that long, as a backend across a network would
 * (the request is counted when its body arrived, the answer goes that much later): what several exports in
 * flight are for.
 *
 * Protocol on stdout, one line each: first `PORT <port>`, then per request
 * `R <records> <arrival epoch ms with fractions> <body bytes as sent>`. Ends when stdin closes.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { CHILD_EXEC_ARGV } from './child-loader.ts';
import { gunzipSync } from 'node:zlib';

/** One request as the sink saw it. */
export interface SinkRequest {
  /** Log records in it; -1 when the body could not be read as an ExportLogsServiceRequest. */
  readonly records: number;
  /** When its body had arrived, ms since the epoch (performance.timeOrigin + now(), sub-ms). */
  readonly arrivedAt: number;
  /** Body size as sent (compressed when gzip), bytes. */
  readonly bytes: number;
}

export interface OtlpSink {
  /** `http://127.0.0.1:<port>`: an otlphttp `endpoint`. */
  readonly endpoint: string;
  readonly pid: number;
  /** Calls `listener` for every request from now on; returns a function that stops it. */
  onRequest(listener: (request: SinkRequest) => void): () => void;
  stop(): Promise<void>;
}

/** Starts the sink in a child process (this file under tsx); resolves once it listens. */
export async function startOtlpSink(): Promise<OtlpSink> {
  const child: ChildProcess = spawn(process.execPath, [...CHILD_EXEC_ARGV, fileURLToPath(import.meta.url)], {
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const listeners = new Set<(request: SinkRequest) => void>();
  const lines = createInterface({ input: child.stdout! });
  const port = await new Promise<number>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`OTLP sink exited with ${code}`)));
    lines.on('line', (line) => {
      const [kind, a, b, c] = line.split(' ');
      if (kind === 'PORT') resolve(Number(a));
      else if (kind === 'R')
        for (const l of listeners) l({ records: Number(a), arrivedAt: Number(b), bytes: Number(c) });
    });
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    endpoint: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    onRequest(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async stop() {
      child.stdin!.end();
      setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
      await exited;
    },
  };
}

/** Reads a varint at `pos`; returns [value, next position]. Values stay below 2^53 for our lengths. */
function varint(buf: Uint8Array, pos: number): [number, number] {
  let value = 0;
  let scale = 1;
  for (;;) {
    const byte = buf[pos++]!;
    value += (byte & 0x7f) * scale;
    if (byte < 0x80) return [value, pos];
    scale *= 128;
  }
}

/**
 * Calls `onField(field, start, end)` for each length-delimited field of the message in buf[start, end),
 * and skips the others. Wire types per https://protobuf.dev/programming-guides/encoding/.
 */
function eachLengthDelimited(
  buf: Uint8Array,
  start: number,
  end: number,
  onField: (field: number, s: number, e: number) => void,
): void {
  let pos = start;
  while (pos < end) {
    const [tag, afterTag] = varint(buf, pos);
    pos = afterTag;
    const wire = tag & 7;
    if (wire === 0) pos = varint(buf, pos)[1];
    else if (wire === 1) pos += 8;
    else if (wire === 5) pos += 4;
    else if (wire === 2) {
      const [len, afterLen] = varint(buf, pos);
      onField(Math.floor(tag / 8), afterLen, afterLen + len);
      pos = afterLen + len;
    } else throw new Error(`unsupported wire type ${wire}`);
  }
}

/**
 * Log records in an ExportLogsServiceRequest: resource_logs (1) → scope_logs (2) → log_records (2), per
 * opentelemetry/proto/collector/logs/v1/logs_service.proto and logs/v1/logs.proto.
 */
export function countLogRecords(request: Uint8Array): number {
  let records = 0;
  eachLengthDelimited(request, 0, request.length, (f1, s1, e1) => {
    if (f1 !== 1) return;
    eachLengthDelimited(request, s1, e1, (f2, s2, e2) => {
      if (f2 !== 2) return;
      eachLengthDelimited(request, s2, e2, (f3) => {
        if (f3 === 2) records++;
      });
    });
  });
  return records;
}

const LATENCY_MS = Number(process.env.BENCH_SINK_LATENCY_MS ?? 0);

async function main(): Promise<void> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const arrivedAt = performance.timeOrigin + performance.now();
      const sent = Buffer.concat(chunks);
      let records = -1;
      try {
        const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(sent) : sent;
        records = countLogRecords(body);
      } catch {
        // Counted as -1: the bench reports a malformed request instead of hanging on a missing count.
      }
      process.stdout.write(`R ${records} ${arrivedAt.toFixed(3)} ${sent.length}\n`);
      const answer = () => {
        res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 });
        res.end();
      };
      if (LATENCY_MS > 0) setTimeout(answer, LATENCY_MS);
      else answer();
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  process.stdout.write(`PORT ${(server.address() as AddressInfo).port}\n`);
  process.stdin.resume();
  process.stdin.on('end', () => {
    server.closeAllConnections();
    server.close(() => process.exit(0));
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
