/**
 * `npm start -- --signals logs,metrics,traces`: which signals the demo generates and shows. Each signal the
 * flag names gets a pipeline on the demo's receiver, with the demo's exporters (the debug exporter), so
 * one receiver reads each partition once and feeds all of them; a signal left out gets no pipeline, and
 * its events are not generated.
 */
import { SIGNALS, type Signal } from '../../src/pipeline/signals.ts';

/** The default, as `npm start` has always been: resource logs only. */
export const DEFAULT_DEMO_SIGNALS: readonly Signal[] = ['logs'];

/** `--signals` text (comma-separated, any order) → the signals in canonical order. Throws on a bad value. */
export function parseDemoSignals(text: string): Signal[] {
  const names = text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  const unknown = names.filter((n) => !(SIGNALS as readonly string[]).includes(n));
  if (unknown.length > 0) {
    const names = unknown.map((n) => `"${n}"`).join(', ');
    throw new Error(`--signals: unknown signal ${names}; use a comma-separated list of ${SIGNALS.join(', ')}`);
  }
  if (names.length === 0) throw new Error(`--signals: give at least one of ${SIGNALS.join(', ')}`);
  return SIGNALS.filter((s) => names.includes(s));
}

type Tree = Record<string, unknown>;
const isTree = (v: unknown): v is Tree => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * Gives the loaded (not yet validated) config a pipeline per requested signal, copying the receivers,
 * processors and exporters of its `logs` pipeline (the demo's receiver and debug exporter), and removes
 * the pipelines of signals not requested. A pipeline the config already has for a requested signal is
 * kept as it is.
 * Returns a new tree; the input is not changed.
 */
export function withDemoSignals(raw: Tree, signals: readonly Signal[]): Tree {
  const service = isTree(raw.service) ? raw.service : {};
  const pipelines = isTree(service.pipelines) ? { ...service.pipelines } : {};
  const template = isTree(pipelines.logs) ? pipelines.logs : {};
  const receivers = Array.isArray(template.receivers) ? template.receivers : ['azure_event_hub'];
  const exporters = Array.isArray(template.exporters) ? template.exporters : ['debug'];
  const processors = Array.isArray(template.processors) ? { processors: [...template.processors] } : {};
  for (const signal of SIGNALS) {
    if (!signals.includes(signal)) delete pipelines[signal];
    else if (!isTree(pipelines[signal])) {
      pipelines[signal] = { receivers: [...receivers], ...processors, exporters: [...exporters] };
    }
  }
  return { ...raw, service: { ...service, pipelines } };
}
