import type { Resource } from '@opentelemetry/resources';
import type { MetricPoint } from '../../pipeline/signals.ts';
import type { Scope } from './otlp-proto-values.ts';

/**
 * Items by resource object, then scope object, in first-seen order (as upstream groups log records). The
 * scope is read with `scopeOf`: `scope` on points and spans (the default), `instrumentationScope` on log records.
 */
export function groupByResourceAndScope<Item extends { readonly resource: Resource; readonly scope: Scope }>(
  items: readonly Item[],
): Map<Resource, Map<Scope, Item[]>>;
export function groupByResourceAndScope<Item extends { readonly resource: Resource }>(
  items: readonly Item[],
  scopeOf: (item: Item) => Scope,
): Map<Resource, Map<Scope, Item[]>>;
export function groupByResourceAndScope<Item extends { readonly resource: Resource; readonly scope?: Scope }>(
  items: readonly Item[],
  scopeOf: (item: Item) => Scope = (item) => item.scope!,
): Map<Resource, Map<Scope, Item[]>> {
  const groups = new Map<Resource, Map<Scope, Item[]>>();
  for (const item of items) {
    let scopes = groups.get(item.resource);
    if (scopes === undefined) groups.set(item.resource, (scopes = new Map()));
    const scope = scopeOf(item);
    const list = scopes.get(scope);
    if (list === undefined) scopes.set(scope, [item]);
    else list.push(item);
  }
  return groups;
}

/**
 * Points of one scope by metric identity (name, unit, description, kind), in first-seen order: one OTLP
 * `Metric` per identity, its points in `data_points`, as the collector's pdata holds them.
 */
export function groupByMetric(points: readonly MetricPoint[]): MetricPoint[][] {
  const metrics = new Map<string, MetricPoint[]>();
  for (const point of points) {
    const key = `${point.name}\u0000${point.unit}\u0000${point.description}\u0000${point.kind}`;
    const list = metrics.get(key);
    if (list === undefined) metrics.set(key, [point]);
    else list.push(point);
  }
  return [...metrics.values()];
}
