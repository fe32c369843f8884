// Runs after `tsc` (npm run build:ts): make the CLI entry executable so the `gapbcfw` bin works when the
// package is linked or run from a checkout. (npm sets the mode itself for installed bins; tsc does not.)
import { chmodSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const cli = fileURLToPath(new URL('../dist/src/cli/main.js', import.meta.url));
let head;
try {
  head = readFileSync(cli, 'utf8').slice(0, 64);
} catch (e) {
  console.error(`postbuild: ${cli} is missing (${e.code ?? e.message}); did tsc run?`);
  process.exit(1);
}
if (!head.startsWith('#!/usr/bin/env node')) {
  console.error(`postbuild: ${cli} has no '#!/usr/bin/env node' shebang`);
  process.exit(1);
}
chmodSync(cli, 0o755);
