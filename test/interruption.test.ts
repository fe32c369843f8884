// Killing `gapbcfw train` mid-run and resuming from its last checkpoint gives the model of an
// uninterrupted run, byte for byte; SIGINT (Ctrl-C), SIGTERM and SIGHUP stop it with a certified model and exit
// codes 130, 143 and 129.
//
// The run is a child process (node --import tsx src/cli/main.ts). To interrupt it at a known state
// without timing races, its --trace goes to a FIFO that this test opens but does not read: the child
// blocks on the trace once the pipe buffer is full (about 64 KiB, a few hundred events), long before its
// last pass, so it is always mid-run when the signal comes. Linux/macOS only (mkfifo).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, constants, existsSync, mkdtempSync, openSync, readFileSync, readSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { readCheckpoint } from '../src/solvers/checkpoint.js';
import { loadModel } from '../src/tasks/model.js';
import { capture } from './helpers/capture.js';
import { unless } from './helpers/skips.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const hasFifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version'], { stdio: 'ignore' }).error === undefined;
const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-interrupt-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

// The cap counts oracle passes (cache hits are free): 40 of them are about 1,100 block passes here, some
// 300 KiB of trace, more than a pipe buffer holds.
const MAX_PASSES = 40;
/** BCPFW with gap sampling and caching: the most state to carry across a restart (caches, sum tree, PRNG). */
const RUN = ['train', 'synthetic:', '--solver', 'bcpfw', '--sampling', 'gap', '--cache', '--lambda', '0.01', '--seed', '7',
  '--max-passes', String(MAX_PASSES), '--gap-threshold', '0', '--gap-check', '25', '--quiet'];

interface Child {
  proc: ChildProcess;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  stdout: () => string;
  stderr: () => string;
}

function startCli(args: string[]): Child {
  const proc = spawn(process.execPath, ['--import', 'tsx', join(root, 'src/cli/main.ts'), ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  proc.stdout!.on('data', (b) => (out += b));
  proc.stderr!.on('data', (b) => (err += b));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => proc.on('exit', (code, signal) => resolve({ code, signal })));
  return { proc, exited, stdout: () => out, stderr: () => err };
}

/** A FIFO opened for reading (non-blocking, so the child's open for writing does not wait). */
function fifo(name: string): { path: string; fd: number } {
  const path = join(dir, name);
  const r = spawnSync('mkfifo', [path]);
  expect(r.status, String(r.stderr)).toBe(0);
  return { path, fd: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK) };
}

/** Resolves once the checkpoint file holds a state of at least `passes` passes (it is written atomically). */
async function checkpointAtLeast(path: string, passes: number, child: Child): Promise<number> {
  let exitedEarly = false;
  void child.exited.then(() => (exitedEarly = true));
  for (;;) {
    if (existsSync(path)) {
      const p = readCheckpoint(path).meta.passes;
      if (p >= passes) return p;
    }
    if (exitedEarly) throw new Error(`the run exited before a checkpoint of ${passes} passes: ${child.stderr()}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('interruption (child process)', unless(hasFifo, 'needs mkfifo (POSIX FIFOs)'), () => {
  it('SIGKILL mid-run, then --resume from the last checkpoint: the same model file as an uninterrupted run', async () => {
    const trace = fifo('kill.fifo');
    const ckpt = join(dir, 'kill.gbc');
    const child = startCli([...RUN, '--checkpoint', ckpt, '--checkpoint-every', '10', '--trace', trace.path]);
    try {
      await checkpointAtLeast(ckpt, 40, child);
      child.proc.kill('SIGKILL');
      const { signal } = await child.exited;
      expect(signal).toBe('SIGKILL');
    } finally {
      child.proc.kill('SIGKILL');
      closeSync(trace.fd);
    }
    const at = readCheckpoint(ckpt).meta.passes;
    expect(at).toBeGreaterThanOrEqual(40);
    expect(at).toBeLessThan(1000); // it really was killed mid-run (the full run makes about 1,100 passes)
    expect(at % 10).toBe(0);

    const resumedModel = join(dir, 'resumed.gbm');
    const resumed = await capture(main, [...RUN, '--resume', ckpt, '--out', resumedModel, '--json']);
    expect(resumed.code, resumed.stderr).toBe(0);
    const fullModel = join(dir, 'full.gbm');
    const full = await capture(main, [...RUN, '--out', fullModel, '--json']);
    expect(full.code, full.stderr).toBe(0);

    expect(readFileSync(resumedModel).equals(readFileSync(fullModel))).toBe(true);
    const pick = (j: Record<string, unknown> | undefined) => {
      // oracle and oracleCallsPerSecond: timings, and a resumed run counts since it resumed; wallSeconds: this command's
      const { seconds: _s, wallSeconds: _w, model: _m, oracle: _o, oracleCallsPerSecond: _r, ...rest } = j!;
      return rest;
    };
    expect(pick(resumed.json)).toEqual(pick(full.json));
    expect(full.json!.stopReason).toBe('maxPasses');
    expect(full.json!.passes as number).toBeGreaterThan(at);
  });

  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s stops the run after the current pass: a certified model, stopReason aborted, exit %d', async (sig, exitCode) => {
    const trace = fifo(`${sig}.fifo`);
    const ckpt = join(dir, `${sig}.gbc`);
    const model = join(dir, `${sig}.gbm`);
    const child = startCli([...RUN, '--checkpoint', ckpt, '--checkpoint-every', '10', '--trace', trace.path, '--out', model, '--json']);
    let status: { code: number | null; signal: NodeJS.Signals | null };
    try {
      await checkpointAtLeast(ckpt, 40, child);
      child.proc.kill(sig);
      // Drain the trace so that the child can go on, see the signal between passes and stop.
      const buf = Buffer.alloc(1 << 16);
      let done = false;
      void child.exited.then(() => (done = true));
      while (!done) {
        try {
          while (readSync(trace.fd, buf) > 0);
        } catch (e) {
          if ((e as NodeJS.ErrnoException).code !== 'EAGAIN') throw e;
        }
        await new Promise((r) => setTimeout(r, 10));
      }
      status = await child.exited;
    } finally {
      child.proc.kill('SIGKILL');
      closeSync(trace.fd);
    }
    expect(status.code, child.stderr()).toBe(exitCode);
    expect(child.stderr()).toMatch(new RegExp(`interrupted by ${sig}`));
    expect(readCheckpoint(ckpt).meta.passes).toBe(JSON.parse(child.stdout().trim().split('\n').at(-1)!).passes); // the checkpoint of the last pass
    const summary = JSON.parse(child.stdout().trim().split('\n').at(-1)!) as Record<string, number | string | boolean>;
    expect(summary.stopReason).toBe('aborted');
    expect(summary.gapIsExact).toBe(true);
    expect(summary.passes as number).toBeGreaterThanOrEqual(40);
    expect(summary.passes as number).toBeLessThan(1000);

    // The saved model carries that certificate: its exact gap on the training set, recomputed, is the same.
    const saved = loadModel(model);
    expect(saved.w.every(Number.isFinite)).toBe(true);
    const ev = await capture(main, ['eval', model, 'synthetic:', '--part', 'train', '--json']);
    expect(ev.code, ev.stderr).toBe(0);
    expect(ev.json!.dual).toBe(summary.dual);
    expect(ev.json!.gap as number).toBeCloseTo(summary.gap as number, 12);
  });
});
