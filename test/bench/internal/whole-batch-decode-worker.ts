/**
 * A decode thread as it was before slicing (stages.bench.ts compares it with the shipped one): the whole job
 * decoded, then its records encoded. Answers as decode-worker.ts does.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { createDecoder } from '../../../src/decode/create-decoder.ts';
import type { DecoderOptions } from '../../../src/decode/decoder.ts';
import { encodeLogsRequest } from '../../../src/exporters/otlp-logs-encoding.ts';
import { unpackDecodeJob, type DecodeJob } from '../../../src/receiver/internal/decode-job.ts';

const decode = createDecoder((workerData as { decoder: DecoderOptions }).decoder);
parentPort!.on('message', (job: DecodeJob) => {
  const decoded = decode(unpackDecodeJob(job), job.context);
  const bytes = encodeLogsRequest(decoded.records);
  const result = {
    id: job.id,
    bytes,
    records: decoded.records.length,
    metricPoints: 0,
    spans: 0,
    stats: decoded.stats,
  };
  parentPort!.postMessage(result, [bytes.buffer as ArrayBuffer]);
});
