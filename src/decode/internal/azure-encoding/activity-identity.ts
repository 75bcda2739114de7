import type { LogAttributes } from '@opentelemetry/api-logs';
import { putStr } from './attributes.ts';
import { asMap, asStr, type Fields } from './fields.ts';
import {
  AUTHORIZATION_EVIDENCE,
  identityClaims,
  IDENTITY_TIME_CLAIMS,
  unixSecondsRfc3339,
} from '../identity-claims.ts';

/*
 * Activity Log identity (category_identity.go, category_activitylogs.go): selected JWT claims and the
 * authorization evidence as flat `azure.identity.*` attributes (the tables in ../identity-claims.ts).
 */

const CLAIMS = identityClaims('user.id');

export function putActivityIdentity(attrs: LogAttributes, identity: Fields): void {
  // Go reads claims as map[string]string: keys match exactly, and every value must be a string
  const claims = asMap(identity.get('claims'), 'claims');
  if (claims !== undefined) {
    for (const key in claims) asStr(claims[key], `claims.${key}`);
    const claim = (key: string): string => (Object.hasOwn(claims, key) ? ((claims[key] as string | null) ?? '') : '');
    for (const [key, name] of CLAIMS) putStr(attrs, name, claim(key));
    for (const [key, name] of IDENTITY_TIME_CLAIMS) {
      const text = claim(key);
      const time = /^[+-]?\d+$/.test(text) ? unixSecondsRfc3339(Number(text)) : undefined;
      if (time !== undefined) attrs[name] = time;
    }
  }
  const authorization = identity.obj('authorization');
  if (authorization === undefined) return;
  putStr(attrs, 'azure.identity.authorization.scope', authorization.str('scope'));
  putStr(attrs, 'azure.identity.authorization.action', authorization.str('action'));
  const evidence = authorization.obj('evidence');
  if (evidence === undefined) return;
  for (const [key, name] of AUTHORIZATION_EVIDENCE) putStr(attrs, name, evidence.str(key));
}
