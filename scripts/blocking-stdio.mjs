// Loaded into every test file's process by run-tests.mjs. With --test-force-exit, Node ends a test file's
// process with process.exit() while the report it streams to the runner over a pipe may still be buffered:
// the last verdicts of a file were then lost from the report and the counts came out short, without a
// failure (nodejs/node#64833; seen here as a file's last suite missing). Blocking writes cannot be left
// behind.
for (const stream of [process.stdout, process.stderr]) stream._handle?.setBlocking?.(true);
