import { readFile } from 'node:fs/promises';

/** The distribution's version from its package.json (`unknown` when unreadable), for `--version` and self-telemetry. */
export async function packageVersion(): Promise<string> {
  try {
    const pkg = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
      version?: string;
    };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
