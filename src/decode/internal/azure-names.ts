/**
 * Attribute names for the common resource-log schema
 * (https://learn.microsoft.com/azure/azure-monitor/essentials/resource-logs-schema#top-level-common-schema).
 * `GO_RECEIVER_NAMES` are the names the Go collector's azureeventhub receiver writes by default
 * (pkg/translator/azure), so dashboards built on it keep working; `SEMCONV_NAMES` are the
 * OpenTelemetry semantic-convention names its `apply_semantic_conventions` mode uses (pkg/translator/azurelogs).
 */
export interface AzureNames {
  /** Resource attribute holding `resourceId`. */
  readonly resourceId: string;
  readonly tenantId: string;
  readonly operationName: string;
  readonly operationVersion: string;
  readonly category: string;
  readonly resultType: string;
  readonly resultSignature: string;
  readonly resultDescription: string;
  readonly duration: string;
  readonly callerIpAddress: string;
  readonly correlationId: string;
  readonly identity: string;
  readonly location: string;
  readonly properties: string;
  /** Prefix for top-level fields outside the common schema: `azure.` + the field name as written. */
  readonly extraPrefix: string;
  /** `cloud.provider` = `azure` goes on the resource (true) or on each record (false). */
  readonly providerOnResource: boolean;
  /** `event.name` of every record, when set. */
  readonly eventName: string | undefined;
}

export const ATTR_CLOUD_PROVIDER = 'cloud.provider';
export const CLOUD_PROVIDER_AZURE = 'azure';
/** Set (to the timestamp field's name, or `none`) when no timestamp parsed and the enqueued time was used. */
export const ATTR_TIMESTAMP_FALLBACK = 'azure.timestamp.fallback';

export const GO_RECEIVER_NAMES: AzureNames = {
  resourceId: 'azure.resource.id',
  tenantId: 'azure.tenant.id',
  operationName: 'azure.operation.name',
  operationVersion: 'azure.operation.version',
  category: 'azure.category',
  resultType: 'azure.result.type',
  resultSignature: 'azure.result.signature',
  resultDescription: 'azure.result.description',
  duration: 'azure.duration',
  // semconv v1.13 `net.sock.peer.addr`, which the Go receiver still writes (later renamed network.peer.address).
  callerIpAddress: 'net.sock.peer.addr',
  correlationId: 'azure.correlation.id',
  identity: 'azure.identity',
  location: 'cloud.region',
  properties: 'azure.properties',
  extraPrefix: 'azure.',
  providerOnResource: false,
  eventName: undefined,
};

export const SEMCONV_NAMES: AzureNames = {
  resourceId: 'cloud.resource_id',
  tenantId: 'cloud.account.id',
  operationName: 'azure.operation.name',
  operationVersion: 'azure.operation.version',
  category: 'azure.category',
  resultType: 'azure.result.type',
  resultSignature: 'azure.result.signature',
  resultDescription: 'azure.result.description',
  duration: 'azure.duration',
  callerIpAddress: 'network.peer.address',
  correlationId: 'azure.correlation_id',
  identity: 'azure.identity',
  location: 'cloud.region',
  properties: 'azure.properties',
  extraPrefix: 'azure.',
  providerOnResource: true,
  eventName: 'az.resource.log',
};
