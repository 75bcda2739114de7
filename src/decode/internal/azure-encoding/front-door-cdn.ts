import { putFloat, putHostPort, putInt, putStr, putTlsProtocol } from './attributes.ts';
import { NO_FIELDS } from './fields.ts';
import { mapBase, setBody, type CategoryMapper } from './mapped-record.ts';
import { putUrl } from './url.ts';

/*
 * Front Door and CDN (category_azurecdn.go, category_frondoor.go). `AzureCdnAccessLog` and
 * `FrontDoorAccessLog` share one mapping; Azure writes "N/A" and "NoError" for absent values there.
 */

const NA = 'N/A';

export const mapHttpAccessLog: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = f.obj('properties') ?? NO_FIELDS;
  const a = m.attributes;
  putInt(a, 'http.request.size', p.num('requestBytes'));
  putInt(a, 'http.response.size', p.num('responseBytes'));
  putInt(a, 'client.port', p.num('clientPort'));
  putInt(a, 'http.response.status_code', p.num('httpStatusCode'));
  putFloat(a, 'azure.time_to_first_byte', p.num('timeToFirstByte'));
  putFloat(a, 'azure.request.duration', p.num('timeTaken'));
  putUrl(a, p.str('requestUri'));
  putStr(a, 'azure.service.request.id', p.str('trackingReference'));
  putStr(a, 'http.request.method', p.str('httpMethod'));
  putStr(a, 'network.protocol.version', p.str('httpVersion'));
  putStr(a, 'network.protocol.name', p.str('requestProtocol').toLowerCase());
  const sni = p.str('sni');
  if (sni !== NA) putStr(a, 'tls.server.name', sni);
  putStr(a, 'user_agent.original', p.str('userAgent'));
  putHostPort(a, 'client.address', 'client.port', p.str('clientIp'));
  putStr(a, 'network.peer.address', p.str('socketIp'));
  putStr(a, 'azure.cdn.edge.name', p.str('pop'));
  putStr(a, 'azure.cdn.cache.outcome', p.str('cacheStatus'));
  putTlsProtocol(a, p.str('securityProtocol'));
  const errorInfo = p.str('ErrorInfo');
  if (errorInfo !== 'NoError') putStr(a, 'exception.type', errorInfo);
  const result = p.str('result');
  if (result !== NA) setBody(m, result);
  putStr(a, 'tls.curve', p.str('securityCurves'));
  putStr(a, 'tls.cipher', p.str('securityCipher'));
  const backendHostname = p.strPtr('backendHostname');
  const originIp = p.str('originIp');
  // CDN names its origin `backendHostname`, Front Door `originIp`.
  putHostPort(a, 'server.address', 'server.port', backendHostname ?? originIp);
  putStr(a, 'network.local.address', p.str('endpoint'));
  putStr(a, 'http.request.header.host', p.strPtr('hostName'));
  const received = p.get('isReceivedFromClient');
  if (received !== undefined && received !== null) {
    a['network.io.direction'] = received === true ? 'receive' : 'transmit';
  }
};

export const mapFrontDoorHealthProbeLog: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = f.obj('properties') ?? NO_FIELDS;
  const a = m.attributes;
  putStr(a, 'azure.frontdoor.health_probe.id', p.str('healthProbeId'));
  putStr(a, 'azure.cdn.edge.name', p.str('POP'));
  putStr(a, 'http.request.method', p.str('httpVerb'));
  putInt(a, 'http.response.status_code', p.num('httpStatusCode'));
  putUrl(a, p.str('probeURL'));
  putStr(a, 'azure.frontdoor.health_probe.origin.name', p.str('originName'));
  putInt(a, 'azure.frontdoor.health_probe.origin.latency.total', p.num('totalLatencyMilliseconds'));
  putInt(a, 'azure.frontdoor.health_probe.origin.latency.connection', p.num('connectionLatencyMilliseconds'));
  putInt(a, 'azure.frontdoor.health_probe.origin.latency.dns', p.num('DNSLatencyMicroseconds'));
  putHostPort(a, 'server.address', 'server.port', p.str('originIP'));
  setBody(m, p.str('result'));
};

export const mapFrontDoorWafLog: CategoryMapper = (f, m) => {
  mapBase(f, m);
  const p = f.obj('properties') ?? NO_FIELDS;
  const a = m.attributes;
  putInt(a, 'client.port', p.num('clientPort'));
  putUrl(a, p.str('requestUri'));
  putHostPort(a, 'client.address', 'client.port', p.str('clientIP'));
  putStr(a, 'network.peer.address', p.str('socketIP'));
  putStr(a, 'azure.service.request.id', p.str('trackingReference'));
  putStr(a, 'http.request.header.host', p.str('host'));
  putStr(a, 'security_rule.ruleset.name', p.str('policy'));
  putStr(a, 'security_rule.ruleset.mode', p.str('policyMode'));
  putStr(a, 'security_rule.name', p.str('ruleName'));
  putStr(a, 'security_rule.action', p.str('action'));
};
