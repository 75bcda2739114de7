/**
 * Every invalid fixture (`test/fixtures/config/invalid_*.yaml`) makes both `validate` and a start fail
 * with exit code 2, each expected problem printed with its dotted path, and no secret in any output.
 * The fixtures name what they expect in `# expect:` lines and the secrets they hold in `# secret:` lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { startCli } from './cli-process.ts';

const FIXTURES = join(import.meta.dirname, '../fixtures/config');
/** Child processes run at once; each is a Node process compiling TypeScript, the machine has few cores. */
const PARALLEL = 3;

test('invalid fixtures fail validate and start with exit 2, their paths, and no secrets', {
  timeout: 180_000,
}, async (t) => {
  const fixtures = readdirSync(FIXTURES).filter((f) => f.startsWith('invalid_') && f.endsWith('.yaml'));
  assert.ok(fixtures.length >= 10);
  const jobs = fixtures.flatMap((name) =>
    [['validate', '--config'], ['--config']].map((args) => ({ name, args: [...args, join(FIXTURES, name)] })),
  );
  const failures: string[] = [];
  for (let i = 0; i < jobs.length; i += PARALLEL) {
    await Promise.all(
      jobs.slice(i, i + PARALLEL).map(async ({ name, args }) => {
        const text = readFileSync(join(FIXTURES, name), 'utf8');
        const expects = [...text.matchAll(/^# expect: (.*)$/gm)].map((m) => m[1]!);
        const secrets = [...text.matchAll(/^# secret: (.*)$/gm)].map((m) => m[1]!);
        // The run must fail before opening any port; metrics would otherwise claim 8888.
        const p = startCli(t, args);
        const code = await p.exited(60_000);
        const output = p.stdout() + p.stderr();
        const what = `${args[0]} ${name}`;
        if (code !== 2) failures.push(`${what}: exit ${code}\n${output}`);
        for (const e of expects)
          if (!output.includes(e)) failures.push(`${what}: missing ${JSON.stringify(e)} in\n${output}`);
        for (const s of secrets) if (output.includes(s)) failures.push(`${what}: leaked a secret`);
        if (/SharedAccessKey=(?!\*\*\*)|AccountKey=(?!\*\*\*)/.test(output))
          failures.push(`${what}: a key value in\n${output}`);
      }),
    );
  }
  assert.deepEqual(failures, []);
});
