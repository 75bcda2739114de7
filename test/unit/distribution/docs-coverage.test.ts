import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { collectorConfigSchema } from '../../../src/config/collector-config.ts';
import { builtinComponents } from '../../../src/distribution/builtin-components.ts';

const DOC = readFileSync(join(import.meta.dirname, '../../../docs/configuration.md'), 'utf8');

interface JsonSchema {
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
}

/** Dotted paths of every leaf key of a schema (`partition_start.<id>.offset`, `sanitizers[].pattern`). */
function leafKeys(schema: z.ZodType): string[] {
  const out = new Set<string>();
  const walk = (node: JsonSchema | undefined, path: string) => {
    if (!node) return;
    for (const alt of node.anyOf ?? []) walk(alt, path);
    for (const [key, child] of Object.entries(node.properties ?? {})) {
      const p = `${path}${key}`;
      const nested =
        Object.keys(child.properties ?? {}).length > 0 ||
        (child.anyOf ?? []).some((a) => a.properties) ||
        (typeof child.additionalProperties === 'object' && child.additionalProperties.properties) ||
        child.items?.properties;
      if (!nested) out.add(p);
      walk(child, `${p}.`);
      if (typeof child.additionalProperties === 'object') walk(child.additionalProperties, `${p}.<id>.`);
      if (child.items) walk(child.items, `${p}[].`);
    }
  };
  walk(z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as JsonSchema, '');
  return [...out];
}

test(
  'docs/configuration.md documents every key of the collector, receiver, processor and extension ' + 'schemas',
  async () => {
    const components = await builtinComponents();
    const sections: [string, z.ZodType][] = [
      ['', collectorConfigSchema],
      ...components.receivers.map((f) => [`receivers.${f.type}.`, f.configSchema] as [string, z.ZodType]),
      ...components.processors.map((f) => [`processors.${f.type}.`, f.configSchema] as [string, z.ZodType]),
      ...components.extensions.map((f) => [`extensions.${f.type}.`, f.configSchema] as [string, z.ZodType]),
    ];
    const missing: string[] = [];
    for (const [prefix, schema] of sections) {
      for (const key of leafKeys(schema)) if (!DOC.includes(`\`${key}\``)) missing.push(`${prefix}${key}`);
    }
    assert.deepEqual(missing, []);
  },
);
