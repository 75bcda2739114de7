import { setOwn } from './go-struct.ts';
import { toGoFloat, toGoInt, toLower, tryParseFloat } from './go-values.ts';
import { cut } from './put-helpers.ts';

/**
 * Lifts one property into the body map (`body`) or keeps it under `properties` (`rest`): the per-category
 * handlers of pkg/translator/azurelogs property_names.go, used for the categories whose records Go
 * writes as a body map.
 */
export type PropertyLifter = (
  field: string,
  value: unknown,
  body: Record<string, unknown>,
  rest: Record<string, unknown>,
) => void;

/** A lifter from a field → attribute table (with an optional value conversion) plus special cases. */
function lifter(
  table: Readonly<Record<string, string | readonly [string, (v: unknown) => unknown]>>,
  special?: (field: string, value: unknown, body: Record<string, unknown>) => boolean,
): PropertyLifter {
  const map = new Map(Object.entries(table));
  return (field, value, body, rest) => {
    const target = map.get(field);
    if (target !== undefined) {
      if (typeof target === 'string') body[target] = value;
      else body[target[0]] = target[1](value);
      return;
    }
    if (special?.(field, value, body)) return;
    setOwn(rest, field, value);
  };
}

/** "<name><sep><version>" → lower-cased name and version; anything else is dropped, as in Go. */
function splitProtocol(
  value: unknown,
  sep: string,
  nameKey: string,
  versionKey: string,
  body: Record<string, unknown>,
): void {
  if (typeof value !== 'string') return;
  const [name, remaining] = cut(value, sep);
  if (name === '' || remaining === '') return;
  const [version, extra] = cut(remaining, sep);
  if (version === '' || extra !== '') return;
  body[nameKey] = name.toLowerCase();
  body[versionKey] = version;
}

/** A duration in `unit` per second, written in seconds; dropped when not a number, as in Go. */
function seconds(value: unknown, perSecond: number, key: string, body: Record<string, unknown>): void {
  const n = tryParseFloat(value);
  if (n !== undefined) body[key] = n / perSecond;
}

const frontDoorAccess = lifter(
  {
    trackingReference: 'az.service_request_id',
    httpMethod: 'http.request.method',
    httpVersion: 'network.protocol.version',
    requestUri: 'url.full',
    hostName: 'server.address',
    requestBytes: ['http.request.size', toGoInt],
    responseBytes: ['http.response.size', toGoInt],
    userAgent: 'user_agent.original',
    ClientIp: 'client.address',
    clientIp: 'client.address',
    ClientPort: 'client.port',
    clientPort: 'client.port',
    socketIp: 'network.peer.address',
    timeTaken: ['http.server.request.duration', toGoFloat],
    requestProtocol: ['network.protocol.name', toLower],
    securityCipher: 'tls.cipher',
    securityCurves: 'tls.curve',
    httpStatusCode: ['http.response.status_code', toGoInt],
    routeName: 'http.route',
    referer: 'http.request.header.referer',
    errorInfo: 'error.type',
  },
  (field, value, body) => {
    if (field !== 'securityProtocol') return false;
    splitProtocol(value, ' ', 'tls.protocol.name', 'tls.protocol.version', body);
    return true;
  },
);

const frontDoorHealthProbe = lifter(
  {
    httpVerb: 'http.request.method',
    httpStatusCode: ['http.response.status_code', toGoInt],
    probeURL: 'url.full',
    originIP: 'server.address',
  },
  (field, value, body) => {
    if (field === 'DNSLatencyMicroseconds') seconds(value, 1_000_000, 'dns.lookup.duration', body);
    else if (field === 'totalLatencyMilliseconds') seconds(value, 1_000, 'http.request.duration', body);
    else return false;
    return true;
  },
);

const appServiceApp = lifter({
  ContainerId: 'container.id',
  ExceptionClass: 'exception.type',
  Host: 'host.id',
  // Go's defaults (legacy names on, stable names off: pkg.translator.azurelogs feature gates, alpha).
  Method: 'code.function',
  Source: 'code.filepath',
  Stacktrace: 'exception.stacktrace',
  StackTrace: 'exception.stacktrace',
});

const appServiceAudit = lifter({
  Protocol: ['network.protocol.name', toLower],
  User: 'enduser.id',
  UserAddress: 'client.address',
});

const appServiceAuthentication = lifter({ StatusCode: ['http.response.status_code', toGoInt] });

const appServiceConsole = lifter({ ContainerId: 'container.id', Host: 'host.id' });

const appServiceHttp = lifter(
  {
    CIp: 'client.address',
    ComputerName: 'host.name',
    CsBytes: ['http.request.body.size', toGoInt],
    CsHost: 'url.domain',
    CsMethod: 'http.request.method',
    CsUriQuery: 'url.query',
    CsUriStem: 'url.path',
    Referer: 'http.request.header.referer',
    ScBytes: ['http.response.body.size', toGoInt],
    ScStatus: ['http.response.status_code', toGoInt],
    SPort: ['server.port', toGoInt],
    UserAgent: 'user_agent.original',
  },
  (field, value, body) => {
    if (field === 'TimeTaken') seconds(value, 1_000, 'http.server.request.duration', body);
    else if (field === 'Protocol') splitProtocol(value, '/', 'network.protocol.name', 'network.protocol.version', body);
    else return false;
    return true;
  },
);

const appServiceIpSecAudit = lifter({
  CIp: 'client.address',
  CsHost: 'url.domain',
  XAzureFDID: 'http.request.header.x-azure-fdid',
  XFDHealthProbe: 'http.request.header.x-fd-healthprobe',
  XForwardedFor: 'http.request.header.x-forwarded-for',
  XForwardedHost: 'http.request.header.x-forwarded-host',
});

const appServicePlatform = lifter({
  containerId: 'container.id',
  containerName: 'container.name',
  exception: 'error.type',
});

/** Category → lifter; categories without one keep every property under `properties`. */
export const BODY_LIFTERS: ReadonlyMap<string, PropertyLifter> = new Map([
  ['FrontDoorAccessLog', frontDoorAccess],
  ['FrontDoorHealthProbeLog', frontDoorHealthProbe],
  ['AppServiceAppLogs', appServiceApp],
  ['AppServiceAuditLogs', appServiceAudit],
  ['AppServiceAuthenticationLogs', appServiceAuthentication],
  ['AppServiceConsoleLogs', appServiceConsole],
  ['AppServiceHTTPLogs', appServiceHttp],
  ['AppServiceIPSecAuditLogs', appServiceIpSecAudit],
  ['AppServicePlatformLogs', appServicePlatform],
]);
