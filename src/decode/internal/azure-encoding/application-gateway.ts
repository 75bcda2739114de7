import {
  float64Of,
  int64Of,
  putDouble,
  putFloat,
  putHostPort,
  putHttpProtocol,
  putInt,
  putMap,
  putStr,
  putTlsProtocol,
} from './attributes.ts';
import { asMap, NO_FIELDS } from './fields.ts';
import { mapBase, setBody, type CategoryMapper } from './mapped-record.ts';

/*
 * Application Gateway (category_agw.go). The instance id goes to the resource as `service.instance.id`.
 * Some v2 numeric fields arrive as strings, "-" or "" when unknown: those set nothing.
 */

/** Go's convertStringToJSONNumber: the text when it looks like a number, else nothing. */
function numberLike(s: string): string | undefined {
  return s === '' || s === '-' || !/^[0-9.eE+-]+$/.test(s) ? undefined : s;
}

export const mapAgwAccessLog: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = f.obj('properties') ?? NO_FIELDS;
  m.resource.serviceInstanceId = p.str('instanceId');
  const a = m.attributes;
  putStr(a, 'azure.agw.listener.name', f.str('listenerName'));
  putStr(a, 'azure.agw.rule.name', f.str('ruleName'));
  putStr(a, 'azure.agw.backend.pool.name', f.str('backendPoolName'));
  putStr(a, 'azure.agw.backend.setting.name', f.str('backendSettingName'));
  putStr(a, 'client.address', p.str('clientIP'));
  putInt(a, 'client.port', p.num('clientPort'));
  putStr(a, 'http.request.method', p.str('httpMethod'));
  // requestUri is a path, not an absolute URL
  putStr(a, 'url.original', p.str('originalRequestUriWithArgs'));
  putStr(a, 'url.path', p.str('requestUri'));
  putStr(a, 'url.query', p.str('requestQuery'));
  putStr(a, 'user_agent.original', p.str('userAgent'));
  putInt(a, 'http.response.status_code', p.num('httpStatus'));
  putHttpProtocol(a, p.str('httpVersion'));
  putInt(a, 'http.request.size', p.num('receivedBytes'));
  putInt(a, 'http.response.size', p.num('sentBytes'));
  putFloat(a, 'azure.request.duration', p.num('timeTaken'));
  putStr(a, 'tls.enabled', p.str('sslEnabled'));
  putStr(a, 'host.name', p.str('host'));
  putStr(a, 'http.request.header.host', p.str('originalHost'));
  putStr(a, 'tls.cipher', p.str('sslCipher'));
  putTlsProtocol(a, p.str('sslProtocol'));
  putHostPort(a, 'server.address', 'server.port', p.str('serverRouted'));
  const status = int64Of(numberLike(p.str('serverStatus')));
  if (status !== undefined) a['azure.agw.backend.status_code'] = status;
  const localPort = int64Of(numberLike(p.str('upstreamSourcePort')));
  if (localPort !== undefined) a['network.local.port'] = localPort;
  putDouble(a, 'azure.agw.backend.latency', float64Of(numberLike(p.str('serverResponseLatency'))));
  putFloat(a, 'azure.agw.latency', p.num('clientResponseTime'));
  putDouble(a, 'azure.firewall.evaluation.duration', float64Of(numberLike(p.str('WAFEvaluationTime'))));
  putStr(a, 'security_rule.ruleset.mode', p.str('WAFMode'));
  putStr(a, 'azure.service.request.id', p.str('transactionId'));
  putStr(a, 'error.type', p.str('error_info'));
};

export const mapAgwPerformanceLog: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = f.obj('properties') ?? NO_FIELDS;
  m.resource.serviceInstanceId = p.str('instanceId');
  const a = m.attributes;
  putInt(a, 'azure.agw.backend.healthy.count', p.num('healthyHostCount'));
  putInt(a, 'azure.agw.backend.unhealthy.count', p.num('unHealthyHostCount'));
  putInt(a, 'azure.agw.request.count', p.num('requestCount'));
  putInt(a, 'azure.agw.backend.latency', p.num('latency'));
  putInt(a, 'azure.agw.request.failed', p.num('failedRequestCount'));
  putInt(a, 'azure.agw.throughput', p.num('throughput'));
};

export const mapAgwFirewallLog: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = f.obj('properties') ?? NO_FIELDS;
  m.resource.serviceInstanceId = p.str('instanceId');
  const a = m.attributes;
  putStr(a, 'client.address', p.str('clientIp'));
  putInt(a, 'client.port', p.num('clientPort'));
  putStr(a, 'url.original', p.str('requestUri'));
  putStr(a, 'security_rule.category', p.str('ruleSetType'));
  putStr(a, 'security_rule.version', p.str('ruleSetVersion'));
  putStr(a, 'security_rule.uuid', p.str('ruleId'));
  putStr(a, 'security_rule.ruleset.name', p.str('ruleGroup'));
  putStr(a, 'security_rule.action', p.str('action'));
  putStr(a, 'azure.firewall.site', p.str('site'));
  putMap(a, 'azure.firewall.evaluation.details', asMap(p.get('details'), 'details'));
  putStr(a, 'host.name', p.str('hostname'));
  putStr(a, 'azure.service.request.id', p.str('transactionId'));
  putStr(a, 'azure.firewall.policy.id', p.str('policyId'));
  putStr(a, 'azure.firewall.policy.scope.type', p.str('policyScope'));
  putStr(a, 'azure.firewall.policy.object.name', p.str('policyScopeName'));
  setBody(m, p.str('message'));
};
