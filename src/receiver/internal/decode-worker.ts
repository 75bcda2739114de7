/**
 * A decode worker thread (decode-pool.ts starts it): holds the receiver's decoder, built from the same
 * options, and the one-pass OTLP logs encoder; for each job it decodes the events and answers with the
 * encoded request (its memory transferred, not copied) and the counts the receiver keeps.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDecoder } from '../../decode/create-decoder.ts';
import type { DecoderOptions } from '../../decode/decoder.ts';
import { encodeLogsRequest } from '../../exporters/otlp-logs-encoding.ts';
import type { DecodeJobResult } from './decode-pool.ts';
import { unpackDecodeJob, type DecodeJob } from './decode-job.ts';

const port = parentPort;
if (!port) throw new Error('decode-worker.ts runs as a worker thread');
const decode = createDecoder((workerData as { decoder: DecoderOptions }).decoder);

port.on('message', (job: DecodeJob) => {
  let result: DecodeJobResult;
  let transfer: ArrayBuffer[] = [];
  try {
    const decoded = decode(unpackDecodeJob(job), job.context);
    const encoded = encodeLogsRequest(decoded.records);
    // A view of a pooled or oversized buffer is copied to a buffer of its own, which is then moved.
    const own =
      encoded.byteOffset === 0 && encoded.buffer.byteLength === encoded.byteLength ? encoded : new Uint8Array(encoded);
    transfer = [own.buffer as ArrayBuffer];
    result = {
      id: job.id,
      bytes: own,
      records: decoded.records.length,
      metricPoints: decoded.metrics?.length ?? 0,
      spans: decoded.spans?.length ?? 0,
      stats: decoded.stats,
    };
  } catch (error) {
    // The decoder never throws; the encoder might on a bug. The job fails and the partition decodes itself.
    result = { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(result, transfer);
});
