// Issue 18 through the CLI: outputs that cannot be written (full disks, devices, links, locks), resumes on
// other data, inputs with a byte order mark, the pass cap with a cache, SVRF's returned iterate, figures
// that name their methods, and the documented examples that must reach what their pages say.
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, constants, copyFileSync, existsSync, lstatSync, mkdirSync, mkdtempSync, openSync, readdirSync, readSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import sharp from 'sharp';
import { HORSE_OVERLAY_COLOURS } from '../src/plot/overlays.js';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { FormatError } from '../src/core/errors.js';
import { loadImage } from '../src/data/lsp.js';
import { loadModel } from '../src/tasks/model.js';
import { capture } from './helpers/capture.js';
import { documentedCommand, documentedCommands, runnable } from './helpers/docs.js';
import { writeTinyHansards, writeTinyWeizmann } from './helpers/tiny-data.js';
import { needsData, unless } from './helpers/skips.js';

const root = fileURLToPath(new URL('..', import.meta.url));
const GOOD = join(root, 'test', 'fixtures', 'bad', 'good');
const dir = mkdtempSync(join(tmpdir(), 'gapbcfw-robust-'));
const hasFifo = process.platform !== 'win32' && spawnSync('mkfifo', ['--version'], { stdio: 'ignore' }).error === undefined;
let tmpfs: string | undefined;
if (process.platform === 'linux') {
  const m = join(dir, 'tmpfs');
  mkdirSync(m);
  if (spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', m], { stdio: 'ignore' }).status === 0) tmpfs = m;
}
afterAll(() => {
  if (tmpfs) spawnSync('umount', [tmpfs], { stdio: 'ignore' });
  rmSync(dir, { recursive: true, force: true });
});

const TRAIN = ['train', 'synthetic:', '--lambda', '0.01', '--max-passes', '3', '--quiet'];

/** Exit code `code` with exactly one stderr line, `gapbcfw: ...` containing `text`, and no stack trace. */
function expectOneLine(r: { code: number; stderr: string }, code: number, text: string): void {
  expect(r.code, r.stderr).toBe(code);
  const lines = r.stderr.trim().split('\n');
  expect(lines, r.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^gapbcfw: /);
  expect(lines[0]).not.toMatch(/\s+at |Error:/);
  expect(lines[0]).toContain(text);
}

/** Fills a file system until it is full (the filler is left in place). */
function fill(folder: string): void {
  const chunk = Buffer.alloc(4096, 1);
  const fd = openSync(join(folder, 'filler'), 'w');
  try {
    for (;;) writeSync(fd, chunk);
  } catch {
    /* full */
  } finally {
    closeSync(fd);
  }
}

describe('outputs', () => {
  it('/dev/full: exit 1 with one line naming the file', async () => {
    expectOneLine(await capture(main, [...TRAIN, '--out', '/dev/full']), 1, 'cannot write /dev/full: no space left on device (ENOSPC)');
  });

  it('a full tmpfs: every output fails with one line and leaves no file (0-byte or temporary), lock or folder behind', unless(tmpfs !== undefined, 'needs a small tmpfs (mount -t tmpfs: root on Linux)'), async () => {
    fill(tmpfs!);
    const before = readdirSync(tmpfs!);
    // Every output's lock is written first (src/cli/session.ts): the first write that fails.
    expectOneLine(await capture(main, [...TRAIN, '--out', join(tmpfs!, 'm.gbm')]), 1, `cannot write ${join(tmpfs!, 'm.gbm.lock')}: no space left on device (ENOSPC)`);
    expectOneLine(await capture(main, [...TRAIN, '--trace', join(tmpfs!, 't.jsonl')]), 1, `cannot write ${join(tmpfs!, 't.jsonl.lock')}: no space left on device (ENOSPC)`);
    // The checkpoint's lock cannot be written either: refused before the work, and no empty lock file is left.
    expectOneLine(await capture(main, [...TRAIN, '--checkpoint', join(tmpfs!, 'c.gbc')]), 1, `cannot write ${join(tmpfs!, 'c.gbc.lock')}: no space left on device (ENOSPC)`);
    // A prepared horse set: its records, its index and the folder it made go.
    const db = join(dir, 'weizmann-full-disk');
    await writeTinyWeizmann(db, 2);
    const prepare = ['--train-size', '1', '--superpixels', '20', '--colour-words', '8', '--gradient-words', '8', '--quiet'];
    expectOneLine(await capture(main, ['prepare-horse', db, '--out', join(tmpfs!, 'horse'), ...prepare]), 1, `cannot write ${join(tmpfs!, 'horse.lock')}: no space left on device (ENOSPC)`);
    // PNG overlays into a folder predict makes: the folder goes with the failed image.
    const prepared = join(dir, 'prepared-full-disk');
    expect((await capture(main, ['prepare-horse', db, '--out', prepared, ...prepare])).code).toBe(0);
    const model = join(dir, 'horse-full-disk.gbm');
    expect((await capture(main, ['train', `horse:${prepared}`, '--max-passes', '2', '--out', model, '--quiet'])).code).toBe(0);
    expectOneLine(await capture(main, ['predict', model, `horse:${prepared}`, '--out-dir', join(tmpfs!, 'overlays'), '--quiet']), 1, 'no space left on device (ENOSPC)');
    expect(readdirSync(tmpfs!)).toEqual(before);
    rmSync(join(tmpfs!, 'filler'));
  });

  it('--out /dev/null stays a device; --out LINK writes the link target and keeps the link', async () => {
    expect((await capture(main, [...TRAIN, '--out', '/dev/null'])).code).toBe(0);
    expect(statSync('/dev/null').isCharacterDevice()).toBe(true);
    const target = join(dir, 'target.gbm');
    const link = join(dir, 'link.gbm');
    symlinkSync(target, link);
    expect((await capture(main, [...TRAIN, '--out', link])).code).toBe(0);
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(loadModel(target).w.length).toBeGreaterThan(0);
  });

  it('--checkpoint held by a running process is refused before any work (before the data is read); stale temporary files are removed', async () => {
    const ck = join(dir, 'held.gbc');
    const other = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 30000)']);
    try {
      writeFileSync(`${ck}.lock`, `${other.pid}\n`);
      expectOneLine(await capture(main, [...TRAIN, '--checkpoint', ck]), 2, `--checkpoint ${ck} is being written by process ${other.pid}`);
      expectOneLine(await capture(main, ['train', 'ocr:/nonexistent/letter.data', '--checkpoint', ck]), 2, `--checkpoint ${ck} is being written by process ${other.pid}`);
      expect(existsSync(ck)).toBe(false);
    } finally {
      other.kill('SIGKILL');
      await new Promise((r) => other.on('exit', r));
    }
    const stale = join(dir, `.held.gbc.tmp-${other.pid}-a1b2c3`);
    writeFileSync(stale, 'a killed write');
    expect((await capture(main, [...TRAIN, '--checkpoint', ck])).code).toBe(0);
    expect(existsSync(stale)).toBe(false);
    expect(existsSync(`${ck}.lock`)).toBe(false); // released at the end
  });

  it('paths through a file, empty names and stdout twice: one line naming the option, before any work', async () => {
    const file = join(dir, 'notes.txt');
    writeFileSync(file, 'x');
    expectOneLine(await capture(main, [...TRAIN, '--out', join(file, 'm.gbm')]), 2, `--out ${join(file, 'm.gbm')}: ${file} is not a folder`);
    expectOneLine(await capture(main, [...TRAIN, '--trace', join(file, 'sub', 't.jsonl')]), 2, `--trace ${join(file, 'sub', 't.jsonl')}: ${file} is a file, not a folder`);
    expectOneLine(await capture(main, [...TRAIN, '--out', '/dev/null/m.gbm']), 2, '--out /dev/null/m.gbm: /dev/null is not a folder');
    expectOneLine(await capture(main, ['prepare-horse', '--out', join(file, 'prepared')]), 2, `--out ${join(file, 'prepared')}: ${file} is not a folder`);
    expectOneLine(await capture(main, [...TRAIN, '--out', '']), 2, '--out: an empty file name');
    expectOneLine(await capture(main, [...TRAIN, '--out', '-', '--trace', '-']), 2, '--trace -: --out already writes to stdout');
    expectOneLine(await capture(main, [...TRAIN, '--out', '-', '--json']), 2, '--json needs stdout for its summary, and --out - writes there');
  });

  it('an output on stdout (-, /dev/stdout) keeps stdout to itself: the summary goes to stderr', async () => {
    const r = await capture(main, [...TRAIN, '--gap-threshold', '0', '--trace', '/dev/stdout']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines.length).toBe(3 + 1); // one event per pass and the exact check
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ solver: 'bcfw' });
    expect(r.stderr).toMatch(/^bcfw stopped \(maxPasses/m);
    const graph = join(dir, 'cut.max');
    writeFileSync(graph, 'p max 3 2\nn 1 s\nn 3 t\na 1 2 3\na 2 3 2\n');
    const m = await capture(main, ['maxflow', graph, '--cut', '-']);
    expect(m.code, m.stderr).toBe(0);
    expect(m.stdout.trim().split('\n').every((l) => /^\d+$/.test(l))).toBe(true);
    expect(m.stderr).toMatch(/^flow \d+$/m);
  });

  it('plot makes a missing folder of its figure, but only once the figure is drawn; a file in the way is one line', async () => {
    const trace = join(dir, 'plot-trace.jsonl');
    expect((await capture(main, [...TRAIN, '--trace', trace])).code).toBe(0);
    const fig = join(dir, 'figures', 'sub', 'gap.svg');
    expect((await capture(main, ['plot', trace, '--out', fig])).code).toBe(0);
    expect(existsSync(fig)).toBe(true);
    const file = join(dir, 'plot-notes.txt');
    writeFileSync(file, 'x');
    expectOneLine(await capture(main, ['plot', trace, '--out', join(file, 'gap.svg')]), 2, `--out ${join(file, 'gap.svg')}: ${file} is not a folder`);
    expectOneLine(await capture(main, ['plot', join(dir, 'no-such-trace.jsonl'), '--out', join(dir, 'never', 'gap.svg')]), 2, 'no-such-trace.jsonl');
    expect(existsSync(join(dir, 'never'))).toBe(false);
  });

  it('--trace to a FIFO whose reader leaves: a note, and the run still writes its model', unless(hasFifo, 'needs mkfifo (POSIX FIFOs)'), async () => {
    const fifo = join(dir, 'trace.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);
    const reader = openSync(fifo, constants.O_RDONLY | constants.O_NONBLOCK);
    const model = join(dir, 'after-epipe.gbm');
    const run = capture(main, [...TRAIN, '--gap-threshold', '0', '--trace', fifo, '--out', model]);
    // Leave once the run has opened the FIFO (a read then has data or would block; before, it sees end of file).
    const buf = Buffer.alloc(1 << 16);
    for (;;) {
      try {
        if (readSync(reader, buf) > 0) break;
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code === 'EAGAIN') break;
        throw e;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    closeSync(reader); // the run yields to the event loop between passes, and goes on without its reader
    const r = await run;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toContain(`gapbcfw: ${fifo}: its reader closed it; nothing more is written there (EPIPE)`);
    expect(loadModel(model).w.length).toBeGreaterThan(0);
  });
});

describe('resume and inputs', () => {
  it('a resume on relabelled data (one letter changed, as awk would) is refused, naming the data fingerprint', async () => {
    const ocr = join(dir, 'ocr.data');
    writeFileSync(ocr, readFileSync(join(GOOD, 'ocr.data')));
    const ck = join(dir, 'ocr.gbc');
    const args = ['train', `ocr:${ocr}`, '--split', 'all', '--lambda', '0.1', '--gap-threshold', '0', '--quiet'];
    expect((await capture(main, [...args, '--max-passes', '2', '--checkpoint', ck])).code).toBe(0);
    const relabelled = join(dir, 'relabelled.data');
    const lines = readFileSync(ocr, 'utf8').split('\n');
    const f = lines[2]!.split('\t');
    f[1] = f[1] === 'c' ? 'd' : 'c'; // column 2: the letter
    lines[2] = f.join('\t');
    writeFileSync(relabelled, lines.join('\n'));
    const refused = await capture(main, ['train', `ocr:${relabelled}`, ...args.slice(2), '--max-passes', '4', '--resume', ck]);
    expectOneLine(refused, 2, 'checkpoint was made on other training data (data fingerprint');
    expect((await capture(main, [...args, '--max-passes', '4', '--resume', ck])).code).toBe(0);
  });

  it('a checkpoint or a multiclass-fw weight matrix given as a model: one line saying what it is', async () => {
    const ck = join(dir, 'given-as-model.gbc');
    expect((await capture(main, [...TRAIN, '--checkpoint', ck])).code).toBe(0);
    expectOneLine(await capture(main, ['eval', ck, 'synthetic:']), 2, "format 'gapbcfw-checkpoint': a checkpoint of train --checkpoint; continue it with train --resume");
    const svm = join(GOOD, 'libsvm.txt');
    const W = join(dir, 'W.gbm');
    expect((await capture(main, ['multiclass-fw', `libsvm:${svm}`, '--tau', '1', '--max-iterations', '3', '--out', W, '--quiet'])).code).toBe(0);
    expectOneLine(await capture(main, ['predict', W, `libsvm:${svm}`]), 2, 'the weight matrix W of multiclass-fw (feature-major), not a structured model');
  });

  it('an OCR file with a UTF-8 byte order mark trains exactly as without it', async () => {
    const bom = join(dir, 'bom.data');
    writeFileSync(bom, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(join(GOOD, 'ocr.data'))]));
    const run = async (file: string) => (await capture(main, ['train', `ocr:${file}`, '--split', 'all', '--lambda', '0.1', '--max-passes', '3', '--json', '--quiet'])).json!;
    const a = await run(bom);
    const b = await run(join(GOOD, 'ocr.data'));
    expect(a.primal).toBe(b.primal);
    expect(a.n).toBe(b.n);
  });

  it('LSP images that are empty or corrupt: a FormatError naming the file', async () => {
    const empty = join(dir, 'im0001.jpg');
    writeFileSync(empty, '');
    await expect(loadImage(empty)).rejects.toThrow(FormatError);
    await expect(loadImage(empty)).rejects.toThrow(`${empty}: empty image file (0 bytes)`);
    const corrupt = join(dir, 'im0002.jpg');
    writeFileSync(corrupt, 'GIF89a but not really');
    await expect(loadImage(corrupt)).rejects.toThrow(`${corrupt}: cannot decode the image`);
  });
});

describe('the pass cap and the summary', () => {
  it('with a cache, --max-passes counts the passes that called the oracle (cache hits are free); without, block passes', async () => {
    const run = async (extra: string[]) => (await capture(main, ['train', 'synthetic:', '--lambda', '0.01', '--max-passes', '6', '--gap-threshold', '0', '--json', '--quiet', ...extra])).json!;
    const plain = await run([]);
    expect(plain.passes).toBe(6);
    const cached = await run(['--solver', 'bcpfw', '--sampling', 'gap', '--cache']);
    const n = cached.n as number;
    const oraclePasses = (cached.passes as number) - (cached.cacheHits as number) / n;
    expect(cached.passes as number).toBeGreaterThan(6);
    expect(oraclePasses).toBeGreaterThanOrEqual(6);
    expect(oraclePasses).toBeLessThan(7); // it stopped in the pass that reached the cap
    for (const r of [plain, cached]) {
      expect(r.stopReason).toBe('maxPasses');
      expect(r.thresholdReached).toBe(false);
      expect(r.gapThreshold).toBe(0);
    }
    const human = await capture(main, ['train', 'synthetic:', '--lambda', '0.01', '--max-passes', '2', '--gap-threshold', '1e-9', '--quiet']);
    expect(human.stdout.split('\n')[0]).toMatch(/^bcfw stopped \(maxPasses; the gap is above the threshold 1e-9\) after pass 2/);
    const reached = (await capture(main, ['train', 'synthetic:', '--lambda', '0.01', '--json', '--quiet'])).json!;
    expect(reached).toMatchObject({ stopReason: 'gap', thresholdReached: true });
  });
});

describe('progress lines', () => {
  it("call the test figure a loss (alignment's weighted loss is no error rate) and show the task's own metric", async () => {
    const hansards = writeTinyHansards(mkdtempSync(join(dir, 'hansards-')));
    const r = await capture(main, ['train', hansards, '--folds', '5', '--fold', '1', '--max-passes', '4', '--gap-check', '2', '--lambda', '0.1']);
    expect(r.code, r.stderr).toBe(0);
    const checks = r.stderr.split('\n').filter((l) => l.startsWith('pass '));
    expect(checks.length).toBe(2);
    for (const line of checks) expect(line).toMatch(/ test loss [\d.e-]+ {2}aer [\d.e-]+ /);
    const ocr = await capture(main, ['train', `ocr:${join(GOOD, 'ocr.data')}`, '--split', 'all', '--max-passes', '2', '--gap-check', '1', '--train-error']);
    expect(ocr.stderr).toMatch(/^pass 2 .* train loss [\d.e-]+ /m);
  });
});

describe('figures', () => {
  it('train --trace lines name method, seed, lambda and data: plot titles the figure and names the methods', async () => {
    const a = join(dir, 'a.jsonl');
    const b = join(dir, 'b.jsonl');
    await capture(main, ['train', 'synthetic:', '--lambda', '0.01', '--max-passes', '10', '--gap-check', '2', '--trace', a, '--quiet']);
    await capture(main, ['train', 'synthetic:', '--lambda', '0.01', '--max-passes', '10', '--gap-check', '2', '--solver', 'bcpfw', '--sampling', 'gap', '--cache', '--trace', b, '--quiet']);
    expect(JSON.parse(readFileSync(b, 'utf8').split('\n')[0]!)).toMatchObject({ method: 'bcpfw, gap sampling, cache', seed: 1, lambda: 0.01, data: 'synthetic:' });
    const spec = join(dir, 'fig.json');
    const r = await capture(main, ['plot', a, b, '--out', spec, '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json!.title).toBe('synthetic:, λ = 0.01');
    expect((r.json!.series as { method: string }[]).map((s) => s.method)).toEqual(['bcfw, uniform sampling', 'bcpfw, gap sampling, cache']);
    const text = readFileSync(spec, 'utf8');
    expect(text).toContain('"strokeDash"'); // dash patterns as well as colours
    // Two data sets in one figure are refused.
    const c = join(dir, 'c.jsonl');
    await capture(main, ['train', `ocr:${join(GOOD, 'ocr.data')}`, '--split', 'all', '--lambda', '0.01', '--max-passes', '4', '--gap-check', '2', '--trace', c, '--quiet']);
    expectOneLine(await capture(main, ['plot', a, c, '--out', spec]), 2, 'the traces come from 2 different data sets');
    // One data set reached through a symbolic link is one data set; two files with the same name are told apart by path.
    const linked = join(dir, 'linked-good');
    symlinkSync(GOOD, linked);
    const d = join(dir, 'd.jsonl');
    await capture(main, ['train', `ocr:${join(linked, 'ocr.data')}`, '--split', 'all', '--lambda', '0.01', '--max-passes', '4', '--gap-check', '2', '--trace', d, '--quiet']);
    expect((await capture(main, ['plot', c, d, '--out', spec])).code).toBe(0);
    const other = join(dir, 'other');
    mkdirSync(other, { recursive: true });
    copyFileSync(join(GOOD, 'ocr.data'), join(other, 'ocr.data'));
    const e = join(dir, 'e.jsonl');
    await capture(main, ['train', `ocr:${join(other, 'ocr.data')}`, '--split', 'all', '--lambda', '0.01', '--max-passes', '4', '--gap-check', '2', '--trace', e, '--quiet']);
    const refused = await capture(main, ['plot', c, e, '--out', spec]);
    expectOneLine(refused, 2, `ocr:${join(GOOD, 'ocr.data')}`);
    expect(refused.stderr).toContain(`ocr:${join(other, 'ocr.data')}`);
  });
});

describe('horse outputs', () => {
  it('prepare-horse --out FILE and predict --out-dir FILE: one line; overlays show the ground-truth outline', async () => {
    const db = join(dir, 'weizmann');
    await writeTinyWeizmann(db, 3);
    const file = join(dir, 'a-file');
    writeFileSync(file, 'x');
    const prepare = ['--train-size', '2', '--superpixels', '20', '--colour-words', '8', '--gradient-words', '8', '--quiet'];
    expectOneLine(await capture(main, ['prepare-horse', db, '--out', file, ...prepare]), 2, `${file}: exists and is not a folder`);
    const prepared = join(dir, 'prepared');
    expect((await capture(main, ['prepare-horse', db, '--out', prepared, ...prepare])).code).toBe(0);
    const model = join(dir, 'horse.gbm');
    expect((await capture(main, ['train', `horse:${prepared}`, '--lambda', '0.1', '--max-passes', '10', '--out', model, '--quiet'])).code).toBe(0);
    expectOneLine(await capture(main, ['predict', model, `horse:${prepared}`, '--out-dir', file, '--quiet']), 2, `--out-dir ${file}: exists and is not a folder`);
    const out = join(dir, 'overlays');
    expect((await capture(main, ['predict', model, `horse:${prepared}`, '--out-dir', out, '--quiet'])).code).toBe(0);
    const { data, info } = await sharp(join(out, 'horse003.png')).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([480, 48 + 34]); // the mask's size (the images are prepared at it) over the key strip
    const [r, g, b] = HORSE_OVERLAY_COLOURS.truthBoundary;
    let outline = 0;
    for (let y = 0; y < 48; y++) for (let x = 0; x < 64; x++) if ([r, g, b].every((v, c) => data[info.channels * (y * info.width + x) + c] === v)) outline++;
    expect(outline).toBeGreaterThan(50); // the outline of the true disc, about 2 pi 15 pixels
  });
});

describe('the README "Minding the Gaps" example (OCR-small, real data)', needsData('ocr', 'letter.data.gz'), () => {
  it('reaches its --gap-threshold 0.01 (cache passes no longer use up the pass cap)', { timeout: 600_000 }, async () => {
    const argv = documentedCommand('README.md', 'train ocr:letter.data.gz --split small --lambda 1e-3 --solver bcpfw --sampling gap --cache');
    expect(argv).toContain('--gap-threshold');
    const r = await capture(main, [...runnable(argv, dir), '--json', '--quiet']);
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ stopReason: 'gap', thresholdReached: true, gapIsExact: true, gapThreshold: 0.01 });
    expect(r.json!.gap as number).toBeLessThanOrEqual(0.01);
  });
});

describe('the multiclass examples of the README and the multiclass page (real data)', needsData(['multiclass', 'fashion_mnist_test'], ['multiclass', 'pendigits']), () => {
  it('the SVRF example returns a model below the all-zero objective ln 10 and says which iterate it is', { timeout: 300_000 }, async () => {
    for (const page of ['docs/models/multiclass.md', 'README.md']) {
      const argv = documentedCommand(page, 'multiclass-fw idx:fashion_mnist_test/');
      const r = await capture(main, [...runnable(argv, dir), '--json', '--quiet']);
      expect(r.code, r.stderr).toBe(0);
      expect(r.json!.objective as number).toBeLessThan(Math.log(10));
      expect(r.json!.returned).toMatch(/^best evaluated iterate \(iteration \d+\)$/);
      expect(r.json!.testAccuracy as number).toBeGreaterThan(0.3); // the all-zero model scores 0.1
    }
  });

  it("the README's residual figure: both traces it plots are written by its commands, on one data set", { timeout: 300_000 }, async () => {
    const folder = mkdtempSync(join(dir, 'residual-'));
    const block = documentedCommands('README.md').filter((c) => /^gapbcfw (multiclass-fw libsvm:pendigits|plot svrf\.jsonl)/.test(c.line));
    expect(block.map((c) => c.argv[0])).toEqual(['multiclass-fw', 'multiclass-fw', 'plot']);
    for (const { argv } of block) {
      const r = await capture(main, [...runnable(argv, folder), '--json', '--quiet']);
      expect(r.code, `${argv.join(' ')}: ${r.stderr}`).toBe(0);
      if (argv[0] === 'plot') expect((r.json!.series as { method: string }[]).map((s) => s.method).sort()).toEqual(['afw', 'svrf']);
    }
  });
});

describe('pose skeleton drawing', () => {
  it('draws prediction (left and right limbs in their own colours) and truth over the image scaled to >= 480 px, with a key strip', async () => {
    const { poseSkeletonPng } = await import('../src/plot/overlays.js');
    const W = 60;
    const H = 100;
    const image = { width: W, height: H, channels: 3, data: new Float64Array(W * H * 3).fill(90) };
    const joints = (dx: number) => ({ x: Array.from({ length: 14 }, (_, j) => 10 + dx + 3 * j), y: Array.from({ length: 14 }, (_, j) => 10 + 6 * j) });
    const png = await poseSkeletonPng(image, joints(5), joints(0));
    const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([480, 5 * H + 34]); // wide enough for the key's three entries
    const at = (x: number, y: number) => [...data.subarray(info.channels * (y * info.width + x), info.channels * (y * info.width + x) + 3)];
    const count = { green: 0, orange: 0, blue: 0, white: 0 };
    for (let y = 0; y < 5 * H; y++) {
      for (let x = 0; x < 5 * W; x++) {
        const [r, g, b] = at(x, y) as [number, number, number];
        const colour = g > 200 && r < 100 && b < 100 ? 'green' : r > 240 && g > 120 && g < 160 && b < 60 ? 'orange' : r < 80 && g > 130 && g < 170 && b > 240 ? 'blue' : r > 240 && g > 240 && b > 240 ? 'white' : undefined;
        if (colour) count[colour]++;
      }
    }
    expect(count.green).toBeGreaterThan(200); // predicted head and torso
    expect(count.orange).toBeGreaterThan(150); // the person's right limbs
    expect(count.blue).toBeGreaterThan(150); // the left limbs
    expect(count.white).toBeGreaterThan(100); // dashed ground-truth sticks
    expect(at(2, 5 * H + 3)).toEqual([32, 32, 32]); // the key strip
  });
});

describe('path progress', () => {
  it('says what it does after its last breakpoint (the test error at every lambda), with a count', async () => {
    const r = await capture(main, ['path', 'synthetic:', '--epsilon', '0.5']);
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stderr.trim().split('\n');
    const breakpoints = lines.filter((l) => l.startsWith('lambda ')).length;
    expect(breakpoints).toBeGreaterThan(2);
    expect(lines.at(-1)).toMatch(new RegExp(`^test error at each lambda: ${breakpoints}/${breakpoints} \\(100%`));
    expect((await capture(main, ['path', 'synthetic:', '--epsilon', '0.5', '--quiet'])).stderr).toBe('');
  });
});
