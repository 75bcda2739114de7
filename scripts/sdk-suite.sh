#!/usr/bin/env bash
# Runs the @azure/event-hubs package's own test suite against this project's emulator, in a directory
# OUTSIDE this repository (the SDK's test code must not be committed here). docs/emulator.md, "Azure SDK
# test suite", says which spec files were run, with what result, and why the remaining failures are not
# emulator differences.
#
#   scripts/sdk-suite.sh prepare DIR   # harness packages, TLS certificate, vitest config, emulator setup
#   (copy the SDK spec files and test utilities into DIR/test, see docs/emulator.md)
#   scripts/sdk-suite.sh run DIR [spec files...]           # "mock" mode (the SDK CI's default)
#   TEST_MODE=live-emulator scripts/sdk-suite.sh run DIR … # specs that only run against a service
#   EMULATOR_ARGS="--ack-delay 5ms" adds emulator flags (a network-like acknowledgement delay)
#
# The emulator plays the SDK's mock service: TLS on localhost:5671 (EMULATOR_PORT to change), hub
# mock-hub with 4 partitions, consumer group mock-consumer-group. The package under test is this
# project's installed @azure/event-hubs (node_modules), imported by the specs as ../../src/*.js and
# $internal/*.js.
set -euo pipefail
REPO=$(cd "$(dirname "$0")/.." && pwd)
cmd=${1:-}; dir=${2:-}
[ -n "$cmd" ] && [ -n "$dir" ] || { sed -n '2,16p' "$0"; exit 2; }
case "$dir" in "$REPO"/*) echo "DIR must be outside the repository" >&2; exit 2;; esac

prepare() {
  mkdir -p "$dir/test/utils" "$dir/glue" "$dir/certs"
  cd "$dir"
  [ -f package.json ] || echo '{ "name": "eh-sdk-suite", "private": true, "type": "module" }' > package.json
  # Install first, link second: npm prunes what it did not install, and a linked scope folder would let
  # it delete packages inside the project's node_modules. Never run npm here after linking.
  npm install --no-audit --no-fund vitest@3 chai-as-promised@8 chai-exclude@2 debug
  for p in "$REPO"/node_modules/* "$REPO"/node_modules/@*/*; do
    rel=${p#"$REPO"/node_modules/}
    case "$rel" in .bin|@*/*) ;; @*|.*) continue ;; esac
    if [ ! -e "node_modules/$rel" ]; then mkdir -p "node_modules/$(dirname "$rel")"; ln -s "$p" "node_modules/$rel"; fi
  done
  ln -sfn "$REPO/node_modules/@azure/event-hubs/dist/esm" src
  openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=localhost \
    -addext subjectAltName=DNS:localhost,IP:127.0.0.1 -addext basicConstraints=critical,CA:TRUE \
    -keyout certs/server.key.pem -out certs/server.crt.pem 2>/dev/null
  cat > vitest.config.ts <<'EOF'
import { defineConfig } from "vitest/config";
import { resolve } from "node:path";
const dist = resolve("src");
export default defineConfig({
  resolve: {
    alias: [
      { find: /^\$internal\/(.*)$/, replacement: `${dist}/$1` },
      { find: /^@azure-tools\/test-credential$/, replacement: resolve("glue/test-credential.ts") },
      { find: /^@azure-tools\/test-utils(-vitest)?$/, replacement: resolve("glue/test-utils.ts") },
    ],
  },
  test: {
    reporters: ["verbose"], testTimeout: 600000, hookTimeout: 60000, fileParallelism: false,
    include: ["test/**/*.spec.ts"], globalSetup: ["test/utils/emulator-setup.ts"],
  },
});
EOF
  # Entra ID tokens cannot be checked locally: the emulator accepts any JWT, so a fixed one will do.
  cat > glue/test-credential.ts <<'EOF'
export function createTestCredential(): any {
  return { getToken: async () => ({ token: "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJoYXJuZXNzIn0.aGFybmVzcw", expiresOnTimestamp: Date.now() + 3_600_000 }) };
}
EOF
  # The SDK repository's tracing assertions are not published: specs using them fail with this message.
  cat > glue/test-utils.ts <<'EOF'
import { assert as chaiAssert } from "vitest";
const unavailable = async (): Promise<never> => { throw new Error("harness: supportsTracing is not available"); };
export const assert: any = Object.assign(Object.create(chaiAssert), chaiAssert, { supportsTracing: unavailable });
export const chaiAzure = (): void => undefined;
export const isNode = true;
EOF
  cat > test/utils/emulator-setup.ts <<EOF
import { spawn } from "node:child_process";
import { once } from "node:events";
export default async function ({ provide }: any) {
  const args = ["--import", "tsx", "src/emulator/cli.ts", "--port", process.env.EMULATOR_PORT ?? "5671",
    "--hub", "mock-hub:4", "--consumer-group", "mock-consumer-group",
    "--tls-cert", "$dir/certs/server.crt.pem", "--tls-key", "$dir/certs/server.key.pem",
    ...(process.env.EMULATOR_ARGS ? process.env.EMULATOR_ARGS.split(" ") : [])];
  const child = spawn(process.execPath, args, { cwd: "$REPO", stdio: ["ignore", "pipe", "inherit"] });
  let out = "";
  await new Promise<void>((ok, fail) => {
    child.stdout.on("data", (d) => { out += d; if (out.includes("Endpoint=")) ok(); });
    child.once("exit", (code) => fail(new Error("emulator exited with " + code)));
  });
  const live = process.env.TEST_MODE === "live-emulator";
  const values: Record<string, string> = {
    TEST_MODE: live ? "live" : "mock", EVENTHUB_NAME: "mock-hub", EVENTHUB_FQDN: "localhost",
    EVENTHUB_CONSUMER_GROUP_NAME: "mock-consumer-group", AZURE_LOG_LEVEL: "error",
    EVENTHUB_CONNECTION_STRING: "Endpoint=sb://localhost/;SharedAccessKeyName=Foo;SharedAccessKey=Bar",
  };
  for (const [k, v] of Object.entries(values)) provide(k, v);
  return async () => { child.kill("SIGTERM"); await once(child, "exit"); };
}
EOF
  echo "prepared $dir: now copy the SDK spec files and test/utils into $dir/test (docs/emulator.md)"
}

run() {
  cd "$dir"
  shift 2
  NODE_EXTRA_CA_CERTS="$dir/certs/server.crt.pem" npx vitest run "$@"
}

case "$cmd" in
  prepare) prepare ;;
  run) run "$@" ;;
  *) sed -n '2,16p' "$0"; exit 2 ;;
esac
