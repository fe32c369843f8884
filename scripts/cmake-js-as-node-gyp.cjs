#!/usr/bin/env node
// prebuildify has no cmake-js backend: it spawns `<node-gyp> rebuild --arch=.. --release|--debug` and then
// takes the first *.node in build/Release (or build/Debug). cmake-js writes exactly there.
'use strict';
const { spawnSync } = require('child_process');
const path = require('path');
const args = process.argv.slice(2);
const debug = args.includes('--debug');
const archArg = args.find((a) => a.startsWith('--arch='));
const cmd = [require.resolve('cmake-js/bin/cmake-js'), 'rebuild', '--config', debug ? 'Debug' : 'Release'];
if (archArg) cmd.push('--arch', archArg.slice('--arch='.length));
const r = spawnSync(process.execPath, cmd, { stdio: 'inherit', cwd: path.resolve(__dirname, '..') });
process.exit(r.status === null ? 1 : r.status);
