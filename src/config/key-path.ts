import { isPlainObject, mergeConfig } from './merge-config.ts';

/**
 * The collector's key delimiter is `::` (`receivers::azure_event_hub::group`), in `--set` and in the keys
 * of any config document (`yaml:exporters::debug::verbosity: basic`). `--set` here also keeps the older
 * `.` form, used when the key has no `::`. Component ids keep their `/` either way.
 */
export const KEY_DELIMITER = '::';

/** Splits a `--set` key: on `::` when it has one, else on `.`. */
export function splitKeyPath(key: string): string[] {
  return key.includes(KEY_DELIMITER) ? key.split(KEY_DELIMITER) : key.split('.');
}

/**
 * Returns a copy of `doc` where every map key written with `::` became nested maps, merged with what the
 * document says beside it: `{ 'a::b': 1, a: { c: 2 } }` is `{ a: { b: 1, c: 2 } }`.
 */
export function expandDelimitedKeys(doc: unknown): unknown {
  if (Array.isArray(doc)) return doc.map(expandDelimitedKeys);
  if (!isPlainObject(doc)) return doc;
  let out: Record<string, unknown> = {};
  for (const [key, raw] of Object.entries(doc)) {
    const value = expandDelimitedKeys(raw);
    if (!key.includes(KEY_DELIMITER)) {
      out = mergeConfig(out, { [key]: value }) as Record<string, unknown>;
      continue;
    }
    const nested = key.split(KEY_DELIMITER).reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), value);
    out = mergeConfig(out, nested) as Record<string, unknown>;
  }
  return out;
}
