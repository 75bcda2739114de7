/**
 * An in-process OTLP/HTTP logs sink for the fleet-faults bench: decodes every request (gzip aware, with
 * the tests' own protobuf schema, independent of the exporter's encoder) and counts each log record by a
 * unique id: `<consumer group>/<partition>/<sequence number>` from the `messaging.*` / `azure.eventhubs.*`
 * metadata that the `raw` format writes. Each collector posts to its own path prefix
 * (`<endpoint>/<instance name>`), so the sink knows who delivered each copy and when. Between `refuse()`
 * and `accept()` it answers 503 (retryable by the OTLP spec) and counts nothing.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { decodeLogsRequest } from '../../../helpers/otlp-logs-proto.ts';

/** One accepted copy of a record. */
export interface Delivery {
  /** The instance that posted it (the first path segment). */
  readonly instance: string;
  readonly at: number;
}

export interface IdSink {
  /** Base URL of one instance: an otlphttp `endpoint` (the exporter appends `/v1/logs`). */
  endpointFor(instance: string): string;
  /** Every accepted copy of each record id, in arrival order. */
  readonly deliveries: Map<string, Delivery[]>;
  /** Requests answered 503 (refused) and 200 (accepted), and bodies that could not be decoded. */
  readonly requests: { refused: number; accepted: number; malformed: number };
  /** Answer 503 to every request from now on. */
  refuse(): void;
  accept(): void;
  stop(): Promise<void>;
}

type AnyValue = { stringValue?: string; intValue?: string };
type KeyValue = { key: string; value?: AnyValue };

const attr = (attrs: KeyValue[] | undefined, ...keys: string[]): string | undefined => {
  for (const key of keys) {
    const v = attrs?.find((a) => a.key === key)?.value;
    if (v) return v.stringValue ?? v.intValue;
  }
  return undefined;
};

/** The record's id, or undefined when it carries no Event Hubs metadata. */
export function recordId(attrs: KeyValue[] | undefined): string | undefined {
  const group = attr(attrs, 'messaging.consumer.group.name', 'azure.eventhubs.consumer_group');
  const partition = attr(attrs, 'messaging.destination.partition.id', 'azure.eventhubs.partition.id');
  const seq = attr(attrs, 'azure.eventhubs.message.sequence_number');
  return group === undefined || partition === undefined || seq === undefined
    ? undefined
    : `${group}/${partition}/${seq}`;
}

export async function startIdSink(): Promise<IdSink> {
  const deliveries = new Map<string, Delivery[]>();
  const requests = { refused: 0, accepted: 0, malformed: 0 };
  let refusing = false;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (refusing) {
        requests.refused++;
        res.writeHead(503, { 'content-type': 'text/plain' }).end('sink outage (fleet-faults bench)');
        return;
      }
      const instance = (req.url ?? '/').split('/')[1] ?? '';
      const at = Date.now();
      try {
        const sent = Buffer.concat(chunks);
        const body = req.headers['content-encoding'] === 'gzip' ? gunzipSync(sent) : sent;
        const request = decodeLogsRequest(body) as {
          resourceLogs?: { scopeLogs?: { logRecords?: { attributes?: KeyValue[] }[] }[] }[];
        };
        for (const rl of request.resourceLogs ?? []) {
          for (const sl of rl.scopeLogs ?? []) {
            for (const record of sl.logRecords ?? []) {
              const id = recordId(record.attributes) ?? `unidentified/${instance}/${at}/${Math.random()}`;
              const copies = deliveries.get(id);
              if (copies) copies.push({ instance, at });
              else deliveries.set(id, [{ instance, at }]);
            }
          }
        }
        requests.accepted++;
        res.writeHead(200, { 'content-type': 'application/x-protobuf', 'content-length': 0 }).end();
      } catch {
        requests.malformed++;
        res.writeHead(400, { 'content-type': 'text/plain' }).end('undecodable');
      }
    });
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    endpointFor: (instance) => `http://127.0.0.1:${port}/${instance}`,
    deliveries,
    requests,
    refuse: () => (refusing = true),
    accept: () => (refusing = false),
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
