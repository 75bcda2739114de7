import type { GoRecord } from './go-record.ts';
import { parseGoInt } from './go-values.ts';
import { putIfSet, type Attrs } from './put-helpers.ts';
import {
  AUTHORIZATION_EVIDENCE,
  identityClaims,
  IDENTITY_TIME_CLAIMS,
  unixSecondsRfc3339,
} from '../identity-claims.ts';

/*
 * addCommonSchema and addIdentityAttributes of pkg/translator/azurelogs resourcelogs_to_logs.go: the
 * record attributes every record of a mapped category carries, after the category's own.
 */

export function putCommonAttributes(record: GoRecord, attrs: Attrs): void {
  attrs['azure.category'] = record.category;
  putIfSet(attrs, 'azure.correlation_id', record.correlationId);
  attrs['azure.operation.name'] = record.operationName;
  putIfSet(attrs, 'azure.operation.version', record.operationVersion);
  putIfSet(attrs, 'cloud.account.id', record.tenantId);
  putIfSet(attrs, 'azure.result.type', record.resultType);
  putIfSet(attrs, 'azure.result.signature', record.resultSignature);
  putIfSet(attrs, 'azure.result.description', record.resultDescription);
  putIfSet(attrs, 'network.peer.address', record.callerIpAddress);
  putIfSet(attrs, 'azure.location', record.location);
  if (record.durationMs !== undefined) {
    const duration = parseGoInt(record.durationMs);
    if (duration !== undefined) attrs['azure.duration'] = duration;
  }
  if (record.hasIdentity) putIdentityAttributes(record.identity, attrs);
}

/** Claim → attribute; Go writes the first three, then the time claims, then the rest. */
const ALL_CLAIMS = identityClaims('user.name');
const CLAIMS = ALL_CLAIMS.slice(0, 3);
const MORE_CLAIMS = ALL_CLAIMS.slice(3);

type Obj = Record<string, unknown>;
function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A struct field matched like Go (exact, else case-insensitive), or undefined. */
function field(o: Obj, name: string): unknown {
  if (name in o) return o[name];
  const lower = name.toLowerCase();
  for (const key in o) if (key.toLowerCase() === lower) return o[key];
  return undefined;
}

/** Go decodes into map[string]string / string fields or fails as a whole: mirror that check first. */
function stringsOnly(o: unknown): boolean {
  if (o === undefined || o === null) return true;
  if (!isObject(o)) return false;
  for (const key in o) if (o[key] !== null && typeof o[key] !== 'string') return false;
  return true;
}

function str(o: Obj, name: string): string {
  const v = field(o, name);
  return typeof v === 'string' ? v : '';
}

/**
 * Only the identity parts known to be useful (and not secret): the authorization scope, action and
 * evidence, and selected token claims. An identity Go cannot decode into its struct gives nothing.
 */
export function putIdentityAttributes(identity: unknown, attrs: Attrs): void {
  if (!isObject(identity)) return;
  const claims = field(identity, 'claims');
  const authorization = field(identity, 'authorization');
  if (!stringsOnly(claims)) return;
  if (authorization !== undefined && authorization !== null && !isObject(authorization)) return;
  const evidence = isObject(authorization) ? field(authorization, 'evidence') : undefined;
  if (
    isObject(authorization) &&
    (!stringsOnly(evidence) ||
      typeof (field(authorization, 'scope') ?? '') !== 'string' ||
      typeof (field(authorization, 'action') ?? '') !== 'string')
  )
    return;

  if (isObject(authorization)) {
    attrs['azure.identity.authorization.scope'] = str(authorization, 'scope');
    attrs['azure.identity.authorization.action'] = str(authorization, 'action');
    if (isObject(evidence)) for (const [name, key] of AUTHORIZATION_EVIDENCE) attrs[key] = str(evidence, name);
  }
  if (!isObject(claims)) return;
  for (const [name, key] of CLAIMS) putIfSet(attrs, key, claimOf(claims, name));
  for (const [name, key] of IDENTITY_TIME_CLAIMS) {
    const text = claimOf(claims, name);
    const seconds = text === '' ? undefined : parseGoInt(text);
    if (seconds !== undefined) attrs[key] = rfc3339Seconds(seconds);
  }
  for (const [name, key] of MORE_CLAIMS) putIfSet(attrs, key, claimOf(claims, name));
}

/** A claim of Go's map[string]string: matched exactly, '' when absent. */
function claimOf(claims: Obj, name: string): string {
  const value = claims[name];
  return typeof value === 'string' ? value : '';
}

/** time.Unix(s, 0).UTC().Format(time.RFC3339); beyond a Date's range, the seconds as text. */
function rfc3339Seconds(seconds: number): string {
  return unixSecondsRfc3339(seconds) ?? String(seconds);
}
