import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { EventHubProducerClient } from '@azure/event-hubs';
import { startTestEmulator } from '../../helpers/emulator.ts';
import { siblingModule } from '../../helpers/sibling-module.ts';

const TLS_CLIENT = siblingModule(import.meta.url, 'fixtures/tls-client');
import { FAST_RETRY } from './sdk-helpers.ts';

const KEY_NAME = 'sender';
const KEY = 'c2VjcmV0LWtleS1mb3ItdGVzdHM=';
/** The SDK marks UnauthorizedError retryable and aggregates retried failures; one attempt keeps the error plain. */
const NO_RETRY = { ...FAST_RETRY, maxRetries: 0 };

function sasToken(resource: string, keyName: string, key: string, expirySeconds: number): string {
  const sr = encodeURIComponent(resource);
  const sig = encodeURIComponent(createHmac('sha256', key).update(`${sr}\n${expirySeconds}`).digest('base64'));
  return `SharedAccessSignature sr=${sr}&sig=${sig}&se=${expirySeconds}&skn=${keyName}`;
}

test(
  'with SAS keys configured, signatures, expiry and scope are verified and refused with ' + 'amqp:unauthorized-access',
  async (t) => {
    const { emulator, hubName, connectionString, track } = await startTestEmulator(t, {
      partitions: 1,
      sasKeys: { [KEY_NAME]: KEY },
    });
    assert.match(connectionString, new RegExp(`SharedAccessKeyName=${KEY_NAME};SharedAccessKey=`));
    const good = track(new EventHubProducerClient(connectionString, { retryOptions: FAST_RETRY }));
    await good.sendBatch([{ body: 'signed' }]);
    assert.equal((await good.getPartitionProperties('0')).lastEnqueuedSequenceNumber, 0);

    const wrongKey = track(
      new EventHubProducerClient(connectionString.replace(KEY, 'd3Jvbmc='), { retryOptions: NO_RETRY }),
    );
    await assert.rejects(wrongKey.getEventHubProperties(), (err: any) => {
      assert.equal(err.code, 'UnauthorizedError');
      assert.ok(!err.message.includes(KEY), 'the key never appears in errors');
      return true;
    });

    const endpoint = `sb://127.0.0.1:${emulator.port}`;
    const withToken = (token: string) =>
      `Endpoint=${endpoint}/;SharedAccessSignature=${token};UseDevelopmentEmulator=true;EntityPath=${hubName}`;
    const now = Math.floor(Date.now() / 1000);
    // A SharedAccessSignature connection string has no key name: the SDK skips SASL, so this also checks
    // that the server accepts the bare AMQP header.
    const valid = track(
      new EventHubProducerClient(withToken(sasToken(`${endpoint}/`, KEY_NAME, KEY, now + 600)), {
        retryOptions: FAST_RETRY,
      }),
    );
    assert.equal((await valid.getEventHubProperties()).name, hubName);

    const expired = track(
      new EventHubProducerClient(withToken(sasToken(`${endpoint}/`, KEY_NAME, KEY, now - 60)), {
        retryOptions: NO_RETRY,
      }),
    );
    await assert.rejects(
      expired.getEventHubProperties(),
      (err: any) => err.code === 'UnauthorizedError' && /expired/i.test(err.message),
    );

    const otherHub = track(
      new EventHubProducerClient(withToken(sasToken(`${endpoint}/someotherhub`, KEY_NAME, KEY, now + 600)), {
        retryOptions: NO_RETRY,
      }),
    );
    await assert.rejects(otherHub.sendBatch([{ body: 'x' }]), (err: any) => err.code === 'UnauthorizedError');

    const unknownName = track(
      new EventHubProducerClient(withToken(sasToken(`${endpoint}/`, 'nobody', KEY, now + 600)), {
        retryOptions: NO_RETRY,
      }),
    );
    await assert.rejects(unknownName.getEventHubProperties(), (err: any) => err.code === 'UnauthorizedError');
    assert.equal(
      (await good.getPartitionProperties('0')).lastEnqueuedSequenceNumber,
      0,
      'refused senders wrote nothing',
    );
  },
);

test(
  'over TLS with a given certificate the unmodified SDK sends and receives (AMQPS, no UseDevelopmentEmulator), ' +
    'with SAS and with a jwt credential',
  async (t) => {
    const dir = mkdtempSync(join(tmpdir(), 'emulator-tls-'));
    t.after(() => rmSync(dir, { recursive: true, force: true }));
    const certPath = join(dir, 'cert.pem');
    const keyPath = join(dir, 'key.pem');
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        '/CN=127.0.0.1',
        '-addext',
        'subjectAltName=IP:127.0.0.1',
        '-keyout',
        keyPath,
        '-out',
        certPath,
      ],
      { stdio: 'ignore' },
    );
    const { connectionString } = await startTestEmulator(t, {
      partitions: 1,
      tls: { cert: readFileSync(certPath), key: readFileSync(keyPath) },
    });
    assert.ok(!connectionString.includes('UseDevelopmentEmulator'), 'TLS connection strings make the SDK use TLS');
    const output = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [...TLS_CLIENT.execArgv, TLS_CLIENT.path], {
        env: { ...process.env, NODE_EXTRA_CA_CERTS: certPath, EMULATOR_CONNECTION_STRING: connectionString },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let out = '';
      const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.resume();
      child.on('error', reject);
      child.on('exit', () => {
        clearTimeout(timer);
        resolve(out);
      });
    });
    const line = output.trim().split('\n').pop() ?? '';
    assert.deepEqual(JSON.parse(line), { ok: true, body: 'over tls', jwtPartitions: ['0'] });
  },
);
