/**
 * The OTLP logs request schema of opentelemetry-proto v1 (collector/logs/v1/logs_service.proto and the
 * messages it uses: logs/v1/logs.proto, common/v1/common.proto, resource/v1/resource.proto), as a
 * protobufjs descriptor: message and field names, numbers and types, nothing else. Used by tests to decode
 * what an exporter sends independently of the encoder under test. protobufjs comes with @grpc/grpc-js
 * (through @grpc/proto-loader); @opentelemetry/otlp-transformer 0.223.1 no longer ships a generated root.
 */
import protobuf from 'protobufjs';

const field = (id: number, type: string, rule?: 'repeated') => ({ id, type, ...(rule ? { rule } : {}) });

const descriptor = {
  nested: {
    ExportLogsServiceRequest: { fields: { resourceLogs: field(1, 'ResourceLogs', 'repeated') } },
    ResourceLogs: {
      fields: {
        resource: field(1, 'Resource'),
        scopeLogs: field(2, 'ScopeLogs', 'repeated'),
        schemaUrl: field(3, 'string'),
      },
    },
    ScopeLogs: {
      fields: {
        scope: field(1, 'InstrumentationScope'),
        logRecords: field(2, 'LogRecord', 'repeated'),
        schemaUrl: field(3, 'string'),
      },
    },
    LogRecord: {
      fields: {
        timeUnixNano: field(1, 'fixed64'),
        observedTimeUnixNano: field(11, 'fixed64'),
        severityNumber: field(2, 'int32'),
        severityText: field(3, 'string'),
        body: field(5, 'AnyValue'),
        attributes: field(6, 'KeyValue', 'repeated'),
        droppedAttributesCount: field(7, 'uint32'),
        flags: field(8, 'fixed32'),
        traceId: field(9, 'bytes'),
        spanId: field(10, 'bytes'),
        eventName: field(12, 'string'),
      },
    },
    Resource: { fields: { attributes: field(1, 'KeyValue', 'repeated'), droppedAttributesCount: field(2, 'uint32') } },
    InstrumentationScope: {
      fields: {
        name: field(1, 'string'),
        version: field(2, 'string'),
        attributes: field(3, 'KeyValue', 'repeated'),
        droppedAttributesCount: field(4, 'uint32'),
      },
    },
    AnyValue: {
      oneofs: {
        value: {
          oneof: ['stringValue', 'boolValue', 'intValue', 'doubleValue', 'arrayValue', 'kvlistValue', 'bytesValue'],
        },
      },
      fields: {
        stringValue: field(1, 'string'),
        boolValue: field(2, 'bool'),
        intValue: field(3, 'int64'),
        doubleValue: field(4, 'double'),
        arrayValue: field(5, 'ArrayValue'),
        kvlistValue: field(6, 'KeyValueList'),
        bytesValue: field(7, 'bytes'),
      },
    },
    ArrayValue: { fields: { values: field(1, 'AnyValue', 'repeated') } },
    KeyValueList: { fields: { values: field(1, 'KeyValue', 'repeated') } },
    KeyValue: { fields: { key: field(1, 'string'), value: field(2, 'AnyValue') } },
  },
};

const requestType = protobuf.Root.fromJSON(descriptor).lookupType('ExportLogsServiceRequest');

/**
 * Decodes an ExportLogsServiceRequest into plain objects: 64-bit integers as decimal strings (exact beyond
 * 2^53), bytes as Buffers, unset fields left out. Throws on bytes that are not a valid request.
 */
export function decodeLogsRequest(bytes: Uint8Array): any {
  const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength); // bytes fields decode as Buffers
  return requestType.toObject(requestType.decode(view), { longs: String, bytes: Buffer, defaults: false });
}
