import * as activity from './activity-logs.ts';
import { mapServiceHealth } from './activity-administrative.ts';
import * as agw from './application-gateway.ts';
import * as appService from './app-service.ts';
import * as dataFactory from './data-factory.ts';
import * as frontDoor from './front-door-cdn.ts';
import { mapFunctionAppLogs } from './function-app.ts';
import { mapGeneric, type CategoryMapper } from './mapped-record.ts';
import * as messaging from './messaging.ts';
import { mapStorageBlobLog } from './storage.ts';

/** The categories the extension maps (category.go's processLogRecord); any other uses mapGeneric. */
const CATEGORIES: ReadonlyMap<string, CategoryMapper> = new Map<string, CategoryMapper>([
  ['ApplicationGatewayAccessLog', agw.mapAgwAccessLog],
  ['ApplicationGatewayPerformanceLog', agw.mapAgwPerformanceLog],
  ['ApplicationGatewayFirewallLog', agw.mapAgwFirewallLog],
  ['AppServiceAppLogs', appService.mapAppServiceAppLogs],
  ['AppServiceAuditLogs', appService.mapAppServiceAuditLogs],
  ['AppServiceAuthenticationLogs', appService.mapAppServiceAuthenticationLogs],
  ['AppServiceConsoleLogs', appService.mapAppServiceConsoleLogs],
  ['AppServiceHTTPLogs', appService.mapAppServiceHttpLogs],
  ['AppServiceIPSecAuditLogs', appService.mapAppServiceIpSecAuditLogs],
  ['AppServicePlatformLogs', appService.mapAppServicePlatformLogs],
  ['AppServiceFileAuditLogs', appService.mapAppServiceFileAuditLogs],
  ['AzureCdnAccessLog', frontDoor.mapHttpAccessLog],
  ['FrontDoorAccessLog', frontDoor.mapHttpAccessLog],
  ['FrontDoorHealthProbeLog', frontDoor.mapFrontDoorHealthProbeLog],
  ['FrontDoorWebApplicationFirewallLog', frontDoor.mapFrontDoorWafLog],
  ['ApplicationMetricsLogs', messaging.mapApplicationMetricsLogs],
  ['DiagnosticErrorLogs', messaging.mapDiagnosticErrorLogs],
  ['OperationalLogs', messaging.mapOperationalLogs],
  ['RuntimeAuditLogs', messaging.mapRuntimeAuditLogs],
  ['VNetAndIPFilteringLogs', messaging.mapVNetAndIpFilteringLogs],
  ['ActivityRuns', dataFactory.mapActivityRuns],
  ['PipelineRuns', dataFactory.mapPipelineRuns],
  ['TriggerRuns', dataFactory.mapTriggerRuns],
  ['FunctionAppLogs', mapFunctionAppLogs],
  ['StorageRead', mapStorageBlobLog],
  ['StorageWrite', mapStorageBlobLog],
  ['StorageDelete', mapStorageBlobLog],
  ['Administrative', activity.mapAdministrative],
  ['Alert', activity.mapAlert],
  ['Autoscale', activity.mapAutoscale],
  ['Security', activity.mapSecurity],
  ['Policy', activity.mapPolicy],
  ['ServiceHealth', mapServiceHealth],
  ['Recommendation', activity.mapRecommendation],
  ['ResourceHealth', activity.mapResourceHealth],
]);

export function mapperFor(category: string): CategoryMapper {
  return CATEGORIES.get(category) ?? mapGeneric;
}

/*
 * The `encoding.format` scope attribute per category: the log family, as the extension's constants/format.go
 * (FormatForCategory, read at commit f3ad2735) gives it; `AuditEvent` is `azure.audit` (its FormatAudit, as its
 * golden general/maximum output has it); any other category `azure.generic`.
 */
const FAMILIES: readonly (readonly [string, readonly string[]])[] = [
  [
    'azure.application_gateway',
    ['ApplicationGatewayAccessLog', 'ApplicationGatewayPerformanceLog', 'ApplicationGatewayFirewallLog'],
  ],
  [
    'azure.appservice',
    [
      'AppServiceAppLogs',
      'AppServiceAuditLogs',
      'AppServiceAuthenticationLogs',
      'AppServiceConsoleLogs',
      'AppServiceFileAuditLogs',
      'AppServiceHTTPLogs',
      'AppServiceIPSecAuditLogs',
      'AppServicePlatformLogs',
    ],
  ],
  ['azure.cdn', ['AzureCdnAccessLog']],
  [
    'azure.messaging',
    ['ApplicationMetricsLogs', 'DiagnosticErrorLogs', 'OperationalLogs', 'RuntimeAuditLogs', 'VNetAndIPFilteringLogs'],
  ],
  ['azure.datafactory', ['ActivityRuns', 'PipelineRuns', 'TriggerRuns']],
  ['azure.frontdoor', ['FrontDoorAccessLog', 'FrontDoorHealthProbeLog', 'FrontDoorWebApplicationFirewallLog']],
  ['azure.function_app', ['FunctionAppLogs']],
  ['azure.storage', ['StorageRead', 'StorageWrite', 'StorageDelete']],
  [
    'azure.activity',
    ['Administrative', 'Alert', 'Autoscale', 'Policy', 'Recommendation', 'ResourceHealth', 'Security', 'ServiceHealth'],
  ],
  ['azure.audit', ['AuditEvent']],
];
const FORMAT_OF_CATEGORY: ReadonlyMap<string, string> = new Map(
  FAMILIES.flatMap(([format, categories]) => categories.map((c): [string, string] => [c, format])),
);

/** The extension's `encoding.format` for a category. */
export function encodingFormatFor(category: string): string {
  return FORMAT_OF_CATEGORY.get(category) ?? 'azure.generic';
}
