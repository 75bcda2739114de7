import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { receiverConfigSchema } from '../../../src/config/receiver-config.ts';
import { durationMs } from '../../../src/component/duration.ts';

const DOC = readFileSync(join(import.meta.dirname, '../../../docs/configuration.md'), 'utf8');

/** The receiver section of docs/configuration.md: its table rows `| \`key\` | default | ... |`. */
function documentedDefaults(): Map<string, string> {
  const start = DOC.indexOf('## Receiver `azure_event_hub`');
  const end = DOC.indexOf('\n## ', start + 1);
  const rows = new Map<string, string>();
  for (const m of DOC.slice(start, end).matchAll(/^\| `([a-z_.<>[\]]+)` \| ([^|]+) \|/gm))
    rows.set(m[1]!, m[2]!.trim());
  return rows;
}

/** Dotted paths of the primitive values of the default config. */
function leaves(value: unknown, path = '', out = new Map<string, unknown>()): Map<string, unknown> {
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
    for (const [k, v] of Object.entries(value)) leaves(v, path ? `${path}.${k}` : k, out);
  } else if (['string', 'number', 'boolean'].includes(typeof value)) out.set(path, value);
  return out;
}

test('docs/configuration.md states the receiver defaults the schema has (receiver-defaults.ts)', () => {
  const defaults = leaves(
    receiverConfigSchema.parse({
      connection: 'Endpoint=sb://ns.servicebus.windows.net/;SharedAccessKeyName=k;SharedAccessKey=a2V5;EntityPath=h',
    }),
  );
  const documented = documentedDefaults();
  const wrong: string[] = [];
  let checked = 0;
  for (const [key, cell] of documented) {
    if (!defaults.has(key) || key === 'connection') continue;
    const literal = /^`([^`]*)`/.exec(cell)?.[1];
    if (literal === undefined) continue; // prose ("—", "required", "off") is not a value
    const value = defaults.get(key);
    const unquoted = literal.replace(/^"(.*)"$/, '$1');
    const same =
      String(value) === unquoted ||
      (typeof value === 'number' &&
        /^\d+(\.\d+)?(ms|s|m|h)$/.test(literal) &&
        durationMs.safeParse(literal).data === value);
    checked++;
    if (!same)
      wrong.push(`${key}: the docs say ${cell.split(' ')[0]}, the schema's default is ${JSON.stringify(value)}`);
  }
  assert.deepEqual(wrong, []);
  assert.ok(checked >= 15, `only ${checked} defaults were compared: did the docs' table layout change?`);
});
