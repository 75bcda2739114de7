/**
 * The Avro schema of Event Hubs Capture files, as Microsoft documents it ("Explore captured files":
 * `avro-tools getschema` on a capture file): record `EventData` in namespace `Microsoft.ServiceBus.Messaging`.
 * Property maps hold a union of long, double, string and bytes; the body is nullable bytes.
 */
import type { schema } from 'avsc';

const PROPERTY_VALUE = ['long', 'double', 'string', 'bytes'];

export const CAPTURE_AVRO_SCHEMA: schema.RecordType = {
  type: 'record',
  name: 'EventData',
  namespace: 'Microsoft.ServiceBus.Messaging',
  fields: [
    { name: 'SequenceNumber', type: 'long' },
    { name: 'Offset', type: 'string' },
    { name: 'EnqueuedTimeUtc', type: 'string' },
    { name: 'SystemProperties', type: { type: 'map', values: PROPERTY_VALUE } },
    { name: 'Properties', type: { type: 'map', values: PROPERTY_VALUE } },
    { name: 'Body', type: ['null', 'bytes'] },
  ],
};

/** A property value as a capture file can hold it (the union's branches). */
export type CapturePropertyValue = number | string | Buffer;

/** One captured event, unwrapped from Avro. */
export interface CaptureRecord {
  readonly sequenceNumber: number;
  readonly offset: string;
  readonly enqueuedTime: Date;
  readonly systemProperties: Readonly<Record<string, CapturePropertyValue>>;
  readonly properties: Readonly<Record<string, CapturePropertyValue>>;
  /** Null when the event had no body. */
  readonly body: Buffer | null;
}

/**
 * The service's two encodings (the management API's `encoding`): `Avro` writes blocks uncompressed
 * (Avro codec `null`), `AvroDeflate` compresses them with deflate. Readers take either: the codec is in
 * each file's header.
 */
export type CaptureEncoding = 'Avro' | 'AvroDeflate';
