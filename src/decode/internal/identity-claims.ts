/*
 * The identity fields both Go components flatten into `azure.identity.*` attributes (the azurelogs
 * translator's addIdentityAttributes, the azure_encoding extension's category_identity.go): selected token
 * claims and the authorization evidence. Only these are taken, to keep other (possibly sensitive) claims out.
 */

/** A claim key → attribute name pair. */
export type ClaimAttribute = readonly [claim: string, attribute: string];

/** The name-identifier claim; the two Go components write it under different names (see identityClaims). */
const NAME_IDENTIFIER = 'http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier';

/**
 * String claims in Go's order. The azurelogs translator writes the name identifier as `user.name`, the
 * azure_encoding extension as `user.id`: the Go components differ, so the caller names it.
 */
export function identityClaims(nameIdentifierAttribute: 'user.name' | 'user.id'): readonly ClaimAttribute[] {
  return [
    ['iss', 'azure.identity.issuer'],
    ['sub', 'azure.identity.subject'],
    ['aud', 'azure.identity.audience'],
    ['http://schemas.microsoft.com/identity/claims/scope', 'azure.identity.scope'],
    ['idtyp', 'azure.identity.type'],
    ['appid', 'azure.identity.application.id'],
    ['http://schemas.microsoft.com/claims/authnmethodsreferences', 'azure.identity.auth.methods.references'],
    ['http://schemas.microsoft.com/identity/claims/identityprovider', 'azure.identity.provider'],
    ['http://schemas.microsoft.com/identity/claims/objectidentifier', 'azure.identity.identifier.object'],
    [NAME_IDENTIFIER, nameIdentifierAttribute],
    ['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'user.email'],
  ];
}

/** Unix-seconds claims, written as RFC 3339 UTC (unixSecondsRfc3339). */
export const IDENTITY_TIME_CLAIMS: readonly ClaimAttribute[] = [
  ['exp', 'azure.identity.not_after'],
  ['nbf', 'azure.identity.not_before'],
  ['iat', 'azure.identity.created'],
];

/** Fields of `authorization.evidence`. */
export const AUTHORIZATION_EVIDENCE: readonly ClaimAttribute[] = [
  ['role', 'azure.identity.authorization.evidence.role'],
  ['roleAssignmentScope', 'azure.identity.authorization.evidence.role.assignment.scope'],
  ['roleAssignmentId', 'azure.identity.authorization.evidence.role.assignment.id'],
  ['roleDefinitionId', 'azure.identity.authorization.evidence.role.definition.id'],
  ['principalId', 'azure.identity.authorization.evidence.principal.id'],
  ['principalType', 'azure.identity.authorization.evidence.principal.type'],
];

/**
 * time.Unix(s, 0).UTC().Format(time.RFC3339) (`2025-04-15T10:07:01Z`) for the seconds a JavaScript Date can
 * hold (±8.64e12 s); undefined beyond, where each caller keeps its own fallback.
 */
export function unixSecondsRfc3339(seconds: number): string | undefined {
  const ms = seconds * 1000;
  if (!Number.isSafeInteger(ms) || Math.abs(ms) > 8.64e15) return undefined;
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}
