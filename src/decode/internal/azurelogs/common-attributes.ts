import type { GoRecord } from './go-record.ts';
import { parseGoInt } from './go-values.ts';
import type { Attrs } from './put-helpers.ts';

/*
 * addCommonSchema and addIdentityAttributes of pkg/translator/azurelogs resourcelogs_to_logs.go: the
 * record attributes every record of a mapped category carries, after the category's own.
 */

function putIf(attrs: Attrs, key: string, value: string | undefined): void {
  if (value !== undefined && value !== '') attrs[key] = value;
}

export function putCommonAttributes(record: GoRecord, attrs: Attrs): void {
  attrs['azure.category'] = record.category;
  putIf(attrs, 'azure.correlation_id', record.correlationId);
  attrs['azure.operation.name'] = record.operationName;
  putIf(attrs, 'azure.operation.version', record.operationVersion);
  putIf(attrs, 'cloud.account.id', record.tenantId);
  putIf(attrs, 'azure.result.type', record.resultType);
  putIf(attrs, 'azure.result.signature', record.resultSignature);
  putIf(attrs, 'azure.result.description', record.resultDescription);
  putIf(attrs, 'network.peer.address', record.callerIpAddress);
  putIf(attrs, 'azure.location', record.location);
  if (record.durationMs !== undefined) {
    const duration = parseGoInt(record.durationMs);
    if (duration !== undefined) attrs['azure.duration'] = duration;
  }
  if (record.hasIdentity) putIdentityAttributes(record.identity, attrs);
}

/** Claim → attribute, in Go's order (identity claims of Azure Resource Manager tokens). */
const CLAIMS: readonly (readonly [string, string])[] = [
  ['iss', 'azure.identity.issuer'],
  ['sub', 'azure.identity.subject'],
  ['aud', 'azure.identity.audience'],
];
const TIME_CLAIMS: readonly (readonly [string, string])[] = [
  ['exp', 'azure.identity.not_after'],
  ['nbf', 'azure.identity.not_before'],
  ['iat', 'azure.identity.created'],
];
const MORE_CLAIMS: readonly (readonly [string, string])[] = [
  ['http://schemas.microsoft.com/identity/claims/scope', 'azure.identity.scope'],
  ['idtyp', 'azure.identity.type'],
  ['appid', 'azure.identity.application.id'],
  ['http://schemas.microsoft.com/claims/authnmethodsreferences', 'azure.identity.auth.methods.references'],
  ['http://schemas.microsoft.com/identity/claims/identityprovider', 'azure.identity.provider'],
  ['http://schemas.microsoft.com/identity/claims/objectidentifier', 'azure.identity.identifier.object'],
  ['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier', 'user.name'],
  ['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'user.email'],
];
const EVIDENCE: readonly (readonly [string, string])[] = [
  ['role', 'azure.identity.authorization.evidence.role'],
  ['roleAssignmentScope', 'azure.identity.authorization.evidence.role.assignment.scope'],
  ['roleAssignmentId', 'azure.identity.authorization.evidence.role.assignment.id'],
  ['roleDefinitionId', 'azure.identity.authorization.evidence.role.definition.id'],
  ['principalId', 'azure.identity.authorization.evidence.principal.id'],
  ['principalType', 'azure.identity.authorization.evidence.principal.type'],
];

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
  if (isObject(authorization) && (!stringsOnly(evidence) || typeof (field(authorization, 'scope') ?? '') !== 'string'
    || typeof (field(authorization, 'action') ?? '') !== 'string')) return;

  if (isObject(authorization)) {
    attrs['azure.identity.authorization.scope'] = str(authorization, 'scope');
    attrs['azure.identity.authorization.action'] = str(authorization, 'action');
    if (isObject(evidence)) for (const [name, key] of EVIDENCE) attrs[key] = str(evidence, name);
  }
  if (!isObject(claims)) return;
  for (const [name, key] of CLAIMS) putIf(attrs, key, claimOf(claims, name));
  for (const [name, key] of TIME_CLAIMS) {
    const text = claimOf(claims, name);
    const seconds = text === '' ? undefined : parseGoInt(text);
    if (seconds !== undefined) attrs[key] = rfc3339Seconds(seconds);
  }
  for (const [name, key] of MORE_CLAIMS) putIf(attrs, key, claimOf(claims, name));
}

/** A claim of Go's map[string]string: matched exactly, '' when absent. */
function claimOf(claims: Obj, name: string): string {
  const value = claims[name];
  return typeof value === 'string' ? value : '';
}

/** time.Unix(s, 0).UTC().Format(time.RFC3339): `2025-04-15T10:07:01Z`. */
function rfc3339Seconds(seconds: number): string {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) return String(seconds);
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}
