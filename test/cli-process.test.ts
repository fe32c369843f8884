// The CLI as a process (node --import tsx src/cli/main.ts): real signals to long commands other than train
// (test/interruption.test.ts covers train), raw input streamed from a pipe that stays open, and a reader that
// goes away early (`| head -1`).
import { spawnSync } from 'node:child_process';
import { closeSync, constants, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readModelFile } from '../src/io/model-file.js';
import { loadModel } from '../src/tasks/model.js';
import { loadPath } from '../src/path/path-file.js';
import { HorseDataset } from '../src/data/horse.js';
import { cli } from './helpers/capture.js';
import { CLI, root, start } from './helpers/child.js';
import { writeTinyConll, writeTinyHansards, writeTinyLibsvm, writeTinyWeizmann } from './helpers/tiny-data.js';
import { unless } from './helpers/skips.js';

const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hasBash = spawnSync('bash', ['-c', 'true']).status === 0;

describe('signals to long commands (a real SIGTERM to the process)', () => {
  it('path: SIGTERM after the first breakpoint ends the current pass, writes the path so far and exits 143', async () => {
    const out = join(dir, 'p.gbp');
    // A long path: a tiny epsilon and no lower end.
    const child = start(['path', 'synthetic:', '--epsilon', '0.001', '--min-lambda', '1e-12', '--out', out, '--json']);
    try {
      await child.waitFor(/lambda \d/);
      child.proc.kill('SIGTERM');
      expect(await child.exited, child.stderr()).toBe(143);
    } finally {
      child.proc.kill('SIGKILL');
    }
    expect(child.stderr()).toMatch(/interrupted by SIGTERM/);
    const summary = JSON.parse(child.stdout().trim().split('\n').at(-1)!) as { stopReason: string; breakpoints: number };
    expect(summary.stopReason).toBe('aborted');
    const path = loadPath(out);
    expect(path.breakpoints.length).toBe(summary.breakpoints);
    expect(path.breakpoints.length).toBeGreaterThan(0);
    expect(path.stopReason).toBe('aborted');
  }, 60_000);

  it('prepare-horse: SIGHUP while featurising stops after the current image, the index lists what was written (incomplete), exit 129', async () => {
    const weizmann = join(dir, 'weizmann');
    await writeTinyWeizmann(weizmann, 2);
    const out = join(dir, 'prepared');
    const child = start(['prepare-horse', weizmann, '--out', out, '--train-size', '2', '--superpixels', '30', '--colour-words', '8', '--gradient-words', '8', '--augment', '2000', '--json']);
    try {
      await child.waitFor(/features 50\//);
      child.proc.kill('SIGHUP');
      expect(await child.exited, child.stderr()).toBe(129);
    } finally {
      child.proc.kill('SIGKILL');
    }
    const summary = JSON.parse(child.stdout().trim().split('\n').at(-1)!) as { images: number; complete?: boolean };
    expect(summary.complete).toBe(false);
    const ds = new HorseDataset(out);
    expect(ds.meta.incomplete).toBe(true);
    expect(ds.meta.images.length).toBe(summary.images);
    expect(summary.images).toBeGreaterThanOrEqual(50);
    expect(summary.images).toBeLessThan(4002);
    expect(ds.read(summary.images - 1).name).toMatch(/_aug\d+$/); // the last record is whole
  }, 60_000);
});

describe('signals while a command reads its data, and multiclass-fw', () => {
  const hasFifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version'], { stdio: 'ignore' }).error === undefined;

  it.each(['eval', 'gap'])('%s: a SIGTERM that comes while the data is read is not lost: exit 143 with a note', unless(hasFifo, 'needs mkfifo (POSIX FIFOs)'), async (command) => {
    const svm = writeTinyLibsvm(mkdtempSync(join(dir, command)));
    const model = join(dir, `${command}-sig.gbm`);
    expect((await cli('train', svm.train, '--max-passes', '2', '--out', model, '--quiet')).code).toBe(0);
    const fifo = join(dir, `${command}.fifo`);
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const child = start([command, model, `libsvm:${fifo}`, '--part', 'train', '--json']);
    let writer: number | undefined;
    try {
      // Once the child has opened the FIFO it blocks reading it: a non-blocking open for writing then succeeds.
      while (writer === undefined) {
        try {
          writer = openSync(fifo, constants.O_WRONLY | constants.O_NONBLOCK);
        } catch {
          await new Promise((r) => setTimeout(r, 20));
        }
      }
      child.proc.kill('SIGTERM');
      await new Promise((r) => setTimeout(r, 200));
      // The child reads the FIFO on its event loop (src/io/input.ts), so it has usually exited already: EPIPE.
      try {
        writeSync(writer, readFileSync(svm.train.slice('libsvm:'.length)));
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== 'EPIPE') throw e;
      }
      closeSync(writer);
      writer = undefined;
      expect(await child.exited, child.stderr()).toBe(143);
    } finally {
      if (writer !== undefined) closeSync(writer);
      child.proc.kill('SIGKILL');
    }
    expect(child.stderr()).toMatch(/interrupted by SIGTERM/);
  }, 60_000);

  it('multiclass-fw: SIGTERM stops after the current iteration, writes W and exits 143', async () => {
    const svm = writeTinyLibsvm(mkdtempSync(join(dir, 'mcfw')));
    const out = join(dir, 'W.gbm');
    const child = start(['multiclass-fw', svm.train, '--tau', '1', '--solver', 'fw', '--max-iterations', '1000000000', '--eval-every', '1', '--out', out, '--json']);
    try {
      await child.waitFor(/^it 50 /m);
      child.proc.kill('SIGTERM');
      expect(await child.exited, child.stderr()).toBe(143);
    } finally {
      child.proc.kill('SIGKILL');
    }
    const summary = JSON.parse(child.stdout().trim().split('\n').at(-1)!) as { stopReason: string; iterations: number };
    expect(summary.stopReason).toBe('aborted');
    expect(summary.iterations).toBeGreaterThanOrEqual(50);
    expect(readModelFile(out).arrays.W!.length).toBeGreaterThan(0);
  }, 60_000);
});

describe('stdout and stdin as files', () => {
  it('--out - writes exactly the model file to stdout (the summary goes to stderr)', () => {
    const args = ['train', 'synthetic:', '--max-passes', '2', '--quiet'];
    const file = join(dir, 'by-file.gbm');
    expect(spawnSync(CLI[0]!, [...CLI.slice(1), ...args, '--out', file], { cwd: root }).status).toBe(0);
    const r = spawnSync(CLI[0]!, [...CLI.slice(1), ...args, '--out', '-'], { cwd: root });
    expect(r.status, String(r.stderr)).toBe(0);
    expect(r.stdout.equals(readFileSync(file))).toBe(true);
    expect(String(r.stderr)).toMatch(/^bcfw stopped/);
  }, 60_000);

  it('--json > /dev/full: one line naming stdout, exit 1', unless(process.platform === 'linux', 'needs Linux (/dev/full)'), () => {
    const full = openSync('/dev/full', 'w');
    try {
      const r = spawnSync(CLI[0]!, [...CLI.slice(1), 'train', 'synthetic:', '--max-passes', '2', '--quiet', '--json'], { cwd: root, stdio: ['ignore', full, 'pipe'], encoding: 'utf8' });
      expect(r.stderr).toBe('gapbcfw: cannot write stdout: no space left on device (ENOSPC)\n');
      expect(r.status).toBe(1);
    } finally {
      closeSync(full);
    }
  }, 60_000);

  it('predict < FILE --out FILE is refused: the input stays as it was', async () => {
    const model = join(dir, 'tag.gbm');
    expect((await cli('train', writeTinyConll(dir), '--min-frequency', '1', '--max-passes', '2', '--out', model, '--quiet')).code).toBe(0);
    const input = join(dir, 'sentences.txt');
    writeFileSync(input, 'He PRP\nreckons VBZ\n\n');
    const fd = openSync(input, 'r');
    try {
      const r = spawnSync(CLI[0]!, [...CLI.slice(1), 'predict', model, '--out', input], { cwd: root, stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8' });
      expect(r.status, r.stderr).toBe(2);
      expect(r.stderr).toMatch(/^gapbcfw: --out .*sentences\.txt: is an input of this command/);
    } finally {
      closeSync(fd);
    }
    expect(readFileSync(input, 'utf8')).toBe('He PRP\nreckons VBZ\n\n');
  }, 60_000);
});

describe('raw input from a pipe (predict / align)', () => {
  let model: string;
  beforeAll(async () => {
    model = join(dir, 'align.gbm');
    const r = await cli('train', writeTinyHansards(dir), '--all', '--max-passes', '5', '--out', model, '--quiet');
    expect(r.code, r.stderr).toBe(0);
  });

  it('aligns each pair as soon as its line arrives (the writer keeps the pipe open), then SIGTERM ends it with exit 143', async () => {
    const child = start(['align', model, '--json'], { stdin: 'pipe' });
    try {
      child.proc.stdin!.write('the house ||| la chambre\n');
      await child.waitFor(/^0-0 1-1\n/, 'stdout');
      child.proc.stdin!.write('yes ||| oui\n');
      await child.waitFor(/^0-0 1-1\n0-0\n/, 'stdout');
      child.proc.kill('SIGTERM'); // stdin is still open: the run must not wait for it
      expect(await child.exited, child.stderr()).toBe(143);
    } finally {
      child.proc.kill('SIGKILL');
    }
    expect(JSON.parse(child.stdout().trim().split('\n').at(-1)!)).toMatchObject({ command: 'predict', pairs: 2 });
  }, 60_000);

  it('a reader that goes away (| head -1, | head -c 10) ends the run quietly with status 0', unless(hasBash, 'needs bash'), async () => {
    const pairs = join(dir, 'many.txt');
    writeFileSync(pairs, 'the house ||| la chambre\n'.repeat(20000)); // 160 KB of links: more than a pipe holds
    const quote = (a: string) => `'${a}'`;
    const cmd = (args: string[], tail: string) => `set -o pipefail; ${[...CLI, ...args].map(quote).join(' ')} | ${tail} > /dev/null`;
    for (const [args, tail] of [
      [['align', model, pairs, '--quiet'], 'head -1'],
      [['eval', model, writeTinyHansards(dir), '--quiet'], 'head -c 10'],
    ] as const) {
      const r = spawnSync('bash', ['-c', cmd([...args], tail)], { cwd: root, encoding: 'utf8' });
      expect(r.stderr, `${args[0]} | ${tail}`).toBe('');
      expect(r.status, `${args[0]} | ${tail}`).toBe(0);
    }
    expect(readFileSync(pairs, 'utf8').length).toBeGreaterThan(1e5);
  }, 60_000);

  it('train --trace - --out MODEL | head: the reader of the trace leaves, the run goes on and writes its model', unless(hasBash, 'needs bash'), () => {
    const out = join(dir, 'after-head.gbm');
    const args = ['train', 'synthetic:', '--max-passes', '100', '--gap-threshold', '0', '--gap-check', '1', '--trace', '-', '--out', out, '--quiet'];
    const r = spawnSync('bash', ['-c', `set -o pipefail; ${[...CLI, ...args].map((a) => `'${a}'`).join(' ')} | head -c 100 > /dev/null`], { cwd: root, encoding: 'utf8' });
    expect(r.status, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/^gapbcfw: stdout: its reader closed it; nothing more is written there, the run goes on \(EPIPE\)$/m);
    expect(r.stderr).toMatch(/^bcfw stopped \(maxPasses.*after pass 100 /m); // the summary, on stderr: stdout was the trace's
    expect(loadModel(out).w.length).toBeGreaterThan(0);
  }, 60_000);
});
