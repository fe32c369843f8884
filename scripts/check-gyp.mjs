#!/usr/bin/env node
// Checks the second native build path: binding.gyp builds offline with node-gyp and gives an addon with the
// same exports as the cmake-js build. It builds in a scratch copy (binding.gyp, package.json, native/ and a
// node_modules link), so the cmake-js build in ./build is left untouched.
//   node scripts/check-gyp.mjs            build, load, compare exports with build/Release (or the prebuild)
//   node scripts/check-gyp.mjs --keep     keep the scratch dir
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const require = createRequire(import.meta.url);

const scratch = mkdtempSync(path.join(tmpdir(), 'gapbcfw-gyp-'));
let failed = false;
try {
  for (const f of ['binding.gyp', 'package.json']) cpSync(path.join(root, f), path.join(scratch, f));
  cpSync(path.join(root, 'native'), path.join(scratch, 'native'), { recursive: true });
  symlinkSync(path.join(root, 'node_modules'), path.join(scratch, 'node_modules'), 'dir');
  const t0 = Date.now();
  const r = spawnSync(process.execPath, [path.join(root, 'scripts', 'node-gyp-offline.cjs'), 'rebuild', '--release', '--jobs=2'], {
    cwd: scratch,
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  if (r.status !== 0) throw new Error(`node-gyp rebuild failed (exit ${r.status})`);
  const built = readdirSync(path.join(scratch, 'build', 'Release')).filter((f) => f.endsWith('.node'));
  if (built.length !== 1) throw new Error(`expected one .node in build/Release, found ${JSON.stringify(built)}`);
  const gypAddon = require(path.join(scratch, 'build', 'Release', built[0]));
  const reference = [path.join(root, 'build', 'Release', 'gapbcfw.node'), path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'gapbcfw.node')].find(existsSync);
  const gypKeys = Object.keys(gypAddon).sort();
  console.log(`check-gyp: node-gyp built ${built[0]} in ${((Date.now() - t0) / 1000).toFixed(1)} s; exports: ${gypKeys.join(', ')}`);
  if (typeof gypAddon.version === 'function') console.log(`check-gyp: version() = ${gypAddon.version()}`);
  if (reference) {
    const refKeys = Object.keys(require(reference)).sort();
    if (JSON.stringify(refKeys) !== JSON.stringify(gypKeys)) {
      throw new Error(`exports differ from the cmake-js build ${reference}:\n  cmake-js: ${refKeys.join(', ')}\n  node-gyp: ${gypKeys.join(', ')}`);
    }
    console.log(`check-gyp: same exports as ${path.relative(root, reference)}`);
  } else {
    console.log('check-gyp: no cmake-js build to compare with (run npm run build:native first)');
  }
} catch (e) {
  failed = true;
  console.error(`check-gyp: FAILED: ${e.message}`);
} finally {
  if (keep) console.log(`check-gyp: scratch dir kept: ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
}
process.exit(failed ? 1 : 0);
