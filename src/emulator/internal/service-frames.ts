/**
 * Frames as the service writes them, for every AMQP 1.0 client, not only rhea. Written for rhea 3.0.5
 * (lib/transport.js `encode`, lib/frames.js, lib/terminus.js, lib/types.js), applied to the emulator's own
 * server connections only (clients in the same process keep stock rhea).
 *
 * rhea omits a performative's trailing fields that were never set, and writes a link's Transfer the moment
 * it is sent while the Attach answering that link waits for the connection's next processing pass. Both
 * are legal for rhea's own clients and break others (measured 2026-11-27): the Azure SDK for Python reads
 * fields by index (`frame[13]` on Attach, `frame[11]` as a Transfer's payload, `error[2]` as the info),
 * and Qpid Proton closes the connection on a Transfer for a handle it was never told about
 * (`amqp:invalid-field: no such handle`, AMQP 1.0 part 2 §2.6.2: a handle is attached by the Attach).
 *
 * `serveLikeTheService(connection)` gives one connection's transports an `encode` that
 * 1. completes every performative before it is queued: all fields of its type written out, a field with a
 *    default in the AMQP 1.0 specification (part 2 §2.7, part 3 §3.4-3.5, part 5 §5.3.3) written as that
 *    value instead of null, nested composites (source, target, error, delivery states) completed too, and an
 *    Attach always carrying `properties` (a map, empty when nothing is set) and `max-message-size`;
 * 2. holds a Transfer or a link's Flow until the server's Attach for that handle has been queued, then
 *    queues them behind it in their original order.
 * Microsoft's AMQP stack (Microsoft.Azure.Amqp, which the service runs) encodes every field of a
 * performative; that is what the clients written against the service (Python, .NET, Java, Go, C) expect.
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const types = require('rhea/lib/types.js');

type Typed = { type?: { name?: string }; value?: unknown; descriptor?: { value?: unknown } };
type FieldDefault = (() => Typed) | null;

/**
 * A default value, made once and shared by every frame: rhea's encoder only reads a typed leaf value, so
 * sharing them saves an allocation per field on every Transfer (the emulator sends tens of thousands a second).
 */
const shared =
  (typed: Typed): FieldDefault =>
  () =>
    typed;
const uint = (v: number): FieldDefault => shared(types.wrap_uint(v));
const ushort = (v: number): FieldDefault => shared(types.wrap_ushort(v));
const ubyte = (v: number): FieldDefault => shared(types.wrap_ubyte(v));
const bool = (v: boolean): FieldDefault => shared(types.wrap_boolean(v));
const symbol = (v: string): FieldDefault => shared(types.wrap_symbol(v));
const NULL = types.Null();
const nulls = (n: number): FieldDefault[] => Array.from({ length: n }, () => null);

const UINT_MAX = 4_294_967_295;

/** Descriptor codes of the composites the server sends. */
const DESCRIPTOR = {
  open: 0x10,
  begin: 0x11,
  attach: 0x12,
  flow: 0x13,
  transfer: 0x14,
  disposition: 0x15,
  detach: 0x16,
  end: 0x17,
  close: 0x18,
  error: 0x1d,
  received: 0x23,
  accepted: 0x24,
  rejected: 0x25,
  released: 0x26,
  modified: 0x27,
  source: 0x28,
  target: 0x29,
  saslMechanisms: 0x40,
  saslOutcome: 0x44,
} as const;

/** Every field of each composite, in order, with the specification's default (null: no default). */
const FIELDS: Record<number, FieldDefault[]> = {
  // container-id, hostname, max-frame-size, channel-max, idle-time-out, outgoing-locales, incoming-locales,
  // offered-capabilities, desired-capabilities, properties
  [DESCRIPTOR.open]: [null, null, uint(UINT_MAX), ushort(65_535), ...nulls(6)],
  // remote-channel, next-outgoing-id, incoming-window, outgoing-window, handle-max, offered-capabilities,
  // desired-capabilities, properties
  [DESCRIPTOR.begin]: [...nulls(4), uint(UINT_MAX), ...nulls(3)],
  // name, handle, role, snd-settle-mode (mixed), rcv-settle-mode (first), source, target, unsettled,
  // incomplete-unsettled, initial-delivery-count, max-message-size, offered-capabilities, desired-capabilities,
  // properties
  [DESCRIPTOR.attach]: [...nulls(3), ubyte(2), ubyte(0), ...nulls(3), bool(false), ...nulls(5)],
  // next-incoming-id, incoming-window, next-outgoing-id, outgoing-window, handle, delivery-count, link-credit,
  // available, drain, echo, properties
  [DESCRIPTOR.flow]: [...nulls(8), bool(false), bool(false), null],
  // handle, delivery-id, delivery-tag, message-format, settled, more, rcv-settle-mode, state, resume, aborted,
  // batchable
  [DESCRIPTOR.transfer]: [...nulls(5), bool(false), null, null, bool(false), bool(false), bool(false)],
  // role, first, last, settled, state, batchable
  [DESCRIPTOR.disposition]: [null, null, null, bool(false), null, bool(false)],
  // handle, closed, error
  [DESCRIPTOR.detach]: [null, bool(false), null],
  [DESCRIPTOR.end]: [null],
  [DESCRIPTOR.close]: [null],
  // condition, description, info
  [DESCRIPTOR.error]: nulls(3),
  // section-number, section-offset
  [DESCRIPTOR.received]: nulls(2),
  [DESCRIPTOR.accepted]: [],
  [DESCRIPTOR.rejected]: [null],
  [DESCRIPTOR.released]: [],
  // delivery-failed, undeliverable-here, message-annotations
  [DESCRIPTOR.modified]: nulls(3),
  // address, durable (none), expiry-policy, timeout, dynamic, dynamic-node-properties, distribution-mode,
  // filter, default-outcome, outcomes, capabilities
  [DESCRIPTOR.source]: [null, uint(0), symbol('session-end'), uint(0), bool(false), ...nulls(6)],
  // address, durable, expiry-policy, timeout, dynamic, dynamic-node-properties, capabilities
  [DESCRIPTOR.target]: [null, uint(0), symbol('session-end'), uint(0), bool(false), null, null],
  [DESCRIPTOR.saslMechanisms]: [null],
  // code, additional-data
  [DESCRIPTOR.saslOutcome]: nulls(2),
};

/** Fields that hold a composite of their own (source and target of an Attach, errors, delivery states). */
const NESTED: Record<number, number[]> = {
  [DESCRIPTOR.attach]: [5, 6],
  [DESCRIPTOR.transfer]: [7],
  [DESCRIPTOR.disposition]: [4],
  [DESCRIPTOR.detach]: [2],
  [DESCRIPTOR.end]: [0],
  [DESCRIPTOR.close]: [0],
  [DESCRIPTOR.rejected]: [0],
};

const ATTACH_MAX_MESSAGE_SIZE = 10;
const ATTACH_PROPERTIES = 13;

function isNull(value: unknown): boolean {
  return value === undefined || value === null || (value as Typed).type?.name === 'Null';
}

function descriptorCode(descriptor: unknown): number | undefined {
  const raw = (descriptor as Typed | undefined)?.value ?? descriptor;
  const code =
    typeof raw === 'number'
      ? raw
      : typeof raw === 'bigint'
        ? Number(raw)
        : Number((raw as { toString(): string } | undefined)?.toString?.());
  return Number.isFinite(code) ? code : undefined;
}

/** Writes out every field of one composite's field list, in place; recurses into nested composites. */
function completeFields(code: number, fields: unknown[], options: CompletionOptions): void {
  const defaults = FIELDS[code];
  if (!defaults) return;
  for (let i = 0; i < defaults.length; i++) {
    if (!isNull(fields[i])) continue;
    const make = defaults[i];
    fields[i] = make ? make() : NULL;
  }
  if (code === DESCRIPTOR.attach) {
    if (isNull(fields[ATTACH_PROPERTIES])) fields[ATTACH_PROPERTIES] = types.wrap_symbolic_map({});
    if (isNull(fields[ATTACH_MAX_MESSAGE_SIZE]))
      fields[ATTACH_MAX_MESSAGE_SIZE] = types.wrap_ulong(options.maxMessageSizeBytes);
  }
  for (const index of NESTED[code] ?? []) completeDescribed(fields[index], options);
}

/** A described value as rhea holds it inside a performative: `{ descriptor, type: List…, value: [...] }`. */
function completeDescribed(value: unknown, options: CompletionOptions): void {
  const typed = value as Typed | undefined;
  if (!typed || isNull(typed) || typed.descriptor === undefined) return;
  const code = descriptorCode(typed.descriptor);
  if (code === undefined || !FIELDS[code]) return;
  if (!Array.isArray(typed.value)) return;
  if (typed.value.length > 0) {
    completeFields(code, typed.value, options);
    return;
  }
  // An empty composite is rhea's List0, whose `value` is ONE array shared by every empty list rhea creates
  // or decodes in the process: complete a copy, and give this value a List32 of its own.
  const list: unknown[] = [];
  completeFields(code, list, options);
  if (list.length === 0) return;
  const replacement = types.wrap_list(list);
  (typed as { type: unknown }).type = replacement.type;
  (typed as { value: unknown }).value = replacement.value;
}

export interface CompletionOptions {
  /** Written as an Attach's `max-message-size` when the link set none. */
  maxMessageSizeBytes: number;
}

/** A performative as rhea queues it: a composite whose `value` is its field list. */
interface RheaPerformative {
  value: unknown[];
  constructor: { descriptor?: { numeric?: number } };
}

/** Completes one performative in place (see the file comment). Returns its descriptor code. */
export function completePerformative(performative: unknown, options: CompletionOptions): number | undefined {
  const p = performative as RheaPerformative | undefined;
  const code = p?.constructor?.descriptor?.numeric;
  if (code === undefined || !Array.isArray(p!.value)) return undefined;
  completeFields(code, p!.value, options);
  return code;
}

interface RheaFrame {
  type: number;
  channel: number;
  performative?: RheaPerformative;
}

interface RheaTransport {
  pending: RheaFrame[];
  encode(frame: RheaFrame): void;
}

const FIELD_HANDLE = { attach: 1, flow: 4, transfer: 0, detach: 0 } as const;

function handleOf(performative: RheaPerformative, index: number): number | undefined {
  const v = performative.value[index] as Typed | undefined;
  return isNull(v) ? undefined : Number(v!.value);
}

/**
 * Keeps each link's Transfers and Flows behind the server's Attach for that link (AMQP 1.0 part 2 §2.6.2).
 * Handles are the server's own (local) ones, per channel; a Detach frees the handle, an End the channel.
 */
class LinkOrder {
  private readonly attached = new Map<number, Set<number>>();
  private readonly held = new Map<string, RheaFrame[]>();

  /** The frames to queue now for `frame`, in order (none while it waits for its link's Attach). */
  admit(frame: RheaFrame, code: number | undefined): RheaFrame[] {
    const p = frame.performative;
    if (!p || code === undefined) return [frame];
    if (code === DESCRIPTOR.attach) {
      const handle = handleOf(p, FIELD_HANDLE.attach);
      if (handle === undefined) return [frame];
      this.channel(frame.channel).add(handle);
      const key = `${frame.channel}/${handle}`;
      const waiting = this.held.get(key) ?? [];
      this.held.delete(key);
      return [frame, ...waiting];
    }
    if (code === DESCRIPTOR.transfer || code === DESCRIPTOR.flow) {
      const handle = handleOf(p, code === DESCRIPTOR.transfer ? FIELD_HANDLE.transfer : FIELD_HANDLE.flow);
      if (handle === undefined || this.channel(frame.channel).has(handle)) return [frame];
      const key = `${frame.channel}/${handle}`;
      const waiting = this.held.get(key);
      if (waiting) waiting.push(frame);
      else this.held.set(key, [frame]);
      return [];
    }
    if (code === DESCRIPTOR.detach) {
      const handle = handleOf(p, FIELD_HANDLE.detach);
      if (handle !== undefined) {
        this.channel(frame.channel).delete(handle);
        this.held.delete(`${frame.channel}/${handle}`);
      }
      return [frame];
    }
    if (code === DESCRIPTOR.end) {
      this.attached.delete(frame.channel);
      for (const key of this.held.keys()) if (key.startsWith(`${frame.channel}/`)) this.held.delete(key);
    }
    return [frame];
  }

  private channel(channel: number): Set<number> {
    let handles = this.attached.get(channel);
    if (!handles) this.attached.set(channel, (handles = new Set()));
    return handles;
  }
}

const installed = new WeakSet<object>();

/** Gives one transport the completing, ordering `encode`; completes frames it already queued. */
function serveTransport(
  transport: RheaTransport | undefined,
  options: CompletionOptions,
  order: LinkOrder | undefined,
): boolean {
  if (!transport || !Array.isArray(transport.pending) || typeof transport.encode !== 'function') return false;
  if (installed.has(transport)) return true;
  installed.add(transport);
  for (const frame of transport.pending) completePerformative(frame.performative, options);
  transport.encode = function encode(this: RheaTransport, frame: RheaFrame): void {
    const code = completePerformative(frame.performative, options);
    if (!order) {
      this.pending.push(frame);
      return;
    }
    for (const ready of order.admit(frame, code)) this.pending.push(ready);
  };
  return true;
}

/**
 * Applies the service's framing to one accepted server connection: call it right after rhea's
 * `connection.accept(socket)` (nothing has been written then; the SASL mechanisms frame is still queued).
 * Returns whether the AMQP transport was served (false when rhea's internals do not have the expected shape).
 */
export function serveLikeTheService(connection: any, options: CompletionOptions): boolean {
  const served = serveTransport(connection?.amqp_transport, options, new LinkOrder());
  // The SASL layer: rhea's server transport, alone or inside the "selective" one that also takes a bare
  // AMQP header.
  const sasl = connection?.sasl_transport;
  const saslServer = sasl?.transports?.[3] ?? sasl;
  serveTransport(saslServer?.transport, options, undefined);
  return served;
}
