import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from '../../../src/component/errors.ts';
import { loadConfig } from '../../../src/config/load-config.ts';

async function tempDir(t: { after: (fn: () => Promise<void>) => void }): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'load-config-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

describe('loadConfig', () => {
  test('merges files in order, then --set, then expands ${env:...}', async (t) => {
    const dir = await tempDir(t);
    await writeFile(
      join(dir, 'a.yaml'),
      'receivers:\n  r:\n    group: a\n    connection: ${env:CONN}\nservice:\n  pipelines:\n    logs:\n      ' +
        'exporters: [x, y]\n',
    );
    await writeFile(
      join(dir, 'b.yaml'),
      'receivers:\n  r:\n    group: b\nservice:\n  pipelines:\n    logs:\n      exporters: [z]\n',
    );
    const loaded = await loadConfig({
      configs: [join(dir, 'a.yaml'), join(dir, 'b.yaml')],
      sets: ['receivers.r.partition=${env:P}', 'receivers.r.extra={a: 1}'],
      env: { CONN: 'c', P: '3' },
    });
    assert.deepEqual(loaded.raw, {
      receivers: { r: { group: 'b', connection: 'c', partition: 3, extra: { a: 1 } } },
      service: { pipelines: { logs: { exporters: ['z'] } } },
    });
    assert.deepEqual(loaded.unset, []);
  });

  test('an empty file is an empty map; yaml: gives a document inline', async (t) => {
    const dir = await tempDir(t);
    await writeFile(join(dir, 'empty.yaml'), '# nothing\n');
    const loaded = await loadConfig({ configs: [join(dir, 'empty.yaml'), 'yaml:a: {b: 1}'], env: {} });
    assert.deepEqual(loaded.raw, { a: { b: 1 } });
  });

  test(
    'every problem of every source at once: missing file, YAML errors with positions, bad --set, bad ' + 'reference',
    async (t) => {
      const dir = await tempDir(t);
      const secret = 'c2VjcmV0LWluLXlhbWw=';
      await writeFile(
        join(dir, 'broken.yaml'),
        `a:\n  connection: Endpoint=sb://x/;SharedAccessKey=${secret}\n b: 1\n`,
      );
      await writeFile(join(dir, 'dup.yaml'), 'a: 1\na: 2\n');
      await writeFile(join(dir, 'list.yaml'), '- 1\n- 2\n');
      await writeFile(join(dir, 'ref.yaml'), 'x: ${env:1BAD}\n');
      await assert.rejects(
        loadConfig({
          configs: [
            join(dir, 'missing.yaml'),
            join(dir, 'broken.yaml'),
            join(dir, 'dup.yaml'),
            join(dir, 'list.yaml'),
            join(dir, 'ref.yaml'),
          ],
          sets: ['novalue'],
          env: {},
        }),
        (e: ConfigError) => {
          assert.ok(e instanceof ConfigError);
          const text = e.issues.join('\n');
          assert.match(text, /missing\.yaml: cannot read the config file \(no such file\)/);
          assert.match(text, /broken\.yaml: .* at line 3, column \d+/);
          assert.match(text, /dup\.yaml: Map keys must be unique at line 2/);
          assert.match(text, /list\.yaml: the document must be a map/);
          assert.match(text, /--set 'novalue': expected key::path=value/);
          assert.match(text, /^x: '\$\{env:1BAD\}' does not name an environment variable/m);
          assert.ok(!text.includes(secret), 'the YAML source line is never quoted');
          return true;
        },
      );
    },
  );

  test('no --config is an error', async () => {
    await assert.rejects(loadConfig({ configs: [] }), /--config: required/);
  });
});
