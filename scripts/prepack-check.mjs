// `prepack` (npm pack / npm publish): refuse to pack a tarball that could not work. Consumers never compile
// ("gypfile": false, no install script), so the tarball must carry the compiled TypeScript and the prebuild.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const need = [
  ['dist/src/index.js', 'npm run build'],
  ['dist/src/cli/main.js', 'npm run build'],
  [`prebuilds/${process.platform}-${process.arch}/gapbcfw.node`, 'npm run prebuilds'],
];
const missing = need.filter(([f]) => !existsSync(root + f));
if (missing.length) {
  for (const [f, fix] of missing) console.error(`prepack: ${f} is missing: run \`${fix}\` first`);
  process.exit(1);
}
