import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MAX_CACHED_RESOURCES } from '../resource-cache.ts';
import type { ResourceFields } from './mapped-record.ts';

/**
 * One `Resource` object per distinct set of resource fields, reused across batches, so exporters put the
 * records of one Azure resource under one ResourceLogs (as Go groups them by logsResourceAttributes).
 * Attributes in the extension's order; empty and "-" values are left out. Keyed by eight fields, where
 * ResourceCache (../resource-cache.ts) keys the translators' resources by the resource id alone.
 */
export class EncodingResourceCache {
  readonly #byKey = new Map<string, Resource>();
  #last: ResourceFields | undefined;
  #lastResource: Resource | undefined;
  /** The resource of records the extension stores raw: provider and event source only. */
  readonly empty: Resource = this.get({
    resourceId: '',
    tenantId: '',
    subscriptionId: '',
    location: '',
    serviceNamespace: '',
    serviceName: '',
    serviceInstanceId: '',
    environment: '',
  });

  get(r: ResourceFields): Resource {
    // Records of one event usually share a resource: skip building the key for a repeat.
    const last = this.#last;
    if (last !== undefined && this.#lastResource !== undefined && sameFields(last, r)) return this.#lastResource;
    const resource = this.#lookup(r);
    this.#last = r;
    this.#lastResource = resource;
    return resource;
  }

  #lookup(r: ResourceFields): Resource {
    const key =
      `${r.resourceId}\u0000${r.tenantId}\u0000${r.subscriptionId}\u0000${r.location}\u0000${r.serviceNamespace}` +
      `\u0000${r.serviceName}\u0000${r.serviceInstanceId}\u0000${r.environment}`;
    let resource = this.#byKey.get(key);
    if (resource === undefined) {
      if (this.#byKey.size >= MAX_CACHED_RESOURCES) this.#byKey.clear();
      const attrs: Record<string, string> = {
        'cloud.provider': 'azure',
        'cloudevents.event_source': 'azure.resource.log',
      };
      put(attrs, 'cloud.resource_id', r.resourceId);
      put(attrs, 'cloud.region', r.location);
      put(attrs, 'service.namespace', r.serviceNamespace);
      put(attrs, 'service.name', r.serviceName);
      put(attrs, 'service.instance.id', r.serviceInstanceId);
      put(attrs, 'deployment.environment.name', r.environment);
      put(attrs, 'azure.tenant.id', r.tenantId);
      // a subscription is Azure's closest analogue of a cloud account
      put(attrs, 'cloud.account.id', r.subscriptionId);
      resource = resourceFromAttributes(attrs);
      this.#byKey.set(key, resource);
    }
    return resource;
  }
}

function sameFields(a: ResourceFields, b: ResourceFields): boolean {
  return (
    a.resourceId === b.resourceId &&
    a.tenantId === b.tenantId &&
    a.subscriptionId === b.subscriptionId &&
    a.location === b.location &&
    a.serviceNamespace === b.serviceNamespace &&
    a.serviceName === b.serviceName &&
    a.serviceInstanceId === b.serviceInstanceId &&
    a.environment === b.environment
  );
}

function put(attrs: Record<string, string>, key: string, value: string): void {
  if (value !== '' && value !== '-') attrs[key] = value;
}
