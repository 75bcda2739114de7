/**
 * What a producer's transfer holds: a batch envelope (message format 0x80013700, the SDK's only form:
 * one data section per event) or a plain message (one event, e.g. from a bare AMQP client). Oversize
 * transfers are refused with amqp:link:message-size-exceeded and the service's text, which names the
 * transfer's delivery-id and size (the Azure SDK for JS's sender tests match
 * /The received message \(delivery-id:(\d+), size:(\d+) bytes\) exceeds the limit \((\d+) bytes\)/).
 */
import rhea from 'rhea';
import { DECODE_ERROR, MESSAGE_SIZE_EXCEEDED } from './conditions.ts';
import { splitBatchEnvelope } from './event-message.ts';
import { rawTransferOf } from './raw-transfers.ts';

/** Largest transfer accepted, as the service's attach reply announces (EVENT-HUBS-PROTOCOL.md). */
export const MAX_MESSAGE_SIZE_BYTES = 1_048_576;
const BATCH_MESSAGE_FORMAT = 0x80013700;

const { message: amqpMessage } = rhea as any;

export type TransferContents =
  | { ok: true; events: Buffer[]; partitionKey?: string; producerAnnotations?: Record<string, unknown> }
  | { ok: false; error: { condition: string; description: string } };

/** The service's refusal of an oversize transfer, e.g. for delivery-id 0 of 289349 bytes. */
export function oversizeDescription(deliveryId: number, size: number): string {
  return (
    `The received message (delivery-id:${deliveryId}, size:${size} bytes) exceeds the limit ` +
    `(${MAX_MESSAGE_SIZE_BYTES} bytes) currently allowed on the link.`
  );
}

function oversize(deliveryId: number | undefined, size: number): TransferContents {
  return {
    ok: false,
    error: { condition: MESSAGE_SIZE_EXCEEDED, description: oversizeDescription(deliveryId ?? 0, size) },
  };
}

/**
 * Reads a rhea message context (`ctx.message` is raw bytes when the format is not 0; `ctx.delivery.id` is
 * the transfer's delivery-id).
 */
export function readTransfer(ctx: {
  message: unknown;
  format?: number;
  delivery?: { id?: number };
  receiver?: unknown;
}): TransferContents {
  const deliveryId = ctx.delivery?.id;
  try {
    if (ctx.format === BATCH_MESSAGE_FORMAT || Buffer.isBuffer(ctx.message)) {
      const envelope = ctx.message as Buffer;
      if (envelope.length > MAX_MESSAGE_SIZE_BYTES) return oversize(deliveryId, envelope.length);
      return { ok: true, ...splitBatchEnvelope(envelope) };
    }
    // The client's own bytes when the session kept them (raw-transfers.ts), else rhea's re-encoding.
    const encoded: Buffer = rawTransferOf(ctx.receiver) ?? amqpMessage.encode(ctx.message);
    if (encoded.length > MAX_MESSAGE_SIZE_BYTES) return oversize(deliveryId, encoded.length);
    const annotations = (ctx.message as any)?.message_annotations ?? {};
    const key = annotations['x-opt-partition-key'];
    const producer = Object.entries(annotations).filter(([k]) => k.startsWith('com.microsoft:producer-'));
    return {
      ok: true,
      events: [encoded],
      ...(key === undefined || key === null ? {} : { partitionKey: String(key) }),
      ...(producer.length > 0 ? { producerAnnotations: Object.fromEntries(producer) } : {}),
    };
  } catch (err) {
    return {
      ok: false,
      error: { condition: DECODE_ERROR, description: `The message could not be decoded: ${(err as Error).message}` },
    };
  }
}
