/**
 * The OTLP/JSON values shared by the strict JSON encoders of every signal (logs: otlp-json-encoder.ts,
 * metrics: otlp-json-metrics-encoder.ts, traces: otlp-json-trace-encoder.ts): resources, scopes,
 * attributes and AnyValues, by the rules of otlp-wire-values.ts and the protobuf JSON mapping.
 */
import type { AnyValue, LogAttributes } from '@opentelemetry/api-logs';
import type { Resource } from '@opentelemetry/resources';
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

export function attributesJson(attributes: LogAttributes): JsonKeyValue[] {
  const keys = Object.keys(attributes);
  const out = new Array<JsonKeyValue>(keys.length);
  for (let i = 0; i < keys.length; i++) out[i] = { key: wellFormed(keys[i]!), value: anyValueJson(attributes[keys[i]!]) };
  return out;
}

/** The same variant as the protobuf encoder picks; null, undefined and other types an empty AnyValue. */
export function anyValueJson(value: AnyValue): JsonAnyValue {
  switch (typeof value) {
    case 'string':
      return { stringValue: wellFormed(value) };
    case 'boolean':
      return { boolValue: value };
    case 'number':
      if (isInt64(value)) return { intValue: int64String(value) };
      return { doubleValue: doubleJson(value) };
    case 'object':
      if (value === null) return {};
      if (value instanceof Uint8Array) return { bytesValue: Buffer.from(value.buffer, value.byteOffset, value.byteLength).toString('base64') };
      if (Array.isArray(value)) return { arrayValue: { values: value.map((v: AnyValue) => anyValueJson(v)) } };
      return { kvlistValue: { values: attributesJson(value as LogAttributes) } };
    default:
      return {};
  }
}
