import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

test('examples/embedding.ts runs against the emulator and exports the sample records', {
  timeout: 60_000,
}, async () => {
  const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--import', 'tsx', 'examples/embedding.ts'], {
    timeout: 50_000,
    env: { ...process.env, EVENTHUB_CONNECTION: '' },
  });
  assert.match(stdout, /AuditEvent SecretGet/);
  assert.match(stdout, /Administrative MICROSOFT\.COMPUTE\/VIRTUALMACHINES\/WRITE/);
  assert.match(stderr, /exported 3 records/);
});
