import { resourceFromAttributes, type Resource } from '@opentelemetry/resources';
import { MAX_CACHED_RESOURCES, ResourceCache } from '../resource-cache.ts';
import { INSTRUMENTATION_SCOPE, SCOPE_NAME } from '../scope.ts';

/** Resource attribute holding the record's `resourceId`, as the Go receiver names it. */
export const ATTR_AZURE_RESOURCE_ID = 'azure.resource.id';

/**
 * What every platform-metric resource carries besides its id. The Go receiver writes `telemetry.sdk.*`
 * naming itself (its module path, `go`, the collector build); we name this receiver the same way, so the
 * attributes stay truthful about what produced the data (listed in docs/formats.md, Metrics).
 */
export const PLATFORM_RESOURCE_ATTRIBUTES: Readonly<Record<string, string>> = Object.freeze({
  'telemetry.sdk.name': SCOPE_NAME,
  'telemetry.sdk.language': 'nodejs',
  'telemetry.sdk.version': INSTRUMENTATION_SCOPE.version ?? '0.0.0',
  'cloud.provider': 'azure',
});

/** Platform metrics: one shared resource per `resourceId` (none without one, as in Go). */
export function createPlatformResources(): ResourceCache {
  return new ResourceCache(ATTR_AZURE_RESOURCE_ID, PLATFORM_RESOURCE_ATTRIBUTES);
}

/**
 * Application Insights `AppMetrics` resources: their attributes come from several record fields (role,
 * version, region, OS, custom properties), so one Resource object is kept per distinct attribute set,
 * letting exporters group the points of one application instance under one ResourceMetrics.
 */
export class AppMetricResources {
  readonly #byKey = new Map<string, Resource>();

  get(attributes: Readonly<Record<string, string>>): Resource {
    const key = JSON.stringify(attributes);
    let resource = this.#byKey.get(key);
    if (resource === undefined) {
      if (this.#byKey.size >= MAX_CACHED_RESOURCES) this.#byKey.clear();
      resource = resourceFromAttributes({ ...attributes });
      this.#byKey.set(key, resource);
    }
    return resource;
  }
}
