import { decodeGoStruct, type GoStructSpec, type GoStructValue } from './go-struct.ts';
import {
  cut,
  putDestination,
  putErrorInfo,
  putInt,
  putMillis,
  putRequestUri,
  putSecurityProtocol,
  putStr,
  type Attrs,
} from './put-helpers.ts';

/*
 * The HTTP-style categories pkg/translator/azurelogs maps to record attributes (category_logs.go):
 * AzureCdnAccessLog, FrontDoorAccessLog, FrontDoorWebApplicationFirewallLog. Each throws (GoValueError)
 * where Go's mapping returns an error.
 */

const S = 'string' as const;

const CDN_ACCESS: GoStructSpec = [
  ['trackingReference', S],
  ['httpMethod', S],
  ['httpVersion', S],
  ['requestUri', S],
  ['sni', S],
  ['requestBytes', S],
  ['responseBytes', S],
  ['userAgent', S],
  ['clientIp', S],
  ['clientPort', S],
  ['socketIp', S],
  ['timeToFirstByte', S],
  ['timeTaken', S],
  ['requestProtocol', S],
  ['securityProtocol', S],
  ['httpStatusCode', S],
  ['pop', S],
  ['cacheStatus', S],
  ['errorInfo', S],
  ['ErrorInfo', S],
  ['endpoint', S],
  ['isReceivedFromClient', 'bool'],
  ['backendHostname', S],
];

const FRONT_DOOR_ACCESS: GoStructSpec = [
  ['trackingReference', S],
  ['httpMethod', S],
  ['httpVersion', S],
  ['requestUri', S],
  ['sni', S],
  ['requestBytes', S],
  ['responseBytes', S],
  ['userAgent', S],
  ['clientIp', S],
  ['clientPort', S],
  ['socketIp', S],
  ['timeToFirstByte', S],
  ['timeTaken', S],
  ['requestProtocol', S],
  ['securityProtocol', S],
  ['httpStatusCode', S],
  ['pop', S],
  ['cacheStatus', S],
  ['errorInfo', S],
  ['ErrorInfo', S],
  ['result', S],
  ['endpoint', S],
  ['hostName', S],
  ['securityCipher', S],
  ['securityCurves', S],
  ['originIp', S],
];

const FRONT_DOOR_WAF: GoStructSpec = [
  ['clientIP', S],
  ['clientPort', S],
  ['socketIP', S],
  ['requestUri', S],
  ['ruleName', S],
  ['policy', S],
  ['action', S],
  ['host', S],
  ['trackingReference', S],
  ['policyMode', S],
];

type Fields = Readonly<Record<string, unknown>>;
const str = (f: Fields, name: string): string => f[name] as string;

/** The numbers and the request line both access logs share. */
function putAccessCommon(attrs: Attrs, f: Fields): void {
  putInt(attrs, 'http.request.size', str(f, 'requestBytes'));
  putInt(attrs, 'http.response.size', str(f, 'responseBytes'));
  putInt(attrs, 'client.port', str(f, 'clientPort'));
  putInt(attrs, 'http.response.status_code', str(f, 'httpStatusCode'));
  putMillis(attrs, 'azure.time_to_first_byte', str(f, 'timeToFirstByte'));
  putMillis(attrs, 'duration', str(f, 'timeTaken'));
  putRequestUri(attrs, str(f, 'requestUri'));
  putSecurityProtocol(attrs, str(f, 'securityProtocol'));
}

function putAccessTail(attrs: Attrs, f: Fields): void {
  putStr(attrs, 'azure.ref', str(f, 'trackingReference'));
  putStr(attrs, 'http.request.method', str(f, 'httpMethod'));
  putStr(attrs, 'network.protocol.version', str(f, 'httpVersion'));
  putStr(attrs, 'network.protocol.name', str(f, 'requestProtocol'));
  putStr(attrs, 'tls.server.name', str(f, 'sni'));
  putStr(attrs, 'user_agent.original', str(f, 'userAgent'));
  putStr(attrs, 'client.address', str(f, 'clientIp'));
  putStr(attrs, 'source.address', str(f, 'socketIp'));
  putStr(attrs, 'azure.pop', str(f, 'pop'));
  putStr(attrs, 'azure.cache_status', str(f, 'cacheStatus'));
}

export function mapCdnAccessLog(properties: Record<string, unknown>, attrs: Attrs): GoStructValue {
  const decoded = decodeGoStruct(properties, CDN_ACCESS, 'AzureCdnAccessLog properties');
  const f = decoded.fields;
  putAccessCommon(attrs, f);
  putDestination(attrs, str(f, 'backendHostname'), str(f, 'endpoint'));
  putErrorInfo(attrs, str(f, 'errorInfo'), str(f, 'ErrorInfo'));
  putAccessTail(attrs, f);
  attrs['network.io.direction'] = f.isReceivedFromClient === true ? 'receive' : 'transmit';
  return decoded;
}

export function mapFrontDoorAccessLog(properties: Record<string, unknown>, attrs: Attrs): GoStructValue {
  const decoded = decodeGoStruct(properties, FRONT_DOOR_ACCESS, 'FrontDoorAccessLog properties');
  const f = decoded.fields;
  putAccessCommon(attrs, f);
  putDestination(attrs, str(f, 'hostName'), str(f, 'endpoint'));
  putErrorInfo(attrs, str(f, 'errorInfo'), str(f, 'ErrorInfo'));
  const originIp = str(f, 'originIp');
  if (originIp !== '' && originIp !== 'N/A') {
    const [address, port] = cut(originIp, ':');
    putStr(attrs, 'server.address', address);
    if (port !== '') putInt(attrs, 'server.port', port);
  }
  putAccessTail(attrs, f);
  putStr(attrs, 'tls.curve', str(f, 'securityCurves'));
  putStr(attrs, 'tls.cipher', str(f, 'securityCipher'));
  return decoded;
}

export function mapFrontDoorWafLog(properties: Record<string, unknown>, attrs: Attrs): GoStructValue {
  const decoded = decodeGoStruct(properties, FRONT_DOOR_WAF, 'FrontDoorWebApplicationFirewallLog properties');
  const f = decoded.fields;
  putInt(attrs, 'client.port', str(f, 'clientPort'));
  putRequestUri(attrs, str(f, 'requestUri'));
  putStr(attrs, 'client.address', str(f, 'clientIP'));
  putStr(attrs, 'source.address', str(f, 'socketIP'));
  putStr(attrs, 'azure.ref', str(f, 'trackingReference'));
  putStr(attrs, 'http.request.header.host', str(f, 'host'));
  putStr(attrs, 'azure.frontdoor.waf.policy.name', str(f, 'policy'));
  putStr(attrs, 'azure.frontdoor.waf.policy.mode', str(f, 'policyMode'));
  putStr(attrs, 'azure.frontdoor.waf.rule.name', str(f, 'ruleName'));
  putStr(attrs, 'azure.frontdoor.waf.action', str(f, 'action'));
  return decoded;
}
