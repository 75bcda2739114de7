/** Stability of a component or feature gate, as the collector prints it in `components`. */
export type Stability = 'development' | 'alpha' | 'beta' | 'stable' | 'deprecated';

/** Id of the gate that makes `streaming` (AMQP) the default backend instead of `polling`. */
export const STREAMING_GATE_ID = 'receiver.azureeventhub.streaming';
/** Environment variable read for gates, same syntax as the flag: `+id,-id,id`. */
export const FEATURE_GATES_ENV = 'OTELCOL_FEATURE_GATES';

export interface FeatureGate {
  readonly id: string;
  readonly stage: Stability | 'alpha' | 'beta';
  readonly description: string;
  readonly enabledByDefault: boolean;
}

/**
 * Feature gates the way the collector sets them: `--feature-gates=+a,-b` (a bare id enables), an
 * environment variable, or programmatically. Unknown ids are an error that lists the known ones.
 */
export class FeatureGateRegistry {
  readonly #gates = new Map<string, FeatureGate>();
  readonly #overrides = new Map<string, boolean>();

  register(gate: FeatureGate): this {
    this.#gates.set(gate.id, gate);
    return this;
  }

  list(): readonly (FeatureGate & { readonly enabled: boolean })[] {
    return [...this.#gates.values()].map((g) => ({ ...g, enabled: this.isEnabled(g.id) }));
  }

  isEnabled(id: string): boolean {
    const gate = this.#gates.get(id);
    if (!gate) throw new Error(`unknown feature gate '${id}'; known gates: ${[...this.#gates.keys()].join(', ')}`);
    return this.#overrides.get(id) ?? gate.enabledByDefault;
  }

  set(id: string, enabled: boolean): this {
    this.isEnabled(id);
    this.#overrides.set(id, enabled);
    return this;
  }

  /** Applies `+a,-b,c`; throws on an unknown id, naming every bad one. */
  apply(spec: string): this {
    const items = spec
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean);
    const unknown = items.map((i) => i.replace(/^[+-]/, '')).filter((id) => !this.#gates.has(id));
    if (unknown.length)
      throw new Error(
        `unknown feature gate(s) ${unknown.map((u) => `'${u}'`).join(', ')}; known gates: ` +
          `${[...this.#gates.keys()].join(', ')}`,
      );
    for (const item of items) this.set(item.replace(/^[+-]/, ''), !item.startsWith('-'));
    return this;
  }

  /** A copy with the same registrations and overrides (so tests and receivers do not share state). */
  clone(): FeatureGateRegistry {
    const copy = new FeatureGateRegistry();
    for (const g of this.#gates.values()) copy.register(g);
    for (const [id, v] of this.#overrides) copy.set(id, v);
    return copy;
  }
}

/** A registry with this project's gates registered; `env` (default process.env) is applied. */
export function createFeatureGates(env: Record<string, string | undefined> = process.env): FeatureGateRegistry {
  const registry = new FeatureGateRegistry().register({
    id: STREAMING_GATE_ID,
    stage: 'alpha',
    description:
      'Use the legacy streaming backend (AMQP directly) instead of polling on @azure/event-hubs, unless a receiver ' +
      'sets backend explicitly.',
    enabledByDefault: false,
  });
  const fromEnv = env[FEATURE_GATES_ENV];
  if (fromEnv) registry.apply(fromEnv);
  return registry;
}
