/**
 * The OTLP/JSON values shared by the strict JSON encoders of every signal (logs: otlp-json-encoder.ts,
 * metrics: otlp-json-metrics-encoder.ts, traces: otlp-json-trace-encoder.ts): resources, scopes,
 * attributes and AnyValues, by the rules of otlp-wire-values.ts and the protobuf JSON mapping.
 */
import type { AnyValue, LogAttributes } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
import { DOUBLES, doublesIn } from '../../pipeline/double-values.ts';
import { int64String, isInt64, wellFormed } from './otlp-wire-values.ts';
import type { Scope } from './otlp-proto-values.ts';

export interface JsonKeyValue {
  key: string;
  value: JsonAnyValue;
}

export type JsonAnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number | string }
  | { bytesValue: string }
  | { arrayValue: { values: JsonAnyValue[] } }
  | { kvlistValue: { values: JsonKeyValue[] } }
  | Record<string, never>;

/** A Resource message. */
export function resourceJson(resource: Resource): object {
  return { attributes: attributesJson(resource.attributes), droppedAttributesCount: 0 };
}

/** A double as the protobuf JSON mapping writes it: a number, or "NaN", "Infinity", "-Infinity". */
export function doubleJson(value: number): number | string {
  return Number.isFinite(value) ? value : String(value);
}

export function optionalString(value: string | undefined): string | undefined {
  return value ? wellFormed(value) : undefined;
}

export function scopeJson(scope: Scope): object {
  const hasAttributes = scope.attributes !== undefined && Object.keys(scope.attributes).length > 0;
  return {
    name: wellFormed(scope.name),
    version: optionalString(scope.version),
    attributes: hasAttributes ? attributesJson(scope.attributes!) : undefined,
    droppedAttributesCount: hasAttributes ? (scope.droppedAttributesCount ?? 0) : undefined,
  };
}

/** `doubles`: every number inside is a doubleValue (see pipeline/double-values.ts, which the maps may carry too). */
export function attributesJson(attributes: LogAttributes, doubles = false, markedKeys?: Set<string>): JsonKeyValue[] {
  const keys = Object.keys(attributes);
  const out = new Array<JsonKeyValue>(keys.length);
  const mark = doubles ? true : (markedKeys ?? (attributes as { [DOUBLES]?: true | Set<string> })[DOUBLES]);
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i]!;
    out[i] = {
      key: wellFormed(key),
      value: anyValueJson(attributes[key], mark === true || (mark !== undefined && mark.has(key))),
    };
  }
  return out;
}

/** The same variant as the protobuf encoder picks; null, undefined and other types an empty AnyValue. */
export function anyValueJson(value: AnyValue, doubles = false): JsonAnyValue {
  switch (typeof value) {
    case 'string':
      return { stringValue: wellFormed(value) };
    case 'boolean':
      return { boolValue: value };
    case 'number':
      if (!doubles && isInt64(value)) return { intValue: int64String(value) };
      return { doubleValue: doubleJson(value) };
    case 'object': {
      if (value === null) return {};
      if (value instanceof Uint8Array)
        return { bytesValue: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
      if (Array.isArray(value)) {
        const inner = doublesIn(value, doubles);
        return { arrayValue: { values: value.map((v: AnyValue) => anyValueJson(v, inner)) } };
      }
      return { kvlistValue: { values: attributesJson(value as LogAttributes, doubles) } };
    }
    default:
      return {};
  }
}
