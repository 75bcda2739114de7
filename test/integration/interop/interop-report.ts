/**
 * Runs one of the Python interop clients (python/*.py) against an emulator and checks its report: every
 * step the client took (claims, sends, management reads, receives, refusals), as it decoded the replies.
 * The clients print a line `INTEROP-STEP {"name", "result"}` per finished step; a step that threw holds
 * `error` and `trace`. Steps missing because the client crashed fail with its exit code and stderr.
 */
import assert from 'node:assert/strict';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Emulator } from '../../../src/emulator/index.ts';
import { runPython } from '../../helpers/system-python.ts';

export const PYTHON_DIR = join(dirname(fileURLToPath(import.meta.url)), 'python');
const STEP_MARKER = 'INTEROP-STEP ';
/** Bound on one client run; each file stays under 45 s. */
const CLIENT_TIMEOUT_MS = 40_000;

/** A decoded scalar and the name of its type as the client library reports it. */
export interface Typed {
  type: string;
  value: unknown;
}

export interface ReceivedEvent {
  body: unknown;
  application_properties: Record<string, Typed>;
  annotations: Record<string, Typed>;
}

export interface Reply {
  application_properties: Record<string, Typed>;
  body: Record<string, any> | null;
}

export type Steps = Record<string, Record<string, any>>;

export interface ClientRun {
  steps: Steps;
  code: number | null;
  stderr: string;
}

export interface ClientArgs {
  emulator: Emulator;
  hub: string;
  missingHub: string;
  keyName: string;
  key: string;
  /** An id written into the event bodies. */
  run: string;
  extra?: string[];
}

export async function runInteropClient(python: string, script: string, args: ClientArgs): Promise<ClientRun> {
  const argv = [
    '--host',
    args.emulator.host,
    '--port',
    String(args.emulator.port),
    '--hub',
    args.hub,
    '--missing-hub',
    args.missingHub,
    '--key-name',
    args.keyName,
    '--key',
    args.key,
    '--run',
    args.run,
    ...(args.extra ?? []),
  ];
  // No __pycache__ next to the scripts in the checkout.
  const env = { PYTHONDONTWRITEBYTECODE: '1' };
  const result = await runPython(python, join(PYTHON_DIR, script), argv, { env, timeoutMs: CLIENT_TIMEOUT_MS });
  const steps: Steps = {};
  for (const line of result.stdout.split('\n')) {
    if (!line.startsWith(STEP_MARKER)) continue;
    const parsed = JSON.parse(line.slice(STEP_MARKER.length)) as { name: string; result: Record<string, any> };
    steps[parsed.name] = parsed.result;
  }
  return { steps, code: result.code, stderr: result.stderr };
}

/** The result of one step; fails with the client's own exception when that step threw. */
export function step(run: ClientRun, name: string): Record<string, any> {
  const result = run.steps[name];
  assert.ok(
    result,
    `the client never finished step '${name}' (exit code ${String(run.code)}):\n${run.stderr.slice(-3000)}`,
  );
  if (typeof result.error === 'string') {
    assert.fail(`step '${name}' failed in the client: ${result.error}\n${String(result.trace ?? '')}`);
  }
  return result;
}

export function typedValue(typed: Typed | undefined, what: string): unknown {
  assert.ok(typed && typeof typed === 'object' && 'value' in typed, `${what} is missing`);
  return typed.value;
}

/** The AMQP types the annotations and management fields must have, as the stack names them. */
export interface TypeNames {
  string: string;
  long: string;
  int: string;
  timestamp: string;
  statusCode: string;
}

export function assertTyped(typed: Typed | undefined, type: string, what: string): unknown {
  assert.ok(typed, `${what} is missing`);
  assert.equal(typed.type, type, `${what} has type ${typed.type}, expected ${type}`);
  return typed.value;
}

/** Status code and description of a $cbs or $management reply. */
export function replyStatus(
  reply: Reply,
  types: TypeNames,
): { status: number; description: string; condition?: string } {
  const status = assertTyped(reply.application_properties['status-code'], types.statusCode, 'status-code') as number;
  const description = String(typedValue(reply.application_properties['status-description'], 'status-description'));
  const condition = reply.application_properties['error-condition'];
  return { status, description, ...(condition ? { condition: String(condition.value) } : {}) };
}

/**
 * Checks one partition's events as a client received them from the start: sequence numbers 0..n-1, offsets
 * as increasing decimal strings, enqueued times near now. Returns the bodies in order.
 */
export function assertPartitionEvents(
  events: ReceivedEvent[],
  types: TypeNames,
  since: number,
  what: string,
): string[] {
  let previousOffset = -1;
  events.forEach((event, i) => {
    const label = `${what} event ${i}`;
    const annotation = (name: string, type: string): unknown =>
      assertTyped(event.annotations[name], type, `${label} ${name}`);
    assert.equal(annotation('x-opt-sequence-number', types.long), i);
    const offset = annotation('x-opt-offset', types.string) as string;
    assert.match(offset, /^\d+$/, `${label} x-opt-offset is a decimal string`);
    assert.ok(Number(offset) > previousOffset, `${label} offsets increase`);
    previousOffset = Number(offset);
    const enqueued = Number(annotation('x-opt-enqueued-time', types.timestamp));
    assert.ok(
      enqueued >= since - 1000 && enqueued <= Date.now() + 1000,
      `${label} enqueued at ${enqueued}, since ${since}`,
    );
  });
  return events.map((e) => String(e.body));
}
