// Issue 33 through the CLI: no false certificate (a resume under other model settings, a keep-primal warm start to
// a larger lambda, and no exact gap below zero anywhere), one writer per output, a trace that a resume cuts back to
// its checkpoint, stops inside a pass that resume exactly, bounded readers, signals that get through blocking work,
// and the messages of the last bad inputs. Each case asserts against the failure the issue describes.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { InternalError } from '../src/core/errors.js';
import { readCheckpoint } from '../src/solvers/checkpoint.js';
import { BcfwSolver } from '../src/solvers/bcfw.js';
import { certifiedGap, passGap } from '../src/core/approximate.js';
import { certificate, type ProgressEvent } from '../src/solvers/common.js';
import { createSolver, train } from '../src/solvers/index.js';
import type { TrainSettings } from '../src/solvers/settings.js';
import { cli } from './helpers/capture.js';
import { root, start, stoppedWhen, until } from './helpers/child.js';
import { unless } from './helpers/skips.js';
import { tinyChain } from './helpers/tiny.js';
import { writeTinyHansards, writeTinyLibsvm, writeTinyLsp, writeTinyWeizmann } from './helpers/tiny-data.js';

const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-runs-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hasFifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version'], { stdio: 'ignore' }).error === undefined;
const hasPrlimit = process.platform === 'linux' && spawnSync('prlimit', ['--version'], { stdio: 'ignore' }).status === 0;

/** Exit `code` with one stderr line `gapbcfw: ...` containing `text`, no stack trace. */
function refused(r: { code: number; stderr: string }, text: string | RegExp, code = 2): void {
  expect(r.code, r.stderr).toBe(code);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^gapbcfw: /);
  expect(lines[0]).not.toMatch(/\s+at |Error:/);
  if (typeof text === 'string') expect(lines[0]).toContain(text);
  else expect(lines[0]).toMatch(text);
}

/** The lines of a trace without their wall-clock seconds (the only field that differs between runs). */
const traceLines = (file: string) =>
  readFileSync(file, 'utf8')
    .trimEnd()
    .split('\n')
    .map((line) => {
      const { seconds: _s, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return JSON.stringify(rest);
    });

/** A JSON summary without timings and names of files. */
const figures = (j: Record<string, unknown> | undefined) => {
  // Times, and the oracle counters of this process's part of the run (a resumed run counts from its resume).
  const { seconds: _s, wallSeconds: _w, model: _m, oracleCounters: _o, oracleCallsPerSecond: _r, ...rest } = j!;
  return rest;
};

describe('A. no false certificate', () => {
  it.each([
    ['--cost-fn', '1', 'costFalseNegative = 3, not 1'],
    ['--cost-fp', '2', 'costFalsePositive = 1, not 2'],
    ['--normaliser', 'rows', 'normaliser = links, not rows'],
  ])('alignment: a resume with %s %s is refused, naming the setting (it certified gap -1.10 as "threshold reached")', async (flag, value, named) => {
    const sub = join(dir, `hansards${flag}`);
    mkdirSync(sub);
    const data = writeTinyHansards(sub);
    const ckpt = join(dir, `al${flag}.gbc`);
    expect((await cli('train', data, '--all', '--max-passes', '5', '--checkpoint', ckpt, '--quiet')).code).toBe(0);
    refused(await cli('train', data, '--all', flag, value, '--resume', ckpt, '--gap-threshold', '0', '--quiet'), `checkpoint was made under other settings of the objective: ${named}`);
    // Under its own settings it resumes, and its gap is a certificate: >= 0.
    const same = await cli('train', data, '--all', '--resume', ckpt, '--gap-threshold', '0', '--max-passes', '8', '--quiet', '--json');
    expect(same.code, same.stderr).toBe(0);
    expect(same.json!.gapIsExact).toBe(true);
    expect(same.json!.gap as number).toBeGreaterThanOrEqual(0);
  }, 60_000);

  it("pose: a resume with another --def-scale is refused, naming it", async () => {
    mkdirSync(join(dir, 'lsp'));
    const lsp = await writeTinyLsp(join(dir, 'lsp'), 8);
    const ckpt = join(dir, 'pose.gbc');
    const args = ['train', lsp, '--types', '1', '--no-midpoints', '--max-passes', '2', '--quiet'];
    expect((await cli(...args, '--checkpoint', ckpt)).code).toBe(0);
    refused(await cli(...args, '--def-scale', '2', '--resume', ckpt), 'options.defScale = 4, not 2');
  }, 120_000);

  it('a keep-primal warm start to a larger lambda without dual variables is refused (it certified gap -0.44 as exact)', () => {
    const t = tinyChain(8, { n: 12 });
    const from = new BcfwSolver(t.problem, { lambda: 0.01, maxPasses: 20, gapThreshold: 0 });
    while (from.runPass());
    const checkpoint = from.checkpoint();
    expect(() => new BcfwSolver(t.problem, { lambda: 0.1 }, { warmStart: { from: checkpoint, mode: 'keep-primal' } })).toThrow(/keep-primal cannot raise lambda .* without dual variables/);
    // keep-dual is feasible at any lambda, and keep-primal to a smaller one: both certify gaps >= 0.
    for (const [lambda, mode] of [[0.1, 'keep-dual'], [0.001, 'keep-primal']] as const) {
      const warm = new BcfwSolver(t.problem, { lambda, maxPasses: 5, gapThreshold: 0 }, { warmStart: { from: checkpoint, mode } });
      while (warm.runPass());
      expect(warm.result().gap!).toBeGreaterThanOrEqual(0);
    }
  });

  it('a warm start from a checkpoint of another objective (other bounds) is refused, naming the setting', () => {
    const t = tinyChain(8, { n: 12 });
    const from = new BcfwSolver(t.problem, { lambda: 0.01, maxPasses: 3 });
    while (from.runPass());
    const lower = new Float64Array(t.problem.dim).fill(-1);
    const bounded = { ...t.problem, bounds: { lower } };
    expect(() => new BcfwSolver(bounded, { lambda: 0.005 }, { warmStart: { from: from.checkpoint() } })).toThrow(/warm start was made under other settings of the objective: bounds.lower/);
  });

  it('no code path reports gapIsExact with a gap below -1e-9 (relative): every solver, switch, bound, warm start and resume', async () => {
    const t = tinyChain(8, { n: 12 });
    const lower = new Float64Array(t.problem.dim).fill(-Infinity);
    for (let j = 0; j < lower.length; j += 3) lower[j] = 0; // positivity of every third weight
    const problems = [t.problem, { ...t.problem, bounds: { lower } }];
    const configs: TrainSettings[] = [];
    for (const sampling of ['uniform', 'perm', 'gap'] as const) {
      for (const step of ['fw', 'pairwise', 'away', 'hybrid'] as const) {
        for (const cache of [false, true]) configs.push({ solver: 'bcfw', sampling, step, cache, averaging: false });
      }
    }
    configs.push({ solver: 'bcfw', averaging: true }, { solver: 'bcfw', batch: 4 }, { solver: 'bcfw', batch: 4, overlap: true }, { solver: 'fw' }, { solver: 'ssg' }, { solver: 'cutting-plane' });
    const events: ProgressEvent[] = [];
    const collect = (e: ProgressEvent) => void events.push(e);
    let runs = 0;
    for (const problem of problems) {
      for (const c of configs) {
        for (const lambda of [1, 0.01]) {
          const o: TrainSettings = { ...c, lambda, maxPasses: 15, gapThreshold: 0, seed: 5, ...(c.solver === 'bcfw' || c.solver === 'ssg' ? { gapCheck: 3 } : {}) };
          const hooks = { onProgress: collect };
          train(problem, o, hooks);
          // Resumed mid-run.
          const first = createSolver(problem, o, hooks);
          for (let p = 0; p < 4 && first.runPass(); p++);
          const resumed = createSolver(problem, o, { ...hooks, resume: first.checkpoint() });
          while (resumed.runPass());
          resumed.result();
          if (c.solver === 'bcfw') {
            // Warm starts to larger and smaller lambdas from this run's end (refusals are allowed, false gaps are not).
            const end = (first as BcfwSolver).checkpoint();
            for (const to of [lambda * 4, lambda / 4]) {
              for (const mode of ['keep-primal', 'keep-dual'] as const) {
                let warm: BcfwSolver;
                try {
                  const { solver: _s, ...bcfwSettings } = o;
                  warm = new BcfwSolver(problem, { ...bcfwSettings, lambda: to }, { ...hooks, warmStart: { from: end, mode } });
                } catch (e) {
                  expect((e as Error).message).toMatch(/keep-primal cannot raise lambda/);
                  continue;
                }
                while (warm.runPass());
                warm.result();
                runs++;
              }
            }
          }
          runs += 2;
        }
      }
    }
    const exact = events.filter((e) => e.gapIsExact && e.gap !== undefined);
    expect(runs).toBeGreaterThan(200);
    expect(exact.length).toBeGreaterThan(1000);
    for (const e of exact) expect(e.gap!, JSON.stringify(e)).toBeGreaterThanOrEqual(-1e-9 * Math.max(1, Math.abs(e.primal ?? 0), Math.abs(e.dual ?? 0)));
    // The one place certificates are made refuses an infeasible dual point instead of certifying it.
    const w = new Float64Array(t.problem.dim);
    const infeasible = certificate(0.1, 12, w, 0.5, 0);
    expect(() => certifiedGap(infeasible.primal, infeasible.dual)).toThrow(InternalError);
    expect(() => passGap(infeasible.primal, infeasible.dual, { exact: true })).toThrow(/internal error: a duality gap of -0.5 < 0/);
    expect(passGap(infeasible.primal, infeasible.dual, { exact: false })).toBe(-0.5); // an approximate oracle's estimate, not a certificate
    const rounded = certificate(0.1, 12, w, 1e-12, 0);
    expect(certifiedGap(rounded.primal, rounded.dual)).toBe(0 - 1e-12); // rounding is kept, not refused
  }, 600_000);
});

describe('B. one writer per output', () => {
  it('a second train writing the same --trace (or --out) is refused at once with the holder\'s PID; the first one\'s trace stays valid JSON Lines', async () => {
    const trace = join(dir, 'shared.jsonl');
    const model = join(dir, 'shared.gbm');
    const first = start(['train', 'synthetic:', '--lambda', '0.01', '--max-passes', '1000000', '--gap-threshold', '0', '--trace', trace, '--out', model, '--quiet']);
    try {
      await until(() => existsSync(trace) && readFileSync(trace, 'utf8').split('\n').length > 20, first);
      const pid = first.proc.pid!;
      refused(await cli('train', 'synthetic:', '--max-passes', '2', '--trace', trace, '--quiet'), `--trace ${trace} is being written by process ${pid}`);
      refused(await cli('train', 'synthetic:', '--max-passes', '2', '--out', model, '--quiet'), `--out ${model} is being written by process ${pid}`);
      first.proc.kill('SIGTERM');
      expect(await first.exited, first.stderr()).toBe(143);
    } finally {
      first.proc.kill('SIGKILL');
    }
    for (const line of readFileSync(trace, 'utf8').trimEnd().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    expect(existsSync(`${trace}.lock`)).toBe(false);
  }, 60_000);

  it('a second prepare-horse into the same folder is refused with the PID; a set appears whole, by a rename, or not at all', async () => {
    const db = join(dir, 'weizmann');
    await writeTinyWeizmann(db, 4);
    const out = join(dir, 'horse-set');
    const args = ['--train-size', '2', '--superpixels', '20', '--colour-words', '8', '--gradient-words', '8', '--augment', '200', '--quiet'];
    const first = start(['prepare-horse', db, '--out', out, ...args]);
    try {
      // While it writes, the set lives in a temporary folder beside --out: --out itself does not exist yet.
      await until(() => readdirSync(dir).some((f) => f.startsWith('.horse-set.tmp-') && existsSync(join(dir, f, 'horse.bin'))), first);
      expect(existsSync(out)).toBe(false);
      refused(await cli('prepare-horse', db, '--out', out, ...args), `--out ${out} is being written by process ${first.proc.pid}`);
      first.proc.kill('SIGKILL');
      await first.exited;
    } finally {
      first.proc.kill('SIGKILL');
    }
    expect(existsSync(out)).toBe(false); // killed mid-write: no set at all, not half of one
    // The next run removes the killed one's temporary folder and renames its own set into place.
    expect((await cli('prepare-horse', db, '--out', out, ...args.filter((a) => a !== '200' && a !== '--augment'))).code).toBe(0);
    expect(readdirSync(out).sort()).toEqual(['horse.bin', 'horse.json']);
    expect(readdirSync(dir).filter((f) => f.startsWith('.horse-set.'))).toEqual([]);
    expect((await cli('train', `horse:${out}`, '--max-passes', '1', '--quiet')).code).toBe(0);
    // A folder holding anything else is not replaced.
    writeFileSync(join(out, 'notes.txt'), 'mine');
    refused(await cli('prepare-horse', db, '--out', out, '--train-size', '2', '--superpixels', '20', '--colour-words', '8', '--gradient-words', '8', '--quiet'), 'holds other files than the horse.json and horse.bin it replaces (notes.txt)');
  }, 120_000);
});

/** The flags of a run whose state is the most to carry: pairwise steps, gap sampling, a cache. */
const RUN = ['train', 'synthetic:', '--solver', 'bcpfw', '--sampling', 'gap', '--cache', '--lambda', '0.01', '--seed', '7', '--gap-threshold', '0', '--gap-check', '25'];

describe('C, D. resumed runs are the uninterrupted run, trace line for line', () => {
  it('SIGKILL after a checkpoint, then --resume: the trace loses the lines after the checkpoint and equals one run\'s', async () => {
    const trace = join(dir, 'kill.jsonl');
    const ckpt = join(dir, 'kill.gbc');
    const child = start([...RUN, '--max-passes', '100000', '--checkpoint', ckpt, '--checkpoint-every', '10', '--trace', trace, '--quiet']);
    try {
      // Killed once the trace holds lines written after the last checkpoint (those resume used to repeat).
      await stoppedWhen(() => existsSync(ckpt) && readCheckpoint(ckpt).meta.passes >= 20 && readFileSync(trace, 'utf8').split('\n').length - 1 > readCheckpoint(ckpt).meta.trace.length + 2, child);
      child.proc.kill('SIGKILL');
      await child.exited;
    } finally {
      child.proc.kill('SIGKILL');
    }
    const at = readCheckpoint(ckpt).meta;
    expect(readFileSync(trace, 'utf8').split('\n').length - 1).toBeGreaterThan(at.trace.length);
    const passes = String(at.passes + 30);
    const resumed = await cli(...RUN, '--max-passes', passes, '--resume', ckpt, '--checkpoint', ckpt, '--trace', trace, '--quiet', '--json');
    expect(resumed.code, resumed.stderr).toBe(0);
    const fullTrace = join(dir, 'kill-full.jsonl');
    const full = await cli(...RUN, '--max-passes', passes, '--trace', fullTrace, '--quiet', '--json');
    expect(full.code, full.stderr).toBe(0);
    expect(traceLines(trace)).toEqual(traceLines(fullTrace));
    expect(figures(resumed.json)).toEqual(figures(full.json));
    // A trace of another run is not cut: refused before any work, the file left as it was.
    const other = join(dir, 'other-run.jsonl');
    expect((await cli('train', 'synthetic:', '--max-passes', '3', '--trace', other, '--quiet')).code).toBe(0);
    const before = readFileSync(other);
    refused(await cli(...RUN, '--max-passes', passes, '--resume', ckpt, '--trace', other, '--quiet'), `--trace ${other} does not hold the last event of the checkpoint`);
    expect(readFileSync(other).equals(before)).toBe(true);
  }, 120_000);

  const midPass = async (name: string, run: string[], stop: (child: ReturnType<typeof start>, ckpt: string) => Promise<void>, flags: string[], more: number) => {
    const trace = join(dir, `${name}.jsonl`);
    const ckpt = join(dir, `${name}.gbc`);
    const model = join(dir, `${name}.gbm`);
    const insidePass = () => {
      try {
        return (readCheckpoint(ckpt).meta.passStep ?? 0) > 0;
      } catch {
        return false; // none yet
      }
    };
    // --finish-pass 0: the stop does not finish the pass (its passes take milliseconds here). A stop lands between
    // two mini-batches (or runs of native steps) of a pass, and sometimes on a pass's end: then it is tried again.
    let summary: Record<string, unknown> = {};
    for (let attempt = 0; attempt < 8 && !insidePass(); attempt++) {
      for (const f of [trace, ckpt]) rmSync(f, { force: true });
      const child = start([...run, ...flags, '--finish-pass', '0', '--checkpoint', ckpt, '--trace', trace, '--out', join(dir, `${name}-stopped.gbm`), '--quiet', '--json']);
      try {
        await stop(child, ckpt);
      } finally {
        child.proc.kill('SIGKILL');
      }
      summary = JSON.parse(child.stdout().trim().split('\n').at(-1)!) as Record<string, unknown>;
    }
    expect(summary.gapIsExact).toBe(true); // the stopped run certifies the iterate where it stopped
    const at = readCheckpoint(ckpt).meta;
    expect(at.passStep, 'the stop came inside a pass').toBeGreaterThan(0);
    expect(at.passes).toBe(summary.passes);
    const passes = String(at.passes + more);
    const resumed = await cli(...run, '--max-passes', passes, '--resume', ckpt, '--trace', trace, '--out', model, '--quiet', '--json');
    expect(resumed.code, resumed.stderr).toBe(0);
    const fullModel = join(dir, `${name}-full.gbm`);
    const fullTrace = join(dir, `${name}-full.jsonl`);
    const full = await cli(...run, '--max-passes', passes, '--trace', fullTrace, '--out', fullModel, '--quiet', '--json');
    expect(full.code, full.stderr).toBe(0);
    expect(readFileSync(model).equals(readFileSync(fullModel))).toBe(true);
    expect(figures(resumed.json)).toEqual(figures(full.json));
    expect(traceLines(trace)).toEqual(traceLines(fullTrace));
    return summary;
  };

  /**
   * Passes long enough (12,000 blocks, 10-200 ms) for a stop to land inside one: a run sees signals and its time budget
   * between the pauses of its block steps (native runs of steps of a few milliseconds, TypeScript mini-batches).
   */
  const bigLibsvm = (classes: number): string => {
    const file = join(dir, `big-${classes}.svm`);
    if (existsSync(file)) return file;
    let seed = 1;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
    const rows = Array.from({ length: 12000 }, (_, i) => `${(i % classes) + 1} ${Array.from({ length: 40 }, (_, j) => `${j + 1}:${((j % classes === i % classes ? 1 : 0) + next() - 0.5).toFixed(3)}`).join(' ')}`);
    writeFileSync(file, `${rows.join('\n')}\n`);
    return file;
  };

  it('SIGTERM inside a pass: the checkpoint records the step, and the resumed run is the uninterrupted one (model bytes, summary, trace)', async () => {
    // TypeScript steps in overlapped mini-batches with a cache: the mini-batch in flight is kept.
    const file = bigLibsvm(8);
    const run = ['train', `libsvm:${file}`, '--solver', 'bcpfw', '--sampling', 'gap', '--cache', '--batch', '8', '--overlap', '--lambda', '0.01', '--seed', '7', '--gap-threshold', '0', '--gap-check', '5'];
    await midPass(
      'sigterm',
      run,
      async (child, ckpt) => {
        await until(() => existsSync(ckpt) && readCheckpoint(ckpt).meta.passes >= 3, child);
        child.proc.kill('SIGTERM');
        expect(await child.exited, child.stderr()).toBe(143);
      },
      ['--max-passes', '100000', '--checkpoint-every', '1'],
      4,
    );
  }, 300_000);

  it('--time-budget inside a pass of native steps: the same', async () => {
    // 32 classes: native passes of ~20 ms, runs of steps of a few ms, so that most stops land inside a pass; no
    // scheduled exact pass for the budget to end in.
    const run = ['train', `libsvm:${bigLibsvm(32)}`, '--solver', 'bcpfw', '--sampling', 'gap', '--cache', '--lambda', '0.01', '--seed', '7', '--gap-threshold', '0', '--gap-check', '1000'];
    const stopped = await midPass(
      'budget',
      run,
      async (child) => {
        expect(await child.exited, child.stderr()).toBe(0);
      },
      ['--max-passes', '100000', '--time-budget', '0.3'],
      4,
    );
    expect(stopped.native, 'the run took native steps').toBe(true);
  }, 300_000);
});

describe('E. readers allocate what the file holds', () => {
  it('a 4-line DIMACS file declaring 2e9 nodes under a 1 GB data limit: one line naming file and line, not an 18 GB allocation', unless(hasPrlimit, 'needs prlimit (Linux util-linux)'), async () => {
    const file = join(dir, 'huge.max');
    writeFileSync(file, 'p max 2000000000 1\nn 1 s\nn 2 t\na 1 2 1\n');
    // RLIMIT_DATA rather than RLIMIT_AS: V8 reserves more than 1 GB of address space at start.
    const child = start(['maxflow', file], { wrapper: ['prlimit', '--data=1000000000'] });
    expect(await child.exited, child.stderr()).toBe(2);
    expect(child.stderr().trim()).toBe(`gapbcfw: ${file}:1: node count 2000000000 is more than a file of 39 bytes may declare (at most 1048576: 2^20, or one node per 2 bytes of the file)`);
  }, 60_000);
});

describe('F. signals get through blocking work', () => {
  /** Resolves once process `pid` has `file` open (Linux: its /proc/PID/fd links). */
  const opened = (pid: number, file: string) => () => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`) === file;
        } catch {
          return false;
        }
      });
    } catch {
      return false;
    }
  };

  it.each([
    ['train', (fifo: string) => ['train', `libsvm:${fifo}`, '--out', join(dir, 'fifo.gbm')]],
    ['eval', (fifo: string) => ['eval', join(root, 'test', 'fixtures', 'bad', 'good', 'libsvm-model.gbm'), `libsvm:${fifo}`]],
    ['plot', (fifo: string) => ['plot', fifo, '--out', join(dir, 'fifo.svg')]],
  ] as const)('%s: SIGTERM while reading a FIFO that has no writer exits 143 (only SIGKILL ended it), nothing written', unless(hasFifo && process.platform === 'linux', 'needs mkfifo and /proc (Linux)'), async (name, argv) => {
    const fifo = join(dir, `${name}.fifo`);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const child = start(argv(fifo));
    try {
      await until(opened(child.proc.pid!, fifo), child); // waiting for a writer that never comes
      child.proc.kill('SIGTERM');
      expect(await child.exited, child.stderr()).toBe(143);
    } finally {
      child.proc.kill('SIGKILL');
    }
    expect(child.stderr()).toMatch(/interrupted by SIGTERM before the work started: nothing was written/);
    expect(existsSync(join(dir, 'fifo.gbm')) || existsSync(join(dir, 'fifo.svg'))).toBe(false);
  }, 30_000);

  it('a signal during synchronous loading exits with its status before any work', async () => {
    // The command's setup holds the thread (a long synchronous parse) while the signal arrives; then its work starts.
    const script = [
      "import { runCommand, withInterrupts } from './src/cli/session.ts';",
      'const io = { stdout: process.stdout, stderr: process.stderr };',
      'process.exitCode = await runCommand(io, async () => {',
      "  process.kill(process.pid, 'SIGHUP');",
      '  const t = Date.now(); while (Date.now() - t < 300);',
      "  return withInterrupts(io, 'finishing', async () => { process.stdout.write('worked\\n'); return 0; });",
      '});',
    ].join('\n');
    const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(129);
    expect(r.stdout).not.toContain('worked');
    expect(r.stderr).toMatch(/interrupted by SIGHUP before the work started/);
  }, 30_000);

  it('maxflow --repeat stops after the solve in progress on SIGTERM (it went on for 24 s), with its status', async () => {
    const file = join(dir, 'grid.max');
    const n = 60;
    const arcs: string[] = [];
    const id = (r: number, c: number) => 3 + r * n + c;
    for (let r = 0; r < n; r++) {
      arcs.push(`a 1 ${id(r, 0)} 100`, `a ${id(r, n - 1)} 2 100`);
      for (let c = 0; c < n; c++) {
        if (c + 1 < n) arcs.push(`a ${id(r, c)} ${id(r, c + 1)} ${1 + ((r * 7 + c) % 13)}`);
        if (r + 1 < n) arcs.push(`a ${id(r, c)} ${id(r + 1, c)} ${1 + ((r + c * 5) % 11)}`);
      }
    }
    writeFileSync(file, `p max ${n * n + 2} ${arcs.length}\nn 1 s\nn 2 t\n${arcs.join('\n')}\n`);
    const child = start(['maxflow', file, '--repeat', '1000000', '--json']);
    try {
      await child.waitFor(/maxflow: \d+ of 1000000 solves/);
      child.proc.kill('SIGTERM');
      expect(await child.exited, child.stderr()).toBe(143);
    } finally {
      child.proc.kill('SIGKILL');
    }
    const summary = JSON.parse(child.stdout().trim().split('\n').at(-1)!) as { repeat: number; flow: number };
    expect(summary.repeat).toBeGreaterThan(0);
    expect(summary.repeat).toBeLessThan(1000000);
  }, 60_000);
});

describe('G-M. messages', () => {
  it('plot --x lambda refuses a training trace (it drew a vertical line)', async () => {
    const trace = join(dir, 'train-trace.jsonl');
    expect((await cli('train', 'synthetic:', '--max-passes', '3', '--trace', trace, '--quiet')).code).toBe(0);
    refused(await cli('plot', trace, '--x', 'lambda', '--y', 'gap', '--out', join(dir, 'lambda.svg')), `${trace}:1: a training trace (one lambda, events by pass), not lambda rows`);
    expect(existsSync(join(dir, 'lambda.svg'))).toBe(false);
  });

  it('EISDIR names the file', async () => {
    const folder = join(dir, 'a-folder');
    mkdirSync(folder);
    mkdirSync(join(dir, 'svm-eisdir'));
    const svm = writeTinyLibsvm(join(dir, 'svm-eisdir'));
    const conllModel = join(root, 'test', 'fixtures', 'bad', 'good', 'conll-model.gbm');
    for (const argv of [['train', `libsvm:${folder}`], ['train', svm.train, '--resume', folder], ['eval', folder, svm.train], ['predict', conllModel, folder], ['gap-merge', folder], ['maxflow', folder]]) {
      refused(await cli(...argv), `cannot read ${folder}: is a folder, not a file (EISDIR)`);
    }
  });

  it('the align alias given a chunker model says so (not a CoNLL parse error); tag given an alignment model too', async () => {
    const good = join(root, 'test', 'fixtures', 'bad', 'good');
    refused(await cli('align', join(good, 'conll-model.gbm'), join(good, 'align-pairs.txt')), /^gapbcfw: align applies alignment models, and .*conll-model\.gbm is a sparse-chain model \(trained on conll data\): use gapbcfw predict$/);
    refused(await cli('tag', join(good, 'align-model.gbm'), join(good, 'conll.txt')), /tag applies conll models, and .*align-model\.gbm is a matching model/);
  });

  it('gap-merge accepts the same data spelled ./dir/... and dir/...', async () => {
    const sub = join(dir, 'merge');
    mkdirSync(sub);
    const svm = writeTinyLibsvm(sub);
    const model = join(sub, 'm.gbm');
    expect((await cli('train', svm.train, '--max-passes', '3', '--out', model, '--quiet')).code).toBe(0);
    const file = svm.train.slice('libsvm:'.length);
    const rel = file.slice(dir.length + 1);
    const cwd = process.cwd();
    process.chdir(dir);
    try {
      expect((await cli('gap', model, `libsvm:./${rel}`, '--shard', '0/2', '--out', join(sub, 'p0.json'), '--quiet')).code).toBe(0);
      expect((await cli('gap', model, `libsvm:${rel}`, '--shard', '1/2', '--out', join(sub, 'p1.json'), '--quiet')).code).toBe(0);
    } finally {
      process.chdir(cwd);
    }
    const merged = await cli('gap-merge', join(sub, 'p0.json'), join(sub, 'p1.json'), '--json');
    expect(merged.code, merged.stderr).toBe(0);
    const whole = await cli('gap', model, svm.train, '--json', '--quiet');
    expect(merged.json!.primal).toBe(whole.json!.primal);
  });

  it('path --help offers only the solvers path accepts', async () => {
    const help = (await cli('path', '--help')).stdout;
    const solverLine = help.split('\n').find((l) => l.includes('--solver'))!;
    expect(help).toMatch(/bcfw \| bcpfw \| bcafw \| hybrid; default bcpfw/);
    for (const other of ['cutting-plane', 'ssg;', '| fw', '--qp-tolerance', '--inactive-window']) expect(help).not.toContain(other);
    expect(solverLine).toBeDefined();
  });

  it('maxflow reads a gzip file; binary bytes are never printed', async () => {
    const text = 'p max 4 5\nn 1 s\nn 4 t\na 1 2 3\na 1 3 2\na 2 3 1\na 2 4 2\na 3 4 3\n';
    const gz = join(dir, 'g.max.gz');
    writeFileSync(gz, gzipSync(text));
    const r = await cli('maxflow', gz, '--json');
    expect(r.code, r.stderr).toBe(0);
    expect(r.json!.flow).toBe(5);
    const bin = join(dir, 'binary.max');
    writeFileSync(bin, Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff, 0xfe]));
    const b = await cli('maxflow', bin);
    refused(b, `${bin}:1: unknown line type '<binary bytes: not DIMACS text>'`);
    expect(/[\x00-\x08\x0e-\x1f\x7f-\uffff]/.test(b.stderr)).toBe(false);
  });

  it('a binary file given as text data is named as binary, its bytes never quoted (every text reader)', async () => {
    const bin = join(dir, 'binary.dat');
    writeFileSync(bin, Buffer.from(Array.from({ length: 600 }, (_, k) => (k * 97) % 256))); // byte 0 is NUL
    for (const argv of [['train', `ocr:${bin}`], ['train', `libsvm:${bin}`], ['train', `conll:${bin}`], ['plot', bin], ['gap-merge', bin]]) {
      const r = await cli(...argv);
      refused(r, `${bin}: binary data (byte 0 is NUL), not a text file`);
      expect(/[\x00-\x08\x0e-\x1f\x7f-\uffff]/.test(r.stderr)).toBe(false);
    }
  });

  it.each([
    [['path', 'synthetic:', '--grid', '--kappa', '0.5'], '--kappa applies to the path, not to --grid'],
    [['path', 'synthetic:', '--grid', '--heuristic'], '--heuristic applies to the path, not to --grid'],
    [['path', 'synthetic:', '--grid', '--min-lambda', '0.1'], '--min-lambda applies to the path, not to --grid'],
    [['path', 'synthetic:', '--grid', '--out', 'x.gbp'], '--out applies to the path, not to --grid'],
    [['path', 'synthetic:', '--warm-start', 'keep-dual'], '--warm-start applies to --grid'],
    [['path', 'synthetic:', '--solver', 'ssg'], "--solver must be one of bcfw, bcpfw, bcafw, hybrid, got 'ssg'"],
    [['train', 'synthetic:', '--checkpoint-every', '5'], '--checkpoint-every applies to --checkpoint FILE'],
    [['train', 'libsvm:{SVM}', '--test-limit', '2'], '--test-limit applies to a test part'],
    [['train', 'synthetic:', '--backend', 'native', '--gpu-mode', 'cpu'], '--gpu-mode applies to the gpu.js backend'],
    [['eval', '{MODEL}', 'libsvm:{SVM}', '--part', 'train', '--test', 'libsvm:{SVM}'], '--test applies to the test part'],
    [['eval', '{MODEL}', 'libsvm:{SVM}', '--part', 'test', '--test', 'libsvm:{SVM}', '--limit', '2'], '--limit applies to the training part'],
    [['gap', '{MODEL}', 'libsvm:{SVM}', '--test-limit', '2'], '--test-limit applies to the test part'],
    [['predict', '{CONLL}', '{CONLLTXT}', '--part', 'train'], '--part applies to a data set KIND:PATH'],
    [['prepare-horse', '--merge', '--out', 'x', '--superpixels', '3'], '--merge takes only --out DIR and --allow-incomplete, not --superpixels'],
    [['prepare-horse', '--out', 'x', '--allow-incomplete'], '--allow-incomplete applies to --merge'],
    [['plot', '{TRACE}', '--x', 'lambda', '--optimum', '1'], '--optimum applies to training traces'],
  ])('an option without effect is refused with a reason: %j', async (argv, text) => {
    const good = join(root, 'test', 'fixtures', 'bad', 'good');
    const fill = (s: string) =>
      s.replace('{SVM}', join(good, 'libsvm.txt')).replace('{MODEL}', join(good, 'libsvm-model.gbm')).replace('{CONLL}', join(good, 'conll-model.gbm'))
        .replace('{CONLLTXT}', join(good, 'conll.txt')).replace('{TRACE}', join(root, 'test', 'fixtures', 'bad', 'trace-empty.jsonl'));
    refused(await cli(...argv.map(fill)), text);
  });
});
