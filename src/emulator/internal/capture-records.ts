/**
 * A stored event as Capture writes it: body bytes, application properties, and the annotations the
 * service keeps (partition key, message properties) in `SystemProperties`. Property values outside the
 * schema's union (booleans, dates, lists) are written as text, as the union has no branch for them.
 */
import rhea from 'rhea';
import type { CapturePropertyValue, CaptureRecord } from '../../capture/capture-schema.ts';
import type { StoredEvent } from './partition-log.ts';

const { message: amqpMessage } = rhea as any;

function captureValue(value: unknown): CapturePropertyValue | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'string' || Buffer.isBuffer(value)) return value;
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Date) return value.getTime();
  if (typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

function captureMap(source: Record<string, unknown> | undefined): Record<string, CapturePropertyValue> {
  const out: Record<string, CapturePropertyValue> = {};
  for (const [k, v] of Object.entries(source ?? {})) {
    const value = captureValue(v);
    if (value !== undefined) out[k] = value;
  }
  return out;
}

function bodyBytes(body: unknown): Buffer | null {
  if (body === null || body === undefined) return null;
  // rhea hands a data section (0x75) or an amqp-value section (0x77) back as { typecode, content }.
  if (typeof body === 'object' && 'typecode' in body && 'content' in body)
    return bodyBytes((body as { content: unknown }).content);
  if (Buffer.isBuffer(body)) return Buffer.from(body);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** The capture record of one stored event (the offset as clients see it). */
export function captureRecordOf(event: StoredEvent, offsetText: string): CaptureRecord {
  const decoded = amqpMessage.decode(event.bytes);
  const system: Record<string, unknown> = {};
  if (event.partitionKey !== undefined) system['x-opt-partition-key'] = event.partitionKey;
  if (decoded.message_id !== undefined) system['message-id'] = decoded.message_id;
  if (decoded.content_type !== undefined) system['content-type'] = decoded.content_type;
  if (decoded.correlation_id !== undefined) system['correlation-id'] = decoded.correlation_id;
  return {
    sequenceNumber: event.sequenceNumber,
    offset: offsetText,
    enqueuedTime: new Date(event.enqueuedTimeMs),
    systemProperties: captureMap(system),
    properties: captureMap(decoded.application_properties),
    body: bodyBytes(decoded.body),
  };
}
