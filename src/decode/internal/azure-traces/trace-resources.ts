import type { Resource } from '@opentelemetry/resources';
import { ATTR_CLOUD_PROVIDER, CLOUD_PROVIDER_AZURE } from '../azure-names.ts';
import { ResourceCache } from '../resource-cache.ts';
import { INSTRUMENTATION_SCOPE, SCOPE_NAME } from '../scope.ts';

/** Resource attribute holding the record's `resourceId` (the Go translator's name). */
export const ATTR_AZURE_RESOURCE_ID = 'azure.resource.id';

/** Application roles (`AppRoleName`) kept per decoder; past this the role caches start over. */
export const MAX_CACHED_ROLES = 1_000;

/**
 * The resource of a span: `azure.resource.id` and `service.name` (from `AppRoleName`, as in Go) with the
 * `cloud.provider` and `telemetry.sdk.*` attributes Go's translator also writes, naming this receiver as the
 * producer. One `Resource` object per (resource id, role), reused across batches like the log records'
 * (exporters group by object identity), through one ResourceCache per role.
 */
export class TraceResources {
  readonly #byRole = new Map<string, ResourceCache>();

  get(resourceId: string, role: string): Resource {
    let cache = this.#byRole.get(role);
    if (cache === undefined) {
      if (this.#byRole.size >= MAX_CACHED_ROLES) this.#byRole.clear();
      cache = new ResourceCache(ATTR_AZURE_RESOURCE_ID, {
        'telemetry.sdk.name': SCOPE_NAME,
        'telemetry.sdk.language': 'nodejs',
        'telemetry.sdk.version': INSTRUMENTATION_SCOPE.version ?? '',
        [ATTR_CLOUD_PROVIDER]: CLOUD_PROVIDER_AZURE,
        'service.name': role,
      });
      this.#byRole.set(role, cache);
    }
    return cache.get(resourceId);
  }
}
