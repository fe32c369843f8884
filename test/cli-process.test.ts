// The CLI as a process (node --import tsx src/cli/main.ts): real signals to long commands other than train
// (test/interruption.test.ts covers train), raw input streamed from a pipe that stays open, and a reader that
// goes away early (`| head -1`).
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadPath } from '../src/io/path-file.js';
import { HorseDataset } from '../src/data/horse.js';
import { cli } from './helpers/capture.js';
import { writeTinyHansards, writeTinyWeizmann } from './helpers/tiny-data.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const CLI = [process.execPath, '--import', 'tsx', join(root, 'src/cli/main.ts')];
const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-process-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const hasBash = spawnSync('bash', ['-c', 'true']).status === 0;

interface Child {
  proc: ChildProcess;
  exited: Promise<number | null>;
  stdout: () => string;
  stderr: () => string;
  /** Resolves when stdout (or stderr) matches. */
  waitFor: (re: RegExp, stream?: 'stdout' | 'stderr') => Promise<void>;
}

function start(args: string[], stdin: 'pipe' | 'ignore' = 'ignore'): Child {
  const proc = spawn(CLI[0]!, [...CLI.slice(1), ...args], { cwd: root, stdio: [stdin, 'pipe', 'pipe'] });
  const text = { stdout: '', stderr: '' };
  const waiting: { re: RegExp; stream: 'stdout' | 'stderr'; resolve: () => void }[] = [];
  const check = () => {
    for (const w of [...waiting]) if (w.re.test(text[w.stream])) waiting.splice(waiting.indexOf(w), 1) && w.resolve();
  };
  proc.stdout!.on('data', (b) => ((text.stdout += b), check()));
  proc.stderr!.on('data', (b) => ((text.stderr += b), check()));
  const exited = new Promise<number | null>((resolve) => proc.on('exit', (code) => resolve(code)));
  const waitFor = (re: RegExp, stream: 'stdout' | 'stderr' = 'stderr') =>
    new Promise<void>((resolve, reject) => {
      waiting.push({ re, stream, resolve });
      check();
      void exited.then(() => reject(new Error(`exited before ${re}: ${text.stderr}`)));
    });
  return { proc, exited, stdout: () => text.stdout, stderr: () => text.stderr, waitFor };
}

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

describe('raw input from a pipe (predict / align)', () => {
  let model: string;
  beforeAll(async () => {
    model = join(dir, 'align.gbm');
    const r = await cli('train', writeTinyHansards(dir), '--all', '--max-passes', '5', '--out', model, '--quiet');
    expect(r.code, r.stderr).toBe(0);
  });

  it('aligns each pair as soon as its line arrives (the writer keeps the pipe open), then SIGTERM ends it with exit 143', async () => {
    const child = start(['align', model, '--json'], 'pipe');
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

  it.skipIf(!hasBash)('a reader that goes away (| head -1, | head -c 10) ends the run quietly with status 0', async () => {
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
});
