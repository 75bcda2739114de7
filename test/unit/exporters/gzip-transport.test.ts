import { test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { gunzipSync, gzipSync } from 'node:zlib';
import type { ExportResponse, IExporterTransport } from '@opentelemetry/otlp-exporter-base';
import { GzipTransport, gzipChunkBytes } from '../../../src/exporters/internal/gzip-transport.ts';

/** Keeps what it was asked to send. */
class Capture implements IExporterTransport {
  readonly bodies: Uint8Array[] = [];
  async send(data: Uint8Array): Promise<ExportResponse> {
    this.bodies.push(data);
    return { status: 'success' };
  }
  shutdown(): void {}
}

/** A body like an OTLP request: the same keys and resource over and over, values that differ. */
function repetitive(bytes: number): Buffer {
  const parts: string[] = [];
  let length = 0;
  for (let i = 0; length < bytes; i++) {
    const part =
      `{"category":"AuditEvent","resourceId":"/SUBSCRIPTIONS/0000/RESOURCEGROUPS/RG/PROVIDERS/` +
      `MICROSOFT.KEYVAULT/VAULTS/KV${i % 7}","time":"2026-11-24T03:${String(i % 60).padStart(2, '0')}:00Z","seq":${i}}`;
    parts.push(part);
    length += part.length;
  }
  return Buffer.from(parts.join('')).subarray(0, bytes);
}

test('gzipChunkBytes: a quarter of the body, within 16 KiB and 1 MiB', () => {
  assert.equal(gzipChunkBytes(0), 16 * 1024);
  assert.equal(gzipChunkBytes(40_000), 16 * 1024);
  assert.equal(gzipChunkBytes(1_350_000), 337_500);
  assert.equal(gzipChunkBytes(64 * 1024 * 1024), 1024 * 1024);
});

test('the body sent is the same gzip stream zlib makes at that level, whatever the chunk size', async () => {
  const inner = new Capture();
  const transport = new GzipTransport(inner, 6);
  // Compressible (one chunk), incompressible (its output spans several chunks), empty.
  const bodies = [repetitive(1_350_000), randomBytes(300_000), Buffer.alloc(0)];
  for (const body of bodies) assert.deepEqual(await transport.send(body, 1_000), { status: 'success' });
  assert.equal(inner.bodies.length, bodies.length);
  bodies.forEach((body, i) => {
    const sent = Buffer.from(inner.bodies[i]!);
    assert.ok(sent.equals(gzipSync(body, { level: 6 })), `body ${i}: the bytes of a one-shot gzip at level 6`);
    assert.ok(gunzipSync(sent).equals(body), `body ${i}: decompresses to what was given`);
  });
});

test('the level is the one given', async () => {
  const body = repetitive(500_000);
  const sizes: number[] = [];
  for (const level of [1, 9]) {
    const inner = new Capture();
    await new GzipTransport(inner, level).send(body, 1_000);
    const sent = Buffer.from(inner.bodies[0]!);
    assert.ok(sent.equals(gzipSync(body, { level })));
    sizes.push(sent.length);
  }
  assert.ok(sizes[0]! > sizes[1]!, `level 1 (${sizes[0]} B) is larger than level 9 (${sizes[1]} B)`);
});
