/**
 * Reads and writes Capture's Avro object container files with avsc: the schema of capture-schema.ts,
 * codec `null` (encoding `Avro`) or `deflate` (`AvroDeflate`). Property unions are written and read
 * wrapped (`{ long: 1 }`), so numbers keep their branch (long or double) both ways.
 */
import avro from 'avsc';
import {
  CAPTURE_AVRO_SCHEMA,
  type CaptureEncoding,
  type CapturePropertyValue,
  type CaptureRecord,
} from './capture-schema.ts';

const WRAPPED = { wrapUnions: true } as const;
const captureType = avro.Type.forSchema(CAPTURE_AVRO_SCHEMA, WRAPPED);

type Wrapped = { long: number } | { double: number } | { string: string } | { bytes: Buffer };

function wrap(value: CapturePropertyValue): Wrapped {
  if (typeof value === 'string') return { string: value };
  if (Buffer.isBuffer(value)) return { bytes: value };
  return Number.isSafeInteger(value) ? { long: value } : { double: value };
}

function unwrap(value: Wrapped | null): CapturePropertyValue | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  if ('long' in value) return value.long;
  if ('double' in value) return value.double;
  if ('string' in value) return value.string;
  if ('bytes' in value) return value.bytes;
  return undefined;
}

function mapOf<T, U>(record: Readonly<Record<string, T>>, f: (v: T) => U | undefined): Record<string, U> {
  const out: Record<string, U> = {};
  for (const [k, v] of Object.entries(record)) {
    const mapped = f(v);
    if (mapped !== undefined) out[k] = mapped;
  }
  return out;
}

/**
 * `EnqueuedTimeUtc` as written: ISO 8601 UTC with seven fractional digits (.NET's round-trip form, as in
 * Microsoft's decoded capture samples). Parsing also takes any Date-parsable text (e.g. `9/26/2018 3:03:59 PM`).
 */
export function formatEnqueuedTimeUtc(time: Date): string {
  return time.toISOString().replace(/\.(\d{3})Z$/, '.$10000Z');
}

export function parseEnqueuedTimeUtc(text: string): Date {
  const iso = /^(.*T\d{2}:\d{2}:\d{2})(?:\.(\d+))?Z$/.exec(text);
  const parsed = iso ? new Date(`${iso[1]}.${(iso[2] ?? '0').padEnd(3, '0').slice(0, 3)}Z`) : new Date(`${text} UTC`);
  return Number.isNaN(parsed.getTime()) ? new Date(text) : parsed;
}

/** One Avro container file of these records (an empty file holds the header alone). */
export async function encodeCaptureFile(
  records: readonly CaptureRecord[],
  encoding: CaptureEncoding = 'Avro',
): Promise<Buffer> {
  const encoder = new avro.streams.BlockEncoder(captureType, {
    codec: encoding === 'AvroDeflate' ? 'deflate' : 'null',
    // An empty window's file is a header alone (avsc's default writes nothing until the first record).
    writeHeader: 'always',
  } as ConstructorParameters<typeof avro.streams.BlockEncoder>[1]);
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    encoder.on('data', (chunk: Buffer) => chunks.push(chunk));
    encoder.on('end', () => resolve(Buffer.concat(chunks)));
    encoder.on('error', reject);
  });
  for (const r of records) {
    encoder.write({
      SequenceNumber: r.sequenceNumber,
      Offset: r.offset,
      EnqueuedTimeUtc: formatEnqueuedTimeUtc(r.enqueuedTime),
      SystemProperties: mapOf(r.systemProperties, wrap),
      Properties: mapOf(r.properties, wrap),
      Body: r.body === null ? null : { bytes: r.body },
    });
  }
  encoder.end();
  return done;
}

/** Thrown for a blob that is not a readable capture file (bad header, codec, or a record off the schema). */
export class CaptureFileError extends Error {
  override name = 'CaptureFileError';
}

/** The records of one capture file, in file order. */
export async function decodeCaptureFile(bytes: Buffer): Promise<CaptureRecord[]> {
  // Decoded with the file's own schema (the writer's), unions wrapped as above.
  const decoder = new avro.streams.BlockDecoder({
    parseHook: (schema) => avro.Type.forSchema(schema as avro.Schema, { ...WRAPPED, registry: {} }),
  });
  const records: CaptureRecord[] = [];
  const done = new Promise<void>((resolve, reject) => {
    decoder.on('data', (raw: Record<string, any>) => {
      try {
        records.push(fromAvro(raw));
      } catch (error) {
        decoder.destroy(error as Error);
      }
    });
    decoder.on('end', resolve);
    decoder.on('error', (error: Error) => reject(new CaptureFileError(`not a capture file: ${error.message}`)));
  });
  decoder.end(bytes);
  await done;
  return records;
}

function fromAvro(raw: Record<string, any>): CaptureRecord {
  const seq = raw.SequenceNumber;
  const sequenceNumber = typeof seq === 'number' ? seq : Number(seq);
  if (!Number.isSafeInteger(sequenceNumber)) throw new CaptureFileError('record without a SequenceNumber');
  const body = raw.Body === null || raw.Body === undefined ? null : (raw.Body.bytes ?? raw.Body);
  return {
    sequenceNumber,
    offset: String(raw.Offset),
    enqueuedTime: parseEnqueuedTimeUtc(String(raw.EnqueuedTimeUtc)),
    systemProperties: mapOf((raw.SystemProperties ?? {}) as Record<string, Wrapped | null>, unwrap),
    properties: mapOf((raw.Properties ?? {}) as Record<string, Wrapped | null>, unwrap),
    body: Buffer.isBuffer(body) ? body : null,
  };
}
