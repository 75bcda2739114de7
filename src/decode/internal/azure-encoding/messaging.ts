import type { LogAttributes } from '@opentelemetry/api-logs';
import { putInt, putStr } from './attributes.ts';
import { asStr, FieldTypeError, Fields, type JsonObject } from './fields.ts';
import { setBody, type CategoryMapper, type MappedRecord } from './mapped-record.ts';
import { putUrl } from './url.ts';

/*
 * Service Bus and Event Hubs namespace logs (category_messaging.go). They do not follow the common schema:
 * their own time fields (`eventTimestamp`, else `EventTimeString`), resource fields from `Region`,
 * `Environment`, `SubscriptionId`, `NamespaceName`, `EntityName`, and no level.
 */

function mapCommon(f: Fields, m: MappedRecord): void {
  const r = m.resource;
  r.resourceId = f.str('ResourceId');
  r.location = f.str('Region');
  r.environment = f.str('Environment');
  r.subscriptionId = f.str('SubscriptionId');
  r.serviceNamespace = f.str('NamespaceName');
  r.serviceName = f.str('EntityName');
  m.timeText = f.str('eventTimestamp') || f.str('EventTimeString');
  const a = m.attributes;
  putStr(a, 'azure.autoscale.unit', f.str('ScaleUnit'));
  putStr(a, 'log.record.uid', f.str('ActivityId'));
  putStr(a, 'azure.operation.name', f.str('ActivityName'));
  // EntityType names the messaging system; the resource id tells it when that is missing.
  let system = f.str('EntityType').toLowerCase();
  if (system === 'eventhub') system = 'eventhubs';
  else if (system === 'queue') system = 'servicebus';
  if (system === '' && r.resourceId !== '') {
    const id = r.resourceId.toLowerCase();
    if (id.includes('/microsoft.servicebus/')) system = 'servicebus';
    else if (id.includes('/microsoft.eventhub/')) system = 'eventhubs';
  }
  putStr(a, 'messaging.system', system);
}

/** A field holding JSON inside a JSON string (Go strconv.Unquote, then unmarshal). */
function quotedJson(value: unknown, name: string): Fields | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw new FieldTypeError(`${name}: expected a JSON string`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw new FieldTypeError(`${name}: not JSON`);
  }
  if (parsed === null) return undefined;
  if (typeof parsed !== 'object' || Array.isArray(parsed)) throw new FieldTypeError(`${name}: not an object`);
  return new Fields(parsed as JsonObject);
}

function failedUnless(a: MappedRecord['attributes'], status: string, ok: string): void {
  if (status !== '' && status.toLowerCase() !== ok) putStr(a, 'error.type', status);
}

export const mapDiagnosticErrorLogs: CategoryMapper = (f, m) => {
  mapCommon(f, m);
  m.severityNumber = 17;
  m.severityText = 'Error';
  const a = m.attributes;
  putStr(a, 'azure.messaging.task.name', f.str('TaskName'));
  putStr(a, 'error.message', f.str('ErrorMessage'));
  putInt(a, 'azure.messaging.error.count', f.num('ErrorCount'));
  putStr(a, 'error.type', f.str('OperationResult'));
};

/** The client and connection fields application-metrics and runtime-audit records share. */
function putClientConnection(a: LogAttributes, f: Fields): void {
  putStr(a, 'network.protocol.name', f.str('Protocol').toLowerCase());
  putStr(a, 'azure.auth.type', f.str('AuthType'));
  putStr(a, 'azure.auth.id', f.str('AuthId'));
  putStr(a, 'network.connection.type', f.str('NetworkType'));
  putStr(a, 'client.address', f.str('ClientIp'));
  putInt(a, 'messaging.message.count', f.num('Count'));
}

export const mapApplicationMetricsLogs: CategoryMapper = (f, m) => {
  mapCommon(f, m);
  quotedJson(f.get('Properties'), 'Properties'); // parsed for validity only, as Go does
  const a = m.attributes;
  putStr(a, 'messaging.destination.partition.id', f.str('PartitionId'));
  putClientConnection(a, f);
  failedUnless(a, f.str('Outcome'), 'success');
};

export const mapOperationalLogs: CategoryMapper = (f, m) => {
  mapCommon(f, m);
  const a = m.attributes;
  putStr(a, 'azure.operation.name', f.str('EventName'));
  putStr(a, 'client.type', f.str('Caller'));
  failedUnless(a, f.str('Status'), 'succeeded');
  const p = quotedJson(f.get('EventProperties'), 'EventProperties');
  if (p === undefined) return;
  putUrl(a, p.str('Via'));
  putStr(a, 'azure.service.request.id', p.str('TrackingId'));
  putStr(a, 'error.code', p.str('ErrorCode'));
  putStr(a, 'error.message', p.str('ErrorMessage'));
};

export const mapRuntimeAuditLogs: CategoryMapper = (f, m) => {
  mapCommon(f, m);
  const a = m.attributes;
  putStr(a, 'azure.messaging.task.name', f.str('TaskName'));
  putClientConnection(a, f);
  failedUnless(a, f.str('Status'), 'success');
  setBody(m, asStr(f.get('Properties'), 'Properties'));
};

export const mapVNetAndIpFilteringLogs: CategoryMapper = (f, m) => {
  mapCommon(f, m);
  const a = m.attributes;
  putStr(a, 'azure.operation.name', f.str('EventName'));
  putStr(a, 'client.address', f.str('ipAddress'));
  putStr(a, 'security_rule.action', f.str('action'));
  putStr(a, 'security_rule.evaluation.reason', f.str('reason'));
  putInt(a, 'security_rule.evaluation.count', f.num('count'));
};
