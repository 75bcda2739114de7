import { ResourceCache } from '../resource-cache.ts';

/**
 * The resources of `apply_semantic_conventions` mode, as the Go azurelogs translator writes them:
 * `cloud.provider`, `cloud.resource_id` and `event.name` = `az.resource.log` on the resource (Go's
 * default; its alpha feature gates move event.name to each record instead).
 */
export function createSemconvResources(): ResourceCache {
  return new ResourceCache('cloud.resource_id', { 'cloud.provider': 'azure', 'event.name': 'az.resource.log' });
}
