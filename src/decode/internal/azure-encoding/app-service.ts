import { putFloat, putHostPort, putInt, putStr } from './attributes.ts';
import { NO_FIELDS, objectOrJsonString, type Fields } from './fields.ts';
import { mapBase, setBody, type CategoryMapper } from './mapped-record.ts';

/*
 * App Service categories (category_appservice.go). Every one accepts `properties` as an object or as a
 * string holding JSON, which is how App Service logs arrive through Event Hubs.
 */

/** The properties object (empty fields when absent). */
function propertiesOf(f: Fields): Fields {
  return objectOrJsonString(f.get('properties'), 'properties') ?? NO_FIELDS;
}

export const mapAppServiceAppLogs: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = propertiesOf(f);
  const a = m.attributes;
  putStr(a, 'container.id', p.str('containerId'));
  putStr(a, 'log.record.severity.original', p.str('customLevel'));
  putStr(a, 'exception.type', p.str('exceptionClass'));
  putStr(a, 'host.name', p.str('host'));
  putStr(a, 'log.record.logger', p.str('logger'));
  putStr(a, 'code.function.name', p.str('method'));
  putStr(a, 'log.file.path', p.str('source'));
  putStr(a, 'exception.stacktrace', p.str('stackTrace'));
  putStr(a, 'azure.app_service.instance.id', p.str('webSiteInstanceId'));
  setBody(m, p.str('message'));
};

export const mapAppServiceAuditLogs: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = propertiesOf(f);
  const a = m.attributes;
  putStr(a, 'user.id', p.str('user'));
  putStr(a, 'user.name', p.str('userDisplayName'));
  putStr(a, 'source.address', p.str('userAddress'));
  putStr(a, 'network.protocol.name', p.str('protocol').toLowerCase());
};

export const mapAppServiceAuthenticationLogs: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = propertiesOf(f);
  const a = m.attributes;
  putStr(a, 'azure.auth.event.details', p.str('details'));
  putStr(a, 'host.name', p.str('hostName'));
  putStr(a, 'azure.auth.module.runtime.version', p.str('moduleRuntimeVersion'));
  putStr(a, 'azure.app_service.site.name', p.str('siteName'));
  putInt(a, 'http.response.status_code', p.num('statusCode'));
  putInt(a, 'azure.http.response.sub_status_code', p.num('subStatusCode'));
  putStr(a, 'azure.app_service.task.name', p.str('taskName'));
  setBody(m, p.str('message'));
};

export const mapAppServiceConsoleLogs: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = propertiesOf(f);
  putStr(m.attributes, 'container.id', p.str('containerId'));
  putStr(m.attributes, 'host.name', p.str('host'));
};

/** HTTP logs. `Cookie` is left out on purpose (it may hold credentials), as Go does. */
export const mapAppServiceHttpLogs: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = propertiesOf(f);
  const a = m.attributes;
  putHostPort(a, 'client.address', 'client.port', p.str('CIp'));
  putStr(a, 'server.address', p.str('ComputerName'));
  putInt(a, 'server.port', p.num('SPort'));
  putInt(a, 'http.request.size', p.num('CsBytes'));
  putStr(a, 'http.request.header.host', p.str('CsHost'));
  putStr(a, 'http.request.method', p.str('CsMethod'));
  putStr(a, 'url.query', p.str('CsUriQuery'));
  putStr(a, 'url.path', p.str('CsUriStem'));
  putStr(a, 'user.name', p.str('CsUsername'));
  putStr(a, 'http.request.header.referer', p.str('Referer'));
  putInt(a, 'http.response.size', p.num('ScBytes'));
  putInt(a, 'http.response.status_code', p.num('ScStatus'));
  putStr(a, 'azure.http.response.sub_status_code', p.str('ScSubStatus'));
  putFloat(a, 'azure.request.duration', p.num('TimeTaken'));
  putStr(a, 'user_agent.original', p.str('UserAgent'));
  setBody(m, p.str('Result'));
};

export const mapAppServiceIpSecAuditLogs: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = propertiesOf(f);
  const a = m.attributes;
  putHostPort(a, 'source.address', 'source.port', p.str('CIp'));
  putStr(a, 'http.request.header.host', p.str('CsHost'));
  putStr(a, 'azure.auth.event.details', p.str('details'));
  putStr(a, 'azure.app_service.endpoint', p.str('ServiceEndpoint'));
  putStr(a, 'http.request.header.x-azure-fdid', p.str('XAzureFDID'));
  putStr(a, 'http.request.header.x-fd-healthprobe', p.str('XFDHealthProbe'));
  putStr(a, 'http.request.header.x-forwarded-for', p.str('XForwardedFor'));
  putStr(a, 'http.request.header.x-forwarded-host', p.str('XForwardedHost'));
  setBody(m, p.str('Result'));
};

export const mapAppServicePlatformLogs: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = propertiesOf(f);
  const a = m.attributes;
  putStr(a, 'container.id', p.str('containerId'));
  putStr(a, 'azure.deployment.id', p.str('deploymentId'));
  putStr(a, 'exception.message', p.str('Exception'));
  putStr(a, 'exception.stacktrace', p.str('stackTrace'));
  putStr(a, 'host.name', p.str('host'));
  setBody(m, p.str('message'));
};

export const mapAppServiceFileAuditLogs: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = propertiesOf(f);
  putStr(m.attributes, 'file.path', p.str('path'));
  putStr(m.attributes, 'process.title', p.str('process'));
};
