import { accessSync, constants } from 'node:fs';

/** Where Debian's and Ubuntu's packages put the browser. */
const CANDIDATES = ['/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'];

/** The message a page test fails with when no browser is installed: it installs nothing itself. */
export function noChromiumMessage(env: Record<string, string | undefined> = process.env): string {
  const looked = env.CHROMIUM_PATH ? `CHROMIUM_PATH=${env.CHROMIUM_PATH}` : CANDIDATES.join(', ');
  return (
    `no Chromium found (looked at ${looked}). Install Debian's package with \`apt-get install -y chromium\` ` +
    '(as root; .ci/run does it), or point CHROMIUM_PATH at a Chromium or Chrome binary.'
  );
}

/** The Chromium binary to drive: CHROMIUM_PATH when set, else the first installed candidate; undefined if none. */
export function findChromium(env: Record<string, string | undefined> = process.env): string | undefined {
  const wanted = env.CHROMIUM_PATH ? [env.CHROMIUM_PATH] : CANDIDATES;
  return wanted.find((path) => {
    try {
      accessSync(path, constants.X_OK);
      return true;
    } catch {
      return false;
    }
  });
}
