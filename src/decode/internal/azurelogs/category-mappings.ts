import {
  mapAdministrativeLog,
  mapAlertLog,
  mapAutoscaleLog,
  mapPolicyLog,
  mapRecommendationLog,
  mapResourceHealthLog,
  mapSecurityLog,
  mapServiceHealthLog,
} from './activity-categories.ts';
import type { GoStructValue } from './go-struct.ts';
import { mapCdnAccessLog, mapFrontDoorAccessLog, mapFrontDoorWafLog } from './http-categories.ts';
import type { Attrs } from './put-helpers.ts';

/**
 * Puts a category's record attributes, returning what the properties held that the mapping did not
 * read; throws GoValueError where Go's mapping fails.
 */
export type CategoryMapping = (properties: Record<string, unknown>, attrs: Attrs) => GoStructValue;

/**
 * The categories pkg/translator/azurelogs maps to record attributes (addRecordAttributes in
 * category_logs.go). Every other category, the App Service and Front Door health-probe ones included
 * (Go's mappings for those are still to be written and fall back the same way), gets the body-map layout.
 */
export const CATEGORY_MAPPINGS: ReadonlyMap<string, CategoryMapping> = new Map([
  ['AzureCdnAccessLog', mapCdnAccessLog],
  ['FrontDoorAccessLog', mapFrontDoorAccessLog],
  ['FrontDoorWebApplicationFirewallLog', mapFrontDoorWafLog],
  ['Administrative', mapAdministrativeLog],
  ['Alert', mapAlertLog],
  ['Autoscale', mapAutoscaleLog],
  ['Security', mapSecurityLog],
  ['Policy', mapPolicyLog],
  ['Recommendation', mapRecommendationLog],
  ['ServiceHealth', mapServiceHealthLog],
  ['ResourceHealth', mapResourceHealthLog],
]);
