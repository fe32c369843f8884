/**
 * Packaging: both native build paths compile the same sources, binding.gyp builds offline, and the
 * `npm pack` tarball installs into an empty project with no compiler step, loads its prebuild and runs
 * its CLI and library there.
 *
 * Needs the build first (what .ci/run does): `npm run prebuilds && npm run build` (what `npm ci` runs).
 */
import { spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));
const pkg = JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { name: string; version: string; gypfile?: boolean };
const platformDir = `${process.platform}-${process.arch}`;
const prebuild = path.join(root, 'prebuilds', platformDir, `${pkg.name}.node`);
const TIMEOUT = 180_000;

interface Run {
  status: number | null;
  stdout: string;
  stderr: string;
}

function run(cmd: string, args: string[], options: SpawnSyncOptions = {}): Run {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 << 20, ...options });
  if (r.error) throw r.error;
  return { status: r.status, stdout: String(r.stdout), stderr: String(r.stderr) };
}

function describeRun(what: string, r: Run): string {
  return `${what} exited ${r.status}\n--- stdout ---\n${r.stdout.slice(-4000)}\n--- stderr ---\n${r.stderr.slice(-4000)}`;
}

/** Expands the CMakeLists.txt source list: explicit add_library sources plus the GLOB patterns, minus test_*.cc. */
function cmakeSources(): string[] {
  const text = readFileSync(path.join(root, 'CMakeLists.txt'), 'utf8');
  const sources = new Set<string>();
  const lib = /add_library\(\s*\$\{PROJECT_NAME\}\s+SHARED\s+([^)]*)\)/.exec(text);
  if (!lib) throw new Error('CMakeLists.txt: no add_library(${PROJECT_NAME} SHARED ...) found');
  for (const s of lib[1]!.split(/\s+/)) if (s.endsWith('.cc')) sources.add(s);
  for (const m of text.matchAll(/file\(\s*GLOB(?:_RECURSE)?\s+\w+\s+(?:CONFIGURE_DEPENDS\s+)?([^)]*)\)/g)) {
    for (const pattern of m[1]!.split(/\s+/).filter(Boolean)) {
      const match = /^([\w./-]+)\/\*\.cc$/.exec(pattern);
      if (!match) throw new Error(`CMakeLists.txt: glob pattern '${pattern}' is not of the form DIR/*.cc; teach test/package.test.ts about it`);
      const dir = match[1]!;
      for (const f of readdirSync(path.join(root, dir))) if (f.endsWith('.cc')) sources.add(`${dir}/${f}`);
    }
  }
  const exclude = /list\(\s*FILTER\s+\w+\s+EXCLUDE\s+REGEX\s+"([^"]*)"\s*\)/.exec(text);
  const excludeRe = exclude ? new RegExp(exclude[1]!.replace(/\\\\/g, '\\')) : undefined;
  return [...sources].filter((s) => !excludeRe || !excludeRe.test(`/${s}`)).sort();
}

function gypSources(): string[] {
  const gyp = JSON.parse(readFileSync(path.join(root, 'binding.gyp'), 'utf8')) as { targets: { target_name: string; sources: string[] }[] };
  const target = gyp.targets.find((t) => t.target_name === pkg.name);
  if (!target) throw new Error(`binding.gyp has no target '${pkg.name}'`);
  return [...target.sources].sort();
}

describe('native build paths', () => {
  it('CMakeLists.txt and binding.gyp compile the same sources', () => {
    const cmake = cmakeSources();
    expect(cmake).toContain('native/binding/addon.cc');
    expect(gypSources(), 'binding.gyp "sources" must list exactly the .cc files the CMake build compiles').toEqual(cmake);
    for (const s of cmake) expect(existsSync(path.join(root, s)), s).toBe(true);
  });

  it('package.json keeps "gypfile": false (otherwise npm runs node-gyp when a consumer installs)', () => {
    expect(pkg.gypfile).toBe(false);
  });

  it('a clone builds itself: the `dependencies` script (run by npm install / npm ci in the clone only: never for a consumer, never by npx) builds the prebuild, the addon and the TypeScript; no install script; `npm test` runs the whole suite', () => {
    const scripts = (JSON.parse(readFileSync(path.join(root, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
    // A `prepare` script made npm warn about an install script in the tarball, and made `npx gapbcfw` in a clone
    // install the clone into npx's cache and build it again, silently (2-3 minutes). `dependencies` runs after npm
    // changed the clone's node_modules, and nowhere else.
    expect(scripts.dependencies).toBe('node scripts/build-clone.mjs');
    // prebuildify moves the addon it builds out of build/Release, so the prebuild comes first and the build second
    // (CI's clean clone failed when the order was the other way round: no build/Release/gapbcfw.node was left).
    expect(readFileSync(path.join(root, 'scripts', 'build-clone.mjs'), 'utf8')).toMatch(/'prebuilds',[\s\S]*'build:native',[\s\S]*'build:ts',/);
    expect(scripts.build).toBe('npm run build:native && npm run build:ts');
    expect(scripts.test).toBe('vitest run');
    for (const hook of ['install', 'preinstall', 'postinstall', 'prepare']) expect(scripts[hook], hook).toBeUndefined();
    // The README's Development section shows exactly these commands, and CI runs the same `npm test`.
    const readme = readFileSync(path.join(root, 'README.md'), 'utf8');
    const dev = readme.slice(readme.indexOf('## Development'));
    expect(dev).toMatch(/```sh\nnpm install\s+#[^\n]*\nnpx gapbcfw demo\s+#[^\n]*\nnpm test\s+#[^\n]*\n```/);
    expect(readFileSync(path.join(root, '.ci', 'run'), 'utf8')).toMatch(/\nnpm test -- /);
  });

  it('npx gapbcfw in a clone starts at once: npx links the clone with nothing to run, and rebuilds nothing', () => {
    const outputs = [path.join(root, 'dist', 'src', 'cli', 'main.js'), prebuild].filter((f) => existsSync(f));
    expect(outputs.length).toBeGreaterThan(0);
    const before = outputs.map((f) => statSync(f).mtimeMs);
    // An empty npm cache, as on a first `npx` after cloning: npx installs the clone into its cache (a link) first.
    const cache = mkdtempSync(path.join(tmpdir(), 'gapbcfw-npx-cache-'));
    try {
      const r = run('npx', ['--offline', 'gapbcfw', '--version'], { cwd: root, env: { ...process.env, npm_config_cache: cache }, timeout: 120_000 });
      expect(r.status, describeRun('npx gapbcfw --version', r)).toBe(0);
      expect(r.stdout.trim()).toBe(pkg.version);
      const npx = readdirSync(path.join(cache, '_npx'));
      expect(npx).toHaveLength(1);
      expect(realpathSync(path.join(cache, '_npx', npx[0]!, 'node_modules', pkg.name))).toBe(realpathSync(root));
    } finally {
      rmSync(cache, { recursive: true, force: true });
    }
    expect(outputs.map((f) => statSync(f).mtimeMs)).toEqual(before);
  }, TIMEOUT);

  it('the prebuild is current: it exports the same functions as build/Release', () => {
    if (!existsSync(prebuild)) throw new Error(`${path.relative(root, prebuild)} is missing: run \`npm run prebuilds\` before the tests (.ci/run does)`);
    const dev = path.join(root, 'build', 'Release', `${pkg.name}.node`);
    const files = existsSync(dev) ? [prebuild, dev] : [prebuild];
    const r = run(process.execPath, ['-e', 'console.log(JSON.stringify(process.argv.slice(1).map((f) => Object.keys(require(f)).sort())))', ...files]);
    expect(r.status, describeRun('loading the prebuild', r)).toBe(0);
    const [pre, built] = JSON.parse(r.stdout) as string[][];
    expect(pre).toContain('version');
    if (built) expect(pre, `${path.relative(root, prebuild)} is stale (exports differ from build/Release): run \`npm run prebuilds\``).toEqual(built);
  });

  it(
    'binding.gyp builds offline with node-gyp and exports the same functions as the cmake-js build',
    () => {
      const r = run(process.execPath, [path.join(root, 'scripts', 'check-gyp.mjs')], { cwd: root });
      expect(r.status, describeRun('node scripts/check-gyp.mjs', r)).toBe(0);
      expect(r.stdout).toMatch(/check-gyp: same exports as /);
    },
    TIMEOUT,
  );
});

describe('npm pack tarball installs and runs without a compiler', () => {
  let work = '';
  let project = '';
  let installed = '';
  let packed: { filename: string; files: { path: string }[]; size: number; unpackedSize: number; entryCount: number } | undefined;
  let installOutput = '';
  let env: NodeJS.ProcessEnv = {};

  const bin = () => path.join(project, 'node_modules', '.bin', 'gapbcfw');

  beforeAll(() => {
    for (const [file, hint] of [
      [prebuild, 'npm run prebuilds'],
      [path.join(root, 'dist', 'src', 'index.js'), 'npm run build'],
      [path.join(root, 'dist', 'src', 'cli', 'main.js'), 'npm run build'],
    ] as const) {
      if (!existsSync(file)) throw new Error(`${path.relative(root, file)} is missing: run \`${hint}\` before the tests (.ci/run does)`);
    }
    work = mkdtempSync(path.join(tmpdir(), 'gapbcfw-pack-'));
    project = path.join(work, 'consumer');
    mkdirSync(project);

    // A clean environment for npm and the installed CLI: drop the npm_* variables of an enclosing `npm test`
    // (npm_config_local_prefix, npm_config_nodedir, ...) but keep where the cache and registry settings live.
    const keep = new Set(['npm_config_cache', 'npm_config_userconfig', 'npm_config_globalconfig', 'npm_config_registry', 'npm_config_cafile', 'npm_config_ca', 'npm_config_proxy', 'npm_config_https_proxy', 'npm_config_noproxy', 'npm_config_strict_ssl', 'npm_config_update_notifier']);
    env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k) || keep.has(k.toLowerCase())));
    delete env.INIT_CWD;
    delete env.NODE_OPTIONS;
    delete env.GAPBCFW_PREBUILD;

    // Compilers and build tools that fail loudly: an install that tries to compile anything fails.
    const noCompiler = path.join(work, 'no-compiler-bin');
    mkdirSync(noCompiler);
    for (const tool of ['cc', 'c++', 'gcc', 'g++', 'clang', 'clang++', 'make', 'cmake', 'ninja', 'node-gyp', 'cmake-js']) {
      const f = path.join(noCompiler, tool);
      writeFileSync(f, `#!/bin/sh\necho "package install tried to run ${tool} $*" >&2\nexit 97\n`);
      chmodSync(f, 0o755);
    }
    env.PATH = `${noCompiler}${path.delimiter}${env.PATH ?? ''}`;

    // `prepare` (the build of a clone: addon, TypeScript, prebuild) also runs before `npm pack`; here the build is
    // already done, so pack without scripts after the prepack check that the tarball would run.
    const check = run(process.execPath, [path.join(root, 'scripts', 'prepack-check.mjs')], { cwd: root, env });
    if (check.status !== 0) throw new Error(describeRun('prepack check', check));
    const pack = run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], { cwd: root, env });
    if (pack.status !== 0) throw new Error(describeRun('npm pack', pack));
    packed = (JSON.parse(pack.stdout) as NonNullable<typeof packed>[])[0]!;

    writeFileSync(path.join(project, 'package.json'), `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true, type: 'module' }, null, 2)}\n`);
    const install = run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(work, packed.filename)], { cwd: project, env });
    if (install.status !== 0) throw new Error(describeRun('npm install <tarball> in an empty project', install));
    installOutput = `${install.stdout}${install.stderr}`;
    installed = realpathSync(path.join(project, 'node_modules', pkg.name));
  }, TIMEOUT);

  afterAll(() => {
    if (work && !process.env.GAPBCFW_KEEP_PACK_TEST) rmSync(work, { recursive: true, force: true });
  });

  it('ships dist, the prebuild and the native sources, and no tests, data or build output', () => {
    const files = packed!.files.map((f) => f.path);
    for (const f of ['package.json', 'dist/src/index.js', 'dist/src/index.d.ts', 'dist/src/cli/main.js', `prebuilds/${platformDir}/${pkg.name}.node`, 'CMakeLists.txt', 'binding.gyp', 'native/binding/addon.cc', 'native/binding/common.h', ...gypSources()]) {
      expect(files, f).toContain(f);
    }
    if (existsSync(path.join(root, 'README.md'))) expect(files).toContain('README.md');
    const unwanted = files.filter((f) => /^(test|src|build|data|node_modules|scripts|\.ci|kernels)\//.test(f) || f.endsWith('.map') || /(^|\/)(test|bench)_[^/]*\.cc$/.test(f) || f.endsWith('.tgz'));
    expect(unwanted).toEqual([]);
  });

  it("installs without npm's install-script warning (no prepare, install or gyp script in the tarball)", () => {
    expect(installOutput).not.toMatch(/install.scripts/i);
    const shipped = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { scripts?: Record<string, string>; gypfile?: boolean };
    for (const hook of ['install', 'preinstall', 'postinstall', 'prepare']) expect(shipped.scripts?.[hook], hook).toBeUndefined();
  });

  it('ships LICENSE (Apache-2.0), the repository and the documentation; every relative link of README.md and docs/ resolves inside the package', () => {
    const shipped = JSON.parse(readFileSync(path.join(installed, 'package.json'), 'utf8')) as { license: string; repository?: { type: string; url: string } };
    expect(shipped.license).toBe('Apache-2.0');
    expect(shipped.repository).toEqual({ type: 'git', url: expect.stringMatching(/^git\+https:\/\/.+\.git$/) });
    expect(readFileSync(path.join(installed, 'LICENSE'), 'utf8')).toMatch(/Apache License\s+Version 2\.0, January 2004[\s\S]*END OF TERMS AND CONDITIONS/);
    const pages = ['README.md', ...packed!.files.map((f) => f.path).filter((f) => f.startsWith('docs/') && f.endsWith('.md'))];
    expect(pages).toEqual(expect.arrayContaining(['docs/options.md', 'docs/results.md', 'docs/models/chain.md', 'docs/models/segmentation.md']));
    const broken: string[] = [];
    let links = 0;
    for (const page of pages) {
      const text = readFileSync(path.join(installed, page), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1]!.split('#')[0]!;
        if (target === '' || /^[a-z]+:/i.test(target)) continue;
        links++;
        const file = path.resolve(installed, path.dirname(page), decodeURIComponent(target));
        // The API reference (docs/api/) is generated in a clone (`npm run docs`), as the pages say; not shipped.
        if (!existsSync(file) && !file.startsWith(path.join(installed, 'docs', 'api'))) broken.push(`${page}: ${m[1]}`);
      }
    }
    expect(links).toBeGreaterThan(50);
    expect(broken).toEqual([]);
  });

  it('the published types compile in a fresh TypeScript project without @types/node (strict, no skipLibCheck)', () => {
    const ts = path.join(project, 'types-check');
    mkdirSync(ts, { recursive: true });
    writeFileSync(path.join(ts, 'package.json'), '{ "name": "types-check", "private": true, "type": "module" }\n');
    writeFileSync(
      path.join(ts, 'tsconfig.json'),
      JSON.stringify({ compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, noEmit: true, skipLibCheck: false, types: [] }, files: ['index.ts'] }),
    );
    writeFileSync(
      path.join(ts, 'index.ts'),
      `import { ChainModel, modelProblem, train, type SolverResult, type TrainSettings } from '${pkg.name}';
import { syntheticChain } from '${pkg.name}/data';
import { maxflow } from '${pkg.name}/native';
import { trainMulticlassFw } from '${pkg.name}/multiclass-fw';
const d = syntheticChain({ sequences: 10, seed: 1 });
const model = new ChainModel({ numFeatures: d.numFeatures, numLabels: d.numLabels });
const settings: TrainSettings = { solver: 'bcfw', lambda: 0.1 };
const r: SolverResult = train(modelProblem(model, d.examples.map((e) => e.x), d.examples.map((e) => e.y)), settings);
export const gap: number | undefined = r.gap;
export const faces = [maxflow, trainMulticlassFw];
`,
    );
    expect(existsSync(path.join(project, 'node_modules', '@types', 'node'))).toBe(false);
    const r = run(process.execPath, [path.join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', ts], { cwd: ts, env });
    expect(r.status, describeRun('tsc in a fresh project', r)).toBe(0);
  }, TIMEOUT);

  it('installed without compiling: no build/ directory, the prebuild is what node-gyp-build resolves', () => {
    expect(existsSync(path.join(installed, 'build'))).toBe(false);
    expect(existsSync(path.join(installed, 'prebuilds', platformDir, `${pkg.name}.node`))).toBe(true);
    const script = `const { createRequire } = require('node:module');
const r = createRequire(require('node:path').join(process.cwd(), 'package.json'));
const dir = require('node:path').dirname(r.resolve('${pkg.name}/package.json'));
console.log(r('node-gyp-build').resolve(dir));`;
    const r = run(process.execPath, ['-e', script], { cwd: project, env });
    expect(r.status, describeRun('node-gyp-build resolve', r)).toBe(0);
    expect(realpathSync(r.stdout.trim())).toBe(path.join(installed, 'prebuilds', platformDir, `${pkg.name}.node`));
  });

  it('gapbcfw --version prints the package version', () => {
    const r = run(bin(), ['--version'], { cwd: project, env });
    expect(r.status, describeRun('gapbcfw --version', r)).toBe(0);
    expect(r.stdout.trim()).toBe(pkg.version);
  });

  it(
    'gapbcfw demo --json --quiet prints a JSON summary with an exact gap',
    () => {
      const r = run(bin(), ['demo', '--json', '--quiet'], { cwd: project, env, timeout: 120_000 });
      expect(r.status, describeRun('gapbcfw demo --json --quiet', r)).toBe(0);
      const last = r.stdout.trim().split('\n').at(-1)!;
      const summary = JSON.parse(last) as Record<string, unknown>;
      for (const k of ['passes', 'oracleCalls', 'gap', 'testError']) expect(summary[k], k).toEqual(expect.any(Number));
      expect(summary.gapIsExact).toBe(true);
      expect(summary.gap as number).toBeGreaterThanOrEqual(-1e-9);
    },
    TIMEOUT,
  );

  it('leaves out the optional gpu.js (and its gl / webgpu binaries); the gpujs backend says how to add it', () => {
    for (const dep of ['gpu.js', 'gl', 'webgpu']) expect(existsSync(path.join(project, 'node_modules', dep)), dep).toBe(false);
    const r = run(bin(), ['train', 'synthetic:chain', '--backend', 'gpujs', '--max-passes', '1'], { cwd: project, env });
    expect(r.status, describeRun('gapbcfw train --backend gpujs', r)).toBe(2);
    expect(r.stderr).toMatch(/gpu\.js is not installed.*npm install gpu\.js@2\.24\.1/);
  });

  it('gapbcfw train nope:x exits 2 with a one-line message', () => {
    const r = run(bin(), ['train', 'nope:x'], { cwd: project, env });
    expect(r.status, describeRun('gapbcfw train nope:x', r)).toBe(2);
    const lines = r.stderr.trim().split('\n');
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^gapbcfw: .*nope:x/);
  });

  it('each entry point loads without the optional peers (vega, vega-lite, @resvg/resvg-js, sharp), and the features that need one name it', () => {
    for (const peer of ['vega', 'vega-lite', '@resvg/resvg-js', 'sharp']) expect(existsSync(path.join(project, 'node_modules', peer)), peer).toBe(false);
    const script = `const faces = {};
for (const face of ['${pkg.name}', '${pkg.name}/native', '${pkg.name}/data', '${pkg.name}/plot', '${pkg.name}/multiclass-fw']) faces[face] = Object.keys(await import(face)).length;
const { renderSvg } = await import('${pkg.name}/plot');
const missing = await renderSvg({ mark: 'point', data: { values: [] } }).catch((e) => ({ code: e.code, message: e.message }));
console.log(JSON.stringify({ faces, missing }));`;
    const r = run(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env, timeout: 60_000 });
    expect(r.status, describeRun('import every face', r)).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { faces: Record<string, number>; missing: { code: string; message: string } };
    for (const [face, names] of Object.entries(out.faces)) expect(names, face).toBeGreaterThan(5);
    expect(out.missing.code).toBe('ERR_GAPBCFW_MISSING_PEER');
    expect(out.missing.message).toMatch(/drawing figures needs the optional package 'vega(-lite)?': npm install vega(-lite)?@\^6/);
    // The CLI's plot command says the same in one line (exit 1: the job cannot run here, the usage was fine).
    const trace = path.join(work, 'one.jsonl');
    writeFileSync(trace, `${JSON.stringify({ solver: 'bcfw', pass: 1, effectivePasses: 1, oracleCalls: 5, seconds: 0.1, gap: 0.5, gapIsExact: true, method: 'BCFW', seed: 1, lambda: 0.1, data: 'synthetic:' })}\n`);
    const plot = run(bin(), ['plot', trace, '--out', path.join(work, 'one.svg')], { cwd: project, env });
    expect(plot.status, describeRun('gapbcfw plot without vega', plot)).toBe(1);
    expect(plot.stderr.trim().split('\n'), plot.stderr).toHaveLength(1);
    expect(plot.stderr).toMatch(/needs the optional package 'vega(-lite)?': npm install vega/);
  });

  it('CommonJS programs require() every entry point', () => {
    const script = `const m = require('${pkg.name}');
const n = require('${pkg.name}/native');
const r = n.maxflow({ numNodes: 2, edgeFrom: Int32Array.of(0), edgeTo: Int32Array.of(1), capFwd: Float64Array.of(1), sourceCap: Float64Array.of(3, 0), sinkCap: Float64Array.of(0, 2) });
console.log(JSON.stringify({ train: typeof m.train, flow: r.flow, data: typeof require('${pkg.name}/data').loadOcr }));`;
    const r = run(process.execPath, ['-e', script], { cwd: project, env, timeout: 60_000 });
    expect(r.status, describeRun('require(gapbcfw)', r)).toBe(0);
    expect(JSON.parse(r.stdout.trim().split('\n').at(-1)!)).toEqual({ train: 'function', flow: 1, data: 'function' });
  });

  it('an addon that cannot be loaded is one NativeLoadError saying what was looked for, where, and what to do', () => {
    // A copy of the installed package without its prebuilds: what a user on another platform meets.
    const copy = path.join(work, 'no-prebuild', 'node_modules', pkg.name);
    mkdirSync(path.dirname(copy), { recursive: true });
    run('cp', ['-r', installed, copy]);
    rmSync(path.join(copy, 'prebuilds'), { recursive: true, force: true });
    rmSync(path.join(copy, 'node_modules'), { recursive: true, force: true });
    run('cp', ['-r', path.join(project, 'node_modules', 'node-gyp-build'), path.join(path.dirname(copy), 'node-gyp-build')]);
    const script = `await import('${pkg.name}/native').then(() => console.log('loaded'), (e) => console.log(JSON.stringify({ code: e.code, message: e.message })));`;
    const r = run(process.execPath, ['--input-type=module', '-e', script], { cwd: path.dirname(path.dirname(copy)), env });
    expect(r.status, describeRun('import without a prebuild', r)).toBe(0);
    const e = JSON.parse(r.stdout.trim()) as { code: string; message: string };
    expect(e.code).toBe('ERR_GAPBCFW_NATIVE_LOAD');
    expect(e.message).toContain(`on ${platformDir}`);
    expect(e.message).toContain(path.join(copy, 'build', 'Release', `${pkg.name}.node`));
    expect(e.message).toMatch(/prebuilds shipped: none/);
    expect(e.message).toMatch(/build one from a clone with `npm ci`/);
  });

  it(
    'the library imports from the installed package (loading its prebuild) and trains a chain model',
    () => {
      const script = `import { createRequire } from 'node:module';
const m = await import('${pkg.name}');
const d = (await import('${pkg.name}/data')).syntheticChain({ sequences: 40, seed: 3 });
const model = new m.ChainModel({ numFeatures: d.numFeatures, numLabels: d.numLabels });
const problem = m.modelProblem(model, d.examples.map((e) => e.x), d.examples.map((e) => e.y));
const r = m.train(problem, { solver: 'bcfw', lambda: 0.01, maxPasses: 20, gapCheck: 5 });
const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => f.endsWith('.node'));
console.log(JSON.stringify({ passes: r.passes, gap: r.gap, gapIsExact: r.gapIsExact, dim: problem.dim, loaded }));`;
      const r = run(process.execPath, ['--input-type=module', '-e', script], { cwd: project, env, timeout: 120_000 });
      expect(r.status, describeRun('node -e import(gapbcfw) + train', r)).toBe(0);
      const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { passes: number; gap: number; gapIsExact: boolean; dim: number; loaded: string[] };
      expect(out.passes).toBeGreaterThan(0);
      expect(out.gapIsExact).toBe(true);
      expect(Number.isFinite(out.gap)).toBe(true);
      expect(out.loaded.map((f) => realpathSync(f))).toEqual([path.join(installed, 'prebuilds', platformDir, `${pkg.name}.node`)]);
    },
    TIMEOUT,
  );
});

describe('the build of a clone (scripts/build-clone.mjs) says what it does', () => {
  /**
   * A stand-in clone: the script, one source of each step and the three outputs (newer than the sources when
   * `built`), and an `npm` whose `npm run --silent SCRIPT` prints cmake-like lines and exits `fail[SCRIPT]` or 0.
   */
  function fakeClone(built: boolean, fail: Record<string, number> = {}): { dir: string; build: () => Run } {
    const dir = mkdtempSync(path.join(tmpdir(), 'gapbcfw-fake-clone-'));
    const write = (file: string, text: string, mtime: number) => {
      mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
      writeFileSync(path.join(dir, file), text);
      utimesSync(path.join(dir, file), mtime, mtime);
    };
    const now = Date.now() / 1000;
    write('scripts/build-clone.mjs', readFileSync(path.join(root, 'scripts', 'build-clone.mjs'), 'utf8'), now);
    for (const source of ['native/solver/step.cc', 'CMakeLists.txt', 'src/index.ts', 'tsconfig.json']) write(source, '', now - 100);
    if (built) for (const output of [`prebuilds/${platformDir}/gapbcfw.node`, 'build/Release/gapbcfw.node', 'dist/src/cli/main.js']) write(output, '', now - 50);
    const cases = Object.entries(fail).map(([script, code]) => `  ${script}) echo "error: something broke in ${script}" >&2; exit ${code} ;;`).join('\n');
    write('bin/npm', `#!/bin/sh\necho "[ 50%] Building CXX object $3"\necho "[100%] Linking $3"\ncase "$3" in\n${cases}\nesac\nexit 0\n`, now);
    chmodSync(path.join(dir, 'bin', 'npm'), 0o755);
    // setsid: no controlling terminal, so the progress goes to stderr (on a terminal it goes to /dev/tty).
    const build = () => run('setsid', [process.execPath, path.join(dir, 'scripts', 'build-clone.mjs')], { cwd: dir, env: { ...process.env, PATH: `${path.join(dir, 'bin')}${path.delimiter}${process.env.PATH}`, GAPBCFW_REBUILD: '' } });
    return { dir, build };
  }

  it('a fresh clone: each step with its time, then how to start', () => {
    const { dir, build } = fakeClone(false);
    const r = build();
    rmSync(dir, { recursive: true, force: true });
    expect(r.status, describeRun('build-clone', r)).toBe(0);
    expect(r.stderr).toMatch(/^gapbcfw: building the clone \(about 2 minutes/);
    for (const [k, step] of ['the prebuild', 'the addon in build\\/Release', 'the TypeScript in dist\\/'].entries()) expect(r.stderr).toMatch(new RegExp(`gapbcfw: \\[${k + 1}/3\\] ${step}[^\\n]* done \\(\\d+ s\\)`));
    expect(r.stderr).toMatch(/try `npx gapbcfw demo`\n$/);
  });

  it('a failing step: its name, the tail of its output, what it needs, and its exit status', () => {
    const { dir, build } = fakeClone(false, { 'build:native': 3 });
    const r = build();
    rmSync(dir, { recursive: true, force: true });
    expect(r.status).toBe(3);
    expect(r.stderr).toMatch(/\[2\/3\] the addon in build\/Release \(cmake-js\) failed \(exit 3\)/);
    expect(r.stderr).toMatch(/error: something broke in build:native/);
    expect(r.stderr).toMatch(/the build of the clone failed at `npm run build:native` \(full output: .*clone-build\.log\); it needs a C\+\+17 compiler and CMake/);
    expect(r.stderr).not.toMatch(/\[3\/3\]/);
  });

  it('a built clone is not rebuilt (npm install SOME-PACKAGE there); a changed source rebuilds its steps only', () => {
    const { dir, build } = fakeClone(true);
    const fresh = build();
    expect(fresh.status, describeRun('build-clone', fresh)).toBe(0);
    expect(fresh.stderr).toMatch(/the build of the clone is up to date/);
    writeFileSync(path.join(dir, 'src', 'index.ts'), 'export {};\n'); // newer than dist/
    const ts = build();
    rmSync(dir, { recursive: true, force: true });
    expect(ts.status, describeRun('build-clone', ts)).toBe(0);
    expect(ts.stderr).toMatch(/\[1\/1\] the TypeScript in dist\/ \(tsc\)[^\n]* done/);
    expect(ts.stderr).not.toMatch(/prebuild|cmake-js/);
  });
});
