import type { LogAttributes } from '@opentelemetry/api-logs';
import { putStr } from './attributes.ts';
import { asMap, asStr, type Fields } from './fields.ts';

/*
 * Activity Log identity (category_identity.go, category_activitylogs.go): selected JWT claims and the
 * authorization evidence as flat `azure.identity.*` attributes. Only these fields are taken, to keep
 * other claims (possibly sensitive) out, as the extension does.
 */

const CLAIMS: ReadonlyArray<readonly [string, string]> = [
  ['iss', 'azure.identity.issuer'],
  ['sub', 'azure.identity.subject'],
  ['aud', 'azure.identity.audience'],
  ['http://schemas.microsoft.com/identity/claims/scope', 'azure.identity.scope'],
  ['idtyp', 'azure.identity.type'],
  ['appid', 'azure.identity.application.id'],
  ['http://schemas.microsoft.com/claims/authnmethodsreferences', 'azure.identity.auth.methods.references'],
  ['http://schemas.microsoft.com/identity/claims/identityprovider', 'azure.identity.provider'],
  ['http://schemas.microsoft.com/identity/claims/objectidentifier', 'azure.identity.identifier.object'],
  ['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/nameidentifier', 'user.id'],
  ['http://schemas.xmlsoap.org/ws/2005/05/identity/claims/emailaddress', 'user.email'],
];

/** Unix-seconds claims, written as RFC 3339 UTC. */
const TIME_CLAIMS: ReadonlyArray<readonly [string, string]> = [
  ['exp', 'azure.identity.not_after'],
  ['nbf', 'azure.identity.not_before'],
  ['iat', 'azure.identity.created'],
];

const EVIDENCE: ReadonlyArray<readonly [string, string]> = [
  ['role', 'azure.identity.authorization.evidence.role'],
  ['roleAssignmentScope', 'azure.identity.authorization.evidence.role.assignment.scope'],
  ['roleAssignmentId', 'azure.identity.authorization.evidence.role.assignment.id'],
  ['roleDefinitionId', 'azure.identity.authorization.evidence.role.definition.id'],
  ['principalId', 'azure.identity.authorization.evidence.principal.id'],
  ['principalType', 'azure.identity.authorization.evidence.principal.type'],
];

export function putActivityIdentity(attrs: LogAttributes, identity: Fields): void {
  // Go reads claims as map[string]string: keys match exactly, and every value must be a string
  const claims = asMap(identity.get('claims'), 'claims');
  if (claims !== undefined) {
    for (const key in claims) asStr(claims[key], `claims.${key}`);
    const claim = (key: string): string => (Object.hasOwn(claims, key) ? (claims[key] as string | null) ?? '' : '');
    for (const [key, name] of CLAIMS) putStr(attrs, name, claim(key));
    for (const [key, name] of TIME_CLAIMS) {
      const text = claim(key);
      if (/^[+-]?\d+$/.test(text)) {
        const ms = Number(text) * 1000;
        if (Number.isSafeInteger(ms) && Math.abs(ms) <= 8.64e15) attrs[name] = new Date(ms).toISOString().replace('.000Z', 'Z');
      }
    }
  }
  const authorization = identity.obj('authorization');
  if (authorization === undefined) return;
  putStr(attrs, 'azure.identity.authorization.scope', authorization.str('scope'));
  putStr(attrs, 'azure.identity.authorization.action', authorization.str('action'));
  const evidence = authorization.obj('evidence');
  if (evidence === undefined) return;
  for (const [key, name] of EVIDENCE) putStr(attrs, name, evidence.str(key));
}
