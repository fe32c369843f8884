#!/usr/bin/env node
// The build of a clone, run by npm install / npm ci there through the `dependencies` lifecycle script (which npm runs
// only in the project itself, after its node_modules changed: never for a consumer of the package, never by npx, and
// not an install script npm warns about). Steps: the prebuild (prebuildify moves the addon it builds into
// prebuilds/<platform>-<arch>/, so it goes first), the addon in build/Release (cmake-js), the TypeScript in dist/.
// A step whose output is newer than every one of its sources is skipped (so `npm install SOME-PACKAGE` does not
// rebuild an unchanged clone); GAPBCFW_REBUILD=1 runs every step.
//
// npm hides a lifecycle script's output, so the progress (each step, the compiler's percentage, the time) goes to the
// terminal itself when there is one (/dev/tty), else to stderr. The steps' full output is kept in
// node_modules/.cache/gapbcfw/clone-build.log (build/ is wiped by the prebuild), and its tail is printed when a step fails.
import { spawn } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync, openSync, readdirSync, readFileSync, statSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const NATIVE_SOURCES = ['native', 'CMakeLists.txt'];
const STEPS = [
  ['the prebuild (prebuildify + cmake-js)', 'prebuilds', `prebuilds/${process.platform}-${process.arch}/gapbcfw.node`, NATIVE_SOURCES],
  ['the addon in build/Release (cmake-js)', 'build:native', 'build/Release/gapbcfw.node', NATIVE_SOURCES],
  ['the TypeScript in dist/ (tsc)', 'build:ts', 'dist/src/cli/main.js', ['src', 'kernels', 'tsconfig.json']],
];

/** The newest modification time of the files under `paths` (relative to the root). */
function newest(paths) {
  let t = 0;
  const walk = (p) => {
    const st = statSync(p);
    if (st.isDirectory()) for (const name of readdirSync(p)) walk(join(p, name));
    else t = Math.max(t, st.mtimeMs);
  };
  for (const p of paths) if (existsSync(root + p)) walk(root + p);
  return t;
}

/** Whether a step's output exists and is newer than all of its sources. */
const upToDate = (output, sources) => process.env.GAPBCFW_REBUILD !== '1' && existsSync(root + output) && statSync(root + output).mtimeMs > newest(sources);

/** Where progress goes: the terminal when there is one (npm pipes our stdout and stderr), else stderr. */
function progressFd() {
  try {
    return openSync('/dev/tty', 'w');
  } catch {
    return 2;
  }
}
const fd = progressFd();
const tty = fd !== 2;
const say = (text, end = '\n') => writeSync(fd, `${tty ? '\r\x1b[2K' : ''}${text}${end}`);

const logDir = `${root}node_modules/.cache/gapbcfw`;
mkdirSync(logDir, { recursive: true });
const logFile = `${logDir}/clone-build.log`;
const log = createWriteStream(logFile);
const t0 = Date.now();
const elapsed = () => `${Math.round((Date.now() - t0) / 1000)} s`;

const pending = STEPS.filter(([, , output, sources]) => !upToDate(output, sources));
if (pending.length === 0) {
  say('gapbcfw: the build of the clone is up to date (GAPBCFW_REBUILD=1 node scripts/build-clone.mjs rebuilds it)');
  process.exit(0);
}
say(`gapbcfw: building the clone (about 2 minutes on 2 cores; full output in ${logFile})`);
for (const [k, [what, script]] of pending.entries()) {
  const label = `gapbcfw: [${k + 1}/${pending.length}] ${what}`;
  say(`${label} ...`, tty ? '' : '\n');
  const status = await new Promise((resolve) => {
    const child = spawn('npm', ['run', '--silent', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    // On a terminal, the line is redrawn with the compiler's progress and the time, at least every 2 s.
    let percent = '';
    const redraw = () => tty && say(`${label} ${percent}(${elapsed()})`, '');
    const ticker = setInterval(redraw, 2000);
    child.on('close', () => clearInterval(ticker));
    const onData = (chunk) => {
      log.write(chunk);
      // Ninja's "[7/24] Building CXX object ..." or Make's "[ 42%] ...".
      const steps = [...String(chunk).matchAll(/^\[(?:\s*(\d+)%|(\d+)\/(\d+))\]/gm)].at(-1);
      if (steps === undefined) return;
      percent = `${steps[1] ?? Math.round((100 * Number(steps[2])) / Math.max(1, Number(steps[3])))}% `;
      redraw();
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', (e) => {
      log.write(`${e.message}\n`);
      resolve(1);
    });
    child.on('close', (code) => resolve(code ?? 1));
  });
  if (status !== 0) {
    await new Promise((resolve) => log.end(resolve));
    const tail = readFileSync(logFile, 'utf8').split('\n').slice(-40).join('\n');
    say(`${label} failed (exit ${status}) after ${elapsed()}`);
    process.stderr.write(`${tail}\ngapbcfw: the build of the clone failed at \`npm run ${script}\` (full output: ${logFile}); it needs a C++17 compiler and CMake >= 3.15\n`);
    process.exit(status);
  }
  say(`${label} done (${elapsed()})`);
}
log.end();
say(`gapbcfw: built in ${elapsed()}; try \`npx gapbcfw demo\``);
