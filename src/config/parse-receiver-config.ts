import type { z } from 'zod';
import { ConfigError } from '../component/errors.ts';
import { formatIssues } from './format-issues.ts';
import { humanIssueMessage } from './human-issues.ts';
import { receiverConfigSchema, type ReceiverConfig } from './receiver-config.ts';

/** Known keys of the object schema at `path` inside `schema`, for "did you mean" suggestions. */
export function knownKeysAt(schema: z.ZodType, path: readonly PropertyKey[]): string[] {
  let current: z.ZodType | undefined = schema;
  for (const segment of [...path, undefined]) {
    // Unwrap defaults, optionals, pipes and refinements down to the object (zod 4 keeps them in def.innerType /
    // def.in).
    for (let i = 0; i < 10 && current; i++) {
      const def: any = (current as any)._zod?.def;
      if (!def) break;
      if (def.type === 'object') break;
      if ((def.type === 'record' || def.type === 'array') && segment !== undefined) break;
      current = def.innerType ?? def.in ?? def.schema;
    }
    if (!current) return [];
    if (segment === undefined) break;
    const def: any = (current as any)._zod?.def;
    if (def?.type === 'object') current = def.shape?.[segment as string];
    else if (def?.type === 'record') current = def.valueType;
    else if (def?.type === 'array')
      current = def.element; // `readers.0.pull...`: the index selects the element schema
    else current = undefined;
  }
  const shape = (current as any)?._zod?.def?.shape;
  return shape ? Object.keys(shape) : [];
}

/** Validates a receiver section; throws a ConfigError listing every problem with its dotted path. */
export function parseReceiverConfig(input: unknown, prefix: readonly (string | number)[] = []): ReceiverConfig {
  const result = receiverConfigSchema.safeParse(input ?? {}, { error: humanIssueMessage });
  if (result.success) return result.data;
  throw new ConfigError(formatIssues(result.error, prefix, (p) => knownKeysAt(receiverConfigSchema, p)));
}
