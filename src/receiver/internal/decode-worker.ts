/**
 * A decode worker thread (decode-pool.ts starts it): holds the receiver's decoder, built from the same
 * options, and the one-pass OTLP logs encoder; for each job it decodes the events a slice at a time
 * (DECODE_SLICE_EVENTS), adding each slice's records to the request as it goes, and answers with the encoded
 * request (its memory transferred, not copied) and the counts the receiver keeps.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDecoder } from '../../decode/create-decoder.ts';
import type { DecodeStats, DecoderOptions } from '../../decode/decoder.ts';
import { LogsRequestBuilder } from '../../exporters/otlp-logs-encoding.ts';
import type { DecodeJobResult } from './decode-pool.ts';
import { DECODE_SLICE_EVENTS, unpackDecodeJob, type DecodeJob } from './decode-job.ts';

const port = parentPort;
if (!port) throw new Error('decode-worker.ts runs as a worker thread');
const decode = createDecoder((workerData as { decoder: DecoderOptions }).decoder);
const request = new LogsRequestBuilder();

port.on('message', (job: DecodeJob) => {
  let result: DecodeJobResult;
  let transfer: ArrayBuffer[] = [];
  try {
    const stats = { failedEvents: 0, sanitizedEvents: 0, timestampFallbacks: 0, refusedRecords: 0 };
    let metricPoints = 0;
    let spans = 0;
    for (let from = 0; from < job.ends.length; from += DECODE_SLICE_EVENTS) {
      const decoded = decode(unpackDecodeJob(job, from, from + DECODE_SLICE_EVENTS), job.context);
      request.add(decoded.records);
      metricPoints += decoded.metrics?.length ?? 0;
      spans += decoded.spans?.length ?? 0;
      addStats(stats, decoded.stats);
    }
    const records = request.records;
    // A buffer of its own (finish() allocates one of the request's exact size): moved, not copied.
    const bytes = request.finish();
    transfer = [bytes.buffer as ArrayBuffer];
    const { refusedRecords, ...counts } = stats;
    result = {
      id: job.id,
      bytes,
      records,
      metricPoints,
      spans,
      stats: refusedRecords > 0 ? { ...counts, refusedRecords } : counts,
    };
  } catch (error) {
    // The decoder never throws; the encoder might on a bug. The job fails and the partition decodes itself.
    request.reset();
    result = { id: job.id, error: error instanceof Error ? error.message : String(error) };
  }
  port.postMessage(result, transfer);
});

function addStats(sum: { -readonly [K in keyof DecodeStats]-?: number }, stats: DecodeStats): void {
  sum.failedEvents += stats.failedEvents;
  sum.sanitizedEvents += stats.sanitizedEvents;
  sum.timestampFallbacks += stats.timestampFallbacks;
  sum.refusedRecords += stats.refusedRecords ?? 0;
}
