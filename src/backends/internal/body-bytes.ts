/**
 * The bytes of an event body. Event Hubs producers send one AMQP data section; rhea hands it over as a
 * Buffer (or a `Section` with `typecode` 0x75 and `content`). A body sent as an AMQP value or sequence
 * (some non-SDK producers do) is not bytes: it becomes UTF-8 text (strings) or JSON, so nothing is lost.
 */
export const DATA_SECTION_TYPECODE = 0x75;

const encoder = new TextEncoder();

export function toBodyBytes(body: unknown): Uint8Array {
  if (body instanceof Uint8Array) return body;
  if (body === undefined || body === null) return new Uint8Array(0);
  if (typeof body === 'string') return encoder.encode(body);
  if (typeof body === 'object' && 'typecode' in body && 'content' in body) {
    const section = body as { typecode: unknown; content: unknown };
    if (section.typecode === DATA_SECTION_TYPECODE) {
      if (section.content instanceof Uint8Array) return section.content;
      // Several data sections: their concatenation is the body (AMQP 1.0 §3.2.6).
      if (Array.isArray(section.content)) return Buffer.concat(section.content.map((c) => toBodyBytes(c)));
    }
    return toBodyBytes(section.content);
  }
  if (body instanceof ArrayBuffer) return new Uint8Array(body);
  return encoder.encode(JSON.stringify(body, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v)));
}

/**
 * The body's bytes in memory of their own when they are a view into a larger buffer. rhea hands a data
 * section over as a slice of the socket read it arrived in (up to 64 KiB, holding events of every partition
 * on the connection): one event kept alive kept that whole read alive, so a receiver of many partitions held
 * several times its events' bytes until the slowest partition caught up. A copy costs a small memcpy (Node
 * allocates bodies under 4 KiB from its 8 KiB pool) and lets each read go as soon as it is decoded. A view
 * into a buffer no larger than that pool's slab is kept as it is: it is such a copy already (the polling
 * backend's bodies are copied when decoded), and keeping one slab alive is the price of the pool.
 */
export function ownBodyBytes(bytes: Uint8Array): Uint8Array {
  const backing = bytes.buffer.byteLength;
  return bytes.byteLength < backing && backing > Buffer.poolSize ? Buffer.from(bytes) : bytes;
}
