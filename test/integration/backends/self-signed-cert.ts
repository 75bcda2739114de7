/**
 * A throw-away TLS certificate for `localhost`/127.0.0.1, for emulator tests that need TLS (the SDK
 * always uses TLS with a TokenCredential). The SDK cannot be given a CA, so the calling test process
 * turns certificate verification off; loopback only.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export function createSelfSignedCert(): { cert: Buffer; key: Buffer } {
  const dir = mkdtempSync(join(tmpdir(), 'backends-tls-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
      ],
      { stdio: 'ignore', timeout: 20_000 },
    );
    return { cert: readFileSync(join(dir, 'cert.pem')), key: readFileSync(join(dir, 'key.pem')) };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Trusts any server certificate in this (test) process. */
export function trustAnyCertificate(): void {
  process.env.NODE_TLS_REJECT_UNAUTHORIZED = '0';
}
