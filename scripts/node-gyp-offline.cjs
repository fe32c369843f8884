#!/usr/bin/env node
// Runs node-gyp (the devDependency) with an explicit --nodedir, so the binding.gyp path never downloads
// Node headers from nodejs.org. Usage: node scripts/node-gyp-offline.cjs rebuild [node-gyp args...]
//
// The headers directory is, in order: $GAPBCFW_NODEDIR, npm's `nodedir` config (npm_config_nodedir), or
// the prefix of the running node (process.execPath/../..), which is where Debian's nodejs package (/usr)
// and the official tarballs (/usr/local, nvm, ...) put include/node/. A candidate is accepted only if it
// holds include/node/node_api.h and include/node/common.gypi.
'use strict';
const { spawnSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

function usable(dir) {
  return !!dir && existsSync(path.join(dir, 'include', 'node', 'node_api.h')) && existsSync(path.join(dir, 'include', 'node', 'common.gypi'));
}

function findNodedir() {
  const candidates = [process.env.GAPBCFW_NODEDIR, process.env.npm_config_nodedir, path.resolve(path.dirname(process.execPath), '..')];
  for (const c of candidates) if (usable(c)) return path.resolve(c);
  return undefined;
}

const nodedir = findNodedir();
if (!nodedir) {
  console.error(
    'node-gyp-offline: no Node headers found (looked for include/node/node_api.h and common.gypi under ' +
      '$GAPBCFW_NODEDIR, npm_config_nodedir and ' + path.resolve(path.dirname(process.execPath), '..') + ').\n' +
      'Install the headers of this Node (e.g. Debian: apt-get install libnode-dev) or set GAPBCFW_NODEDIR; ' +
      'the primary build (npm run build:native, cmake-js) needs none of this.',
  );
  process.exit(1);
}
const nodeGyp = require.resolve('node-gyp/bin/node-gyp.js');
const args = process.argv.slice(2);
if (args.length === 0) args.push('rebuild');
console.error(`node-gyp-offline: node-gyp ${args.join(' ')} --nodedir=${nodedir}`);
const r = spawnSync(process.execPath, [nodeGyp, ...args, `--nodedir=${nodedir}`], { stdio: 'inherit' });
process.exit(r.status === null ? 1 : r.status);
