/**
 * What a server frame must look like, from the AMQP 1.0 specification's field tables (part 2, 2.7
 * performatives and 2.8 definitions; part 3, 3.4–3.5 delivery states, source and target; part 5, 5.3.3
 * SASL) plus the rule the Azure service follows and strict AMQP stacks (pyamqp, Qpid Proton,
 * azure-uamqp-c) rely on: every field written, trailing ones too, and a field with a default written
 * out with a value instead of null.
 *
 * Each finding says which of the two it breaks: `spec` (AMQP 1.0 itself: wrong type, a mandatory field
 * missing) or `complete` (the Azure service's all-fields form).
 */
import { descriptorName, type AmqpFrame, type AmqpValue } from './amqp-frame-decoder.ts';

/** Field types as the spec names them; `symbols` is `symbol multiple="true"`, `fields` a symbol-keyed map. */
type FieldType =
  | 'string'
  | 'uint'
  | 'ushort'
  | 'ubyte'
  | 'ulong'
  | 'boolean'
  | 'binary'
  | 'symbol'
  | 'symbols'
  | 'fields'
  | 'map'
  | 'source'
  | 'target'
  | 'error'
  | 'delivery-state'
  | 'outcome'
  | 'any';

interface FieldSpec {
  name: string;
  type: FieldType;
  mandatory?: boolean;
  /** The spec's default: the Azure service writes it out instead of null. */
  default?: string;
}

const f = (name: string, type: FieldType, extra: Omit<FieldSpec, 'name' | 'type'> = {}): FieldSpec => ({
  name,
  type,
  ...extra,
});

export const COMPOSITE_FIELDS: Record<string, FieldSpec[]> = {
  open: [
    f('container-id', 'string', { mandatory: true }),
    f('hostname', 'string'),
    f('max-frame-size', 'uint', { default: '4294967295' }),
    f('channel-max', 'ushort', { default: '65535' }),
    f('idle-time-out', 'uint'),
    f('outgoing-locales', 'symbols'),
    f('incoming-locales', 'symbols'),
    f('offered-capabilities', 'symbols'),
    f('desired-capabilities', 'symbols'),
    f('properties', 'fields'),
  ],
  begin: [
    f('remote-channel', 'ushort'),
    f('next-outgoing-id', 'uint', { mandatory: true }),
    f('incoming-window', 'uint', { mandatory: true }),
    f('outgoing-window', 'uint', { mandatory: true }),
    f('handle-max', 'uint', { default: '4294967295' }),
    f('offered-capabilities', 'symbols'),
    f('desired-capabilities', 'symbols'),
    f('properties', 'fields'),
  ],
  attach: [
    f('name', 'string', { mandatory: true }),
    f('handle', 'uint', { mandatory: true }),
    f('role', 'boolean', { mandatory: true }),
    f('snd-settle-mode', 'ubyte', { default: '2 (mixed)' }),
    f('rcv-settle-mode', 'ubyte', { default: '0 (first)' }),
    f('source', 'source'),
    f('target', 'target'),
    f('unsettled', 'map'),
    f('incomplete-unsettled', 'boolean', { default: 'false' }),
    f('initial-delivery-count', 'uint'),
    f('max-message-size', 'ulong'),
    f('offered-capabilities', 'symbols'),
    f('desired-capabilities', 'symbols'),
    f('properties', 'fields'),
  ],
  flow: [
    f('next-incoming-id', 'uint'),
    f('incoming-window', 'uint', { mandatory: true }),
    f('next-outgoing-id', 'uint', { mandatory: true }),
    f('outgoing-window', 'uint', { mandatory: true }),
    f('handle', 'uint'),
    f('delivery-count', 'uint'),
    f('link-credit', 'uint'),
    f('available', 'uint'),
    f('drain', 'boolean', { default: 'false' }),
    f('echo', 'boolean', { default: 'false' }),
    f('properties', 'fields'),
  ],
  transfer: [
    f('handle', 'uint', { mandatory: true }),
    f('delivery-id', 'uint'),
    f('delivery-tag', 'binary'),
    f('message-format', 'uint'),
    f('settled', 'boolean'),
    f('more', 'boolean', { default: 'false' }),
    f('rcv-settle-mode', 'ubyte'),
    f('state', 'delivery-state'),
    f('resume', 'boolean', { default: 'false' }),
    f('aborted', 'boolean', { default: 'false' }),
    f('batchable', 'boolean', { default: 'false' }),
  ],
  disposition: [
    f('role', 'boolean', { mandatory: true }),
    f('first', 'uint', { mandatory: true }),
    f('last', 'uint'),
    f('settled', 'boolean', { default: 'false' }),
    f('state', 'delivery-state'),
    f('batchable', 'boolean', { default: 'false' }),
  ],
  detach: [f('handle', 'uint', { mandatory: true }), f('closed', 'boolean', { default: 'false' }), f('error', 'error')],
  end: [f('error', 'error')],
  close: [f('error', 'error')],
  'sasl-mechanisms': [f('sasl-server-mechanisms', 'symbols', { mandatory: true })],
  'sasl-outcome': [f('code', 'ubyte', { mandatory: true }), f('additional-data', 'binary')],
  error: [f('condition', 'symbol', { mandatory: true }), f('description', 'string'), f('info', 'fields')],
  received: [f('section-number', 'uint', { mandatory: true }), f('section-offset', 'ulong', { mandatory: true })],
  accepted: [],
  rejected: [f('error', 'error')],
  released: [],
  modified: [f('delivery-failed', 'boolean'), f('undeliverable-here', 'boolean'), f('message-annotations', 'fields')],
  source: [
    f('address', 'any'),
    f('durable', 'uint', { default: '0 (none)' }),
    f('expiry-policy', 'symbol', { default: 'session-end' }),
    f('timeout', 'uint', { default: '0' }),
    f('dynamic', 'boolean', { default: 'false' }),
    f('dynamic-node-properties', 'fields'),
    f('distribution-mode', 'symbol'),
    f('filter', 'map'),
    f('default-outcome', 'outcome'),
    f('outcomes', 'symbols'),
    f('capabilities', 'symbols'),
  ],
  target: [
    f('address', 'any'),
    f('durable', 'uint', { default: '0 (none)' }),
    f('expiry-policy', 'symbol', { default: 'session-end' }),
    f('timeout', 'uint', { default: '0' }),
    f('dynamic', 'boolean', { default: 'false' }),
    f('dynamic-node-properties', 'fields'),
    f('capabilities', 'symbols'),
  ],
};

/** Described types below the performatives (part 1, 1.4 error; part 3, 3.4 delivery states, 3.5 terminus). */
const DESCRIBED: Record<number, string> = {
  0x1d: 'error',
  0x23: 'received',
  0x24: 'accepted',
  0x25: 'rejected',
  0x26: 'released',
  0x27: 'modified',
  0x28: 'source',
  0x29: 'target',
};

export function describedName(v: AmqpValue): string | undefined {
  if (v.type !== 'described') return undefined;
  const d = v.descriptor;
  if (d.type === 'ulong') return d.value >> 32n === 0n ? (DESCRIBED[Number(d.value)] ?? descriptorName(d)) : undefined;
  if (d.type === 'symbol') return /^amqp:([a-z-]+):list$/.exec(d.value)?.[1];
  return undefined;
}

/** `order`: a frame out of its session's or link's lifetime (see amqp-link-order.ts). */
export type FindingKind = 'spec' | 'complete' | 'order';

export interface Finding {
  kind: FindingKind;
  /** `attach.source.durable`: the composite path of the field. */
  path: string;
  /** What is wrong, the same words for every frame with the same fault (so findings can be counted). */
  message: string;
  /** Which frame, and the values that differ from frame to frame. */
  where?: string;
}

/** A field of a frame by its spec name; undefined when the list stops before it. */
export function field(frame: AmqpFrame, name: string): AmqpValue | undefined {
  const index = (COMPOSITE_FIELDS[frame.performative ?? ''] ?? []).findIndex((s) => s.name === name);
  if (index < 0) throw new Error(`${frame.performative} has no field ${name}`);
  return frame.fields[index];
}

/** A field of a described composite (source, target, error) by name. */
export function compositeField(value: AmqpValue | undefined, composite: string, name: string): AmqpValue | undefined {
  if (value?.type !== 'described' || value.value.type !== 'list') return undefined;
  const index = (COMPOSITE_FIELDS[composite] ?? []).findIndex((s) => s.name === name);
  if (index < 0) throw new Error(`${composite} has no field ${name}`);
  return value.value.value[index];
}

const isNull = (v: AmqpValue | undefined): boolean => v === undefined || v.type === 'null';

function typeFinding(v: AmqpValue, spec: FieldSpec): string | undefined {
  const isSymbolArray = v.type === 'array' && v.value.every((x) => x.type === 'symbol');
  const isFieldsMap = v.type === 'map' && v.value.every(([k]) => k.type === 'symbol');
  const described = describedName(v);
  const ok: Record<FieldType, boolean> = {
    string: v.type === 'string',
    uint: v.type === 'uint',
    ushort: v.type === 'ushort',
    ubyte: v.type === 'ubyte',
    ulong: v.type === 'ulong',
    boolean: v.type === 'boolean',
    binary: v.type === 'binary',
    symbol: v.type === 'symbol',
    symbols: v.type === 'symbol' || isSymbolArray,
    fields: isFieldsMap,
    map: v.type === 'map',
    source: described === 'source',
    target: described === 'target',
    error: described === 'error',
    'delivery-state': ['received', 'accepted', 'rejected', 'released', 'modified'].includes(described ?? ''),
    outcome: ['accepted', 'rejected', 'released', 'modified'].includes(described ?? ''),
    any: true,
  };
  if (ok[spec.type]) return undefined;
  return `is a ${described ?? v.type}, the spec says ${spec.type}`;
}

/** Checks one composite's fields (and, recursively, its source, target, error and delivery state). */
function checkComposite(name: string, fields: AmqpValue[], path: string, findings: Finding[]): void {
  const specs = COMPOSITE_FIELDS[name];
  if (!specs) return;
  if (fields.length !== specs.length) {
    const missing = specs.slice(fields.length).map((s) => s.name);
    findings.push({
      kind: fields.length > specs.length ? 'spec' : 'complete',
      path,
      message:
        `${path} has ${fields.length} fields, not ` +
        `${specs.length}${missing.length ? ` (missing ${missing.join(', ')})` : ''}`,
    });
  }
  specs.forEach((spec, i) => {
    const v = fields[i];
    const at = `${path}.${spec.name}`;
    if (isNull(v)) {
      if (spec.mandatory)
        findings.push({
          kind: 'spec',
          path: at,
          message: `${at} is mandatory but ${v === undefined ? 'omitted' : 'null'}`,
        });
      else if (spec.default !== undefined) {
        findings.push({
          kind: 'complete',
          path: at,
          message: `${at} is ${v === undefined ? 'omitted' : 'null'}, not its default ${spec.default}`,
        });
      }
      return;
    }
    const wrong = typeFinding(v!, spec);
    if (wrong) findings.push({ kind: 'spec', path: at, message: `${at} ${wrong}` });
    const nested = describedName(v!);
    if (nested && v!.type === 'described' && v!.value.type === 'list')
      checkComposite(nested, v!.value.value, at, findings);
  });
}

/** Every finding about one frame's fields (empty frames and protocol headers have none). */
export function checkFrameFields(frame: AmqpFrame): Finding[] {
  const findings: Finding[] = [];
  if (frame.performative !== undefined) checkComposite(frame.performative, frame.fields, frame.performative, findings);
  return findings;
}

/** Most distinct findings listed in an assertion message. */
const SUMMARY_LINES = 40;

/** Distinct messages with their counts and first place, most frequent first: a readable assertion message. */
export function summarize(findings: readonly Finding[]): string {
  const groups = new Map<string, { count: number; first?: string }>();
  for (const f of findings) {
    const group = groups.get(f.message) ?? { count: 0, ...(f.where ? { first: f.where } : {}) };
    group.count++;
    groups.set(f.message, group);
  }
  const lines = [...groups]
    .sort((a, b) => b[1].count - a[1].count)
    .map(([m, g]) => `${g.count}× ${m}${g.first ? ` (first: ${g.first})` : ''}`);
  return lines.length > SUMMARY_LINES
    ? [...lines.slice(0, SUMMARY_LINES), `… and ${lines.length - SUMMARY_LINES} more`].join('\n')
    : lines.join('\n');
}
