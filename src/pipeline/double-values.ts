/**
 * Numbers that are doubles on the wire even when whole. JavaScript has one number type, and the encoders write a
 * whole number as an OTLP int_value; the Go collector writes every number its JSON decoding produced as a
 * float64 as a double_value (inside `properties` and `identity`, struct fields typed float64). A decoder that
 * wants Go's types marks the map, array or attributes object that holds such numbers; the encoders of this
 * package (OTLP protobuf and JSON, the debug exporter) read the mark. Other code sees plain objects: the mark is a
 * non-enumerable symbol-keyed property, which Object.keys, for-in, JSON.stringify, deep equality and spreads skip
 * (a copy of a marked object is unmarked: its whole numbers are ints again, the value is the same).
 */

/** The mark: `true` (every number inside, at any depth, is a double) or the set of keys whose numbers are. */
export const DOUBLES: unique symbol = Symbol.for('otelcol-azure-eventhub.doubles');

type Marked = { [DOUBLES]?: true | Set<string> };

/** Marks every number inside `container` (a map or array, at any depth) as a double. Returns the container. */
export function markAllDoubles<T extends object>(container: T): T {
  if ((container as Marked)[DOUBLES] !== true) mark(container, true);
  return container;
}

function mark(container: object, value: true | Set<string>): void {
  Object.defineProperty(container, DOUBLES, { value, writable: true, configurable: true, enumerable: false });
}

/**
 * Marks the numbers under `key` of `map` (the value itself or, for a map or array, everything inside) as doubles.
 * Cheap per record: the key sets are shared, immutable, one per combination seen (like V8's hidden classes), so a
 * record costs one property store, not a set; and the mark sits on the attributes object the decoder made, never
 * on a parsed JSON object (a new property on those measured 4 % of decode time).
 */
export function markDoubleKey(map: object, key: string): void {
  const marked = map as Marked;
  const current = marked[DOUBLES];
  if (current === true || current?.has(key)) return;
  const next = withKey(current, key);
  if (current === undefined) mark(map, next);
  else marked[DOUBLES] = next;
}

const MAX_SHARED_SETS = 1_000;
let sharedSets = 0;
const fromNone = new Map<string, Set<string>>();
const transitions = new WeakMap<Set<string>, Map<string, Set<string>>>();

/** The shared set of `current`'s keys plus `key` (a fresh one once MAX_SHARED_SETS combinations exist). */
function withKey(current: Set<string> | undefined, key: string): Set<string> {
  let next = current === undefined ? fromNone : transitions.get(current);
  const found = next?.get(key);
  if (found !== undefined) return found;
  const set = new Set(current);
  set.add(key);
  if (sharedSets >= MAX_SHARED_SETS) return set;
  sharedSets++;
  if (next === undefined) transitions.set(current!, (next = new Map()));
  next.set(key, set);
  return set;
}

/**
 * Whether the value under `key` of `map` is to be written with doubles: the map is marked whole, or for this key.
 * `inherited` is the answer for the map itself (a map inside a marked map).
 */
export function doublesUnder(map: object, key: string, inherited: boolean): boolean {
  if (inherited) return true;
  const mark = (map as Marked)[DOUBLES];
  return mark === true || (mark !== undefined && mark.has(key));
}

/**
 * The mark of a log record's attributes: the record's own `attributeDoubles` field (set by the decoders on their
 * hot path, no property added to the attributes object), else the attributes object's mark.
 */
export function recordAttributeDoubles(record: object): Set<string> | undefined {
  return (record as { attributeDoubles?: Set<string> }).attributeDoubles;
}

/**
 * The mark of a log record's map body: the record's own `bodyDoubles` field (set by a decoder that builds the body,
 * which spares a property definition on each body), else the body's mark.
 */
export function recordBodyDoubles(record: object): Set<string> | undefined {
  return (record as { bodyDoubles?: Set<string> }).bodyDoubles;
}

/** The shared key set of `current` plus `key` (see markDoubleKey): for a decoder building a record's mark itself. */
export function withDoubleKey(current: Set<string> | undefined, key: string): Set<string> {
  return current?.has(key) ? current : withKey(current, key);
}

/** Whether an array's items are doubles: the array is marked, or it sits where doubles are asked for. */
export function doublesIn(container: object, inherited: boolean): boolean {
  return inherited || (container as Marked)[DOUBLES] === true;
}
