/**
 * A well-formed but unsigned JWT (RFC 7519 compact form: base64url header, payload and signature), for
 * TokenCredentials in tests. The emulator cannot verify Entra ID tokens and accepts a `jwt` claim whose
 * token has this shape; anything else typed `jwt` is checked as a SAS token (docs/emulator.md).
 */
export function fakeJwt(subject: string, expiresOnMs = Date.now() + 3_600_000): string {
  const part = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');
  const header = part({ alg: 'RS256', typ: 'JWT' });
  const payload = part({ sub: subject, exp: Math.floor(expiresOnMs / 1000) });
  const signature = Buffer.from('test-signature').toString('base64url');
  return `${header}.${payload}.${signature}`;
}
