import { describe, expect, it } from 'vitest';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { Rng } from '../src/core/rng.js';
import {
  augmentImage, BETAS, chi2, decodeRecord, encodeRecord, featuriseImage, HorseDataset, learnCodebooks, pairwiseDim, prepareHorse, unaryDim,
  writeHorseDataset, type HorseImage,
} from '../src/data/horse.js';
import { SegmentationModel } from '../src/models/segmentation.js';
import { FormatError, InputError } from '../src/core/errors.js';
import { modelProblem } from '../src/engine/problem.js';
import { existsSync } from 'node:fs';
import { main } from '../src/cli/main.js';
import { loadModel } from '../src/tasks/model.js';
import { capture, cli } from './helpers/capture.js';
import { dataPath } from '../src/data/paths.js';
import { writeTinyWeizmann } from './helpers/tiny-data.js';
import { needsData } from './helpers/skips.js';
import { HORSE_OVERLAY_COLOURS } from '../src/plot/overlays.js';

const COLOURS: [number, number, number][] = [[255, 0, 0], [0, 255, 0], [0, 0, 255], [255, 255, 255]];

/** 40 x 40: quadrants red | green / blue | white; the horse is the right half. */
function quadrantImage(): HorseImage {
  const H = 40;
  const W = 40;
  const rgb = new Uint8Array(H * W * 3);
  const mask = new Uint8Array(H * W);
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      rgb.set(COLOURS[(y < 20 ? 0 : 2) + (x < 20 ? 0 : 1)]!, 3 * (y * W + x));
      mask[y * W + x] = x >= 20 ? 1 : 0;
    }
  }
  return { name: 'quadrants', height: H, width: W, rgb, mask };
}

const OPTS = { colourWords: 4, gradientWords: 0, locationGrid: 4, superpixels: 4 };

describe('horse features on a hand-made image', () => {
  const image = quadrantImage();
  const codebooks = learnCodebooks([image], OPTS);
  const rec = featuriseImage(image, codebooks, OPTS);
  const g = rec.graph;
  // superpixel ids of the quadrants TL, TR, BL, BR
  const [TL, TR, BL, BR] = [0, 20, 800, 820].map((p) => rec.superpixels[p]!) as [number, number, number, number];
  const dU = unaryDim(OPTS);
  const dP = pairwiseDim(OPTS);
  const word = (c: [number, number, number]) => {
    for (let k = 0; k < 4; k++) if ([0, 1, 2].every((j) => Math.abs(codebooks.colour[3 * k + j]! - c[j]!) < 1e-3)) return k;
    throw new Error('colour not in the codebook');
  };

  it('has four superpixels, 400 pixels each, four edges and majority labels', () => {
    expect(dU).toBe(1 + 3 * (16 + 4));
    expect(dP).toBe(1 + 6 * 11);
    expect(g.numNodes).toBe(4);
    expect(new Set([TL, TR, BL, BR]).size).toBe(4);
    expect([...g.areas]).toEqual([400, 400, 400, 400]);
    const edges = [...g.edgeFrom].map((a, e) => [Math.min(a, g.edgeTo[e]!), Math.max(a, g.edgeTo[e]!)].join('-')).sort();
    const want = [[TL, TR], [TL, BL], [TR, BR], [BL, BR]].map(([a, b]) => [Math.min(a!, b!), Math.max(a!, b!)].join('-')).sort();
    expect(edges).toEqual(want);
    expect([rec.labels[TL], rec.labels[TR], rec.labels[BL], rec.labels[BR]]).toEqual([0, 1, 0, 1]);
    expect(g.unary.length).toBe(4 * dU);
    expect(g.pairwise.length).toBe(4 * dP);
  });

  it('unary features: constant, location and colour histograms of the superpixel and its neighbourhoods', () => {
    const f = g.unary.subarray(TL * dU, TL * dU + dU);
    expect(f[0]).toBe(1);
    const TLcells = [0, 1, 4, 5];
    const TRcells = [2, 3, 6, 7];
    const BLcells = [8, 9, 12, 13];
    for (let c = 0; c < 16; c++) {
      expect(f[1 + c]).toBeCloseTo(TLcells.includes(c) ? 0.5 : 0, 6); // sqrt(1/4)
      expect(f[17 + c]).toBeCloseTo([...TLcells, ...TRcells, ...BLcells].includes(c) ? Math.sqrt(1 / 12) : 0, 6);
      expect(f[33 + c]).toBeCloseTo(0.25, 6); // the whole image
    }
    const col = 49;
    const red = word(COLOURS[0]!);
    const white = word(COLOURS[3]!);
    for (let k = 0; k < 4; k++) {
      expect(f[col + k]).toBeCloseTo(k === red ? 1 : 0, 6);
      expect(f[col + 4 + k]).toBeCloseTo(k === white ? 0 : Math.sqrt(1 / 3), 6);
      expect(f[col + 8 + k]).toBeCloseTo(0.5, 6);
    }
  });

  it('pairwise features: constant and exp(-beta chi2) for each histogram and beta', () => {
    let e = 0;
    while (!((g.edgeFrom[e] === TL && g.edgeTo[e] === TR) || (g.edgeFrom[e] === TR && g.edgeTo[e] === TL))) e++;
    const p = g.pairwise.subarray(e * dP, e * dP + dP);
    expect(p[0]).toBe(1);
    // chi2 per histogram: location self 2 (disjoint), first-order 2/3, second-order 0; colour the same.
    const d = [2, 2 / 3, 0, 2, 2 / 3, 0];
    d.forEach((dist, h) => BETAS.forEach((beta, b) => expect(p[1 + 11 * h + b]).toBeCloseTo(Math.exp(-beta * dist), 6)));
    expect(chi2([0.5, 0.5, 0], [0, 0.5, 0.5])).toBeCloseTo(1, 12);
  });

  it('records round-trip through the binary format, and bad files are refused', () => {
    const back = decodeRecord(encodeRecord(rec), 'quadrants', 'test');
    expect(back.graph.numNodes).toBe(4);
    expect([...back.graph.unary]).toEqual([...g.unary]);
    expect([...back.graph.pairwise]).toEqual([...g.pairwise]);
    expect([...back.graph.edgeFrom]).toEqual([...g.edgeFrom]);
    expect([...back.graph.areas]).toEqual([...g.areas]);
    expect([...back.labels]).toEqual([...rec.labels]);
    expect([...back.superpixels]).toEqual([...rec.superpixels]);
    const bad = encodeRecord(rec);
    bad.write('XXXX', 0, 'latin1');
    expect(() => decodeRecord(bad, 'q', 'test')).toThrow(FormatError);
    expect(() => decodeRecord(encodeRecord(rec).subarray(0, 100), 'q', 'test')).toThrow(/bytes/);

    const dir = mkdtempSync(join(tmpdir(), 'horse-'));
    try {
      writeHorseDataset(dir, [{ ...rec, split: 'train' }, { ...rec, name: 'copy', split: 'test' }], OPTS, codebooks);
      const ds = new HorseDataset(dir);
      expect(ds.meta.dUnary).toBe(dU);
      expect(ds.indices('train')).toEqual([0]);
      expect(ds.indices('test')).toEqual([1]);
      const { xs, ys } = ds.load('all');
      expect([...xs[1]!.unary]).toEqual([...g.unary]);
      // the model accepts the records as they are
      const model = new SegmentationModel({ dUnary: ds.meta.dUnary, dPairwise: ds.meta.dPairwise });
      expect(modelProblem(model, xs, ys).n).toBe(2);
      const meta = JSON.parse(readFileSync(join(dir, 'horse.json'), 'utf8'));
      writeFileSync(join(dir, 'horse.json'), JSON.stringify({ ...meta, version: 99 }));
      expect(() => new HorseDataset(dir)).toThrow(/version 99/);
      expect(() => new HorseDataset(join(dir, 'nope'))).toThrow(InputError);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('augmentation', () => {
  it('moves image and mask together (flip, crop, jitter keep them aligned)', () => {
    const H = 30;
    const W = 40;
    const rgb = new Uint8Array(H * W * 3);
    const mask = new Uint8Array(H * W);
    for (let p = 0; p < H * W; p++) {
      const on = (p % W) < 12 && Math.floor(p / W) > 5 ? 1 : 0; // a block on the left
      mask[p] = on;
      if (on) rgb.set([200, 200, 200], 3 * p);
    }
    const rng = new Rng(5);
    let flipped = 0;
    for (let k = 0; k < 20; k++) {
      const a = augmentImage({ name: 'x', height: H, width: W, rgb, mask }, rng, `x_aug${k}`);
      expect([a.height, a.width, a.name]).toEqual([H, W, `x_aug${k}`]);
      for (let p = 0; p < H * W; p++) expect(a.rgb[3 * p]! > 100 ? 1 : 0).toBe(a.mask![p]);
      if (a.mask![W * (H - 1) + W - 1]) flipped++;
    }
    expect(flipped).toBeGreaterThan(0);
    expect(flipped).toBeLessThan(20);
  });
});

describe('prepareHorse end to end (images decoded with sharp)', () => {
  it('decodes a tiny Weizmann-layout folder, featurises and writes the split', async () => {
    const root = mkdtempSync(join(tmpdir(), 'weizmann-'));
    const out = join(root, 'prepared');
    try {
      await writeTinyWeizmann(root, 3);
      const opts = { colourWords: 8, gradientWords: 16, superpixels: 20, trainSize: 2, augment: 1 };
      const meta = await prepareHorse(root, out, opts);
      expect(meta.images.map((i) => [i.name, i.split, i.height, i.width])).toEqual([
        ['horse001', 'train', 48, 64], ['horse002', 'train', 48, 64], ['horse003', 'test', 48, 64],
        ['horse001_aug1', 'train', 48, 64], ['horse002_aug1', 'train', 48, 64],
      ]);
      expect(meta.dUnary).toBe(1 + 3 * (16 + 8 + 16));
      expect(meta.dPairwise).toBe(100);
      const ds = new HorseDataset(out);
      const r = ds.read(2);
      expect(r.graph.numNodes).toBeGreaterThan(10);
      // the disc covers about 707 of 3072 pixels: so do the foreground superpixels
      let fg = 0;
      for (let i = 0; i < r.graph.numNodes; i++) if (r.labels[i]) fg += r.graph.areas[i]!;
      expect(fg).toBeGreaterThan(500);
      expect(fg).toBeLessThan(900);
      for (const v of r.graph.pairwise) expect(v).toBeGreaterThanOrEqual(0);
      // The generic commands read it as `horse:DIR`: train with positivity, eval, and the exact gap pass.
      const model = join(root, 'generic.gbm');
      const t = await capture(main, ['train', `horse:${out}`, '--lambda', '0.1', '--max-passes', '20', '--gap-threshold', '0', '--out', model, '--json', '--quiet']);
      expect(t.code).toBe(0);
      expect(t.json!.n).toBe(4);
      expect(loadModel(model).w.slice(meta.dUnary).every((x) => x >= 0)).toBe(true); // Potts weights clipped at 0
      const g = await capture(main, ['gap', model, `horse:${out}`, '--json']);
      expect(g.json!.gap as number).toBeCloseTo(t.json!.gap as number, 10);
      const e = await capture(main, ['eval', model, `horse:${out}`, '--json']);
      expect(e.json!.testError as number).toBeCloseTo(t.json!.testError as number, 12);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('parts prepared in parallel (--copies, --no-originals, --part, --merge) equal one sequential run byte for byte', async () => {
    const root = mkdtempSync(join(tmpdir(), 'weizmann-parts-'));
    try {
      await writeTinyWeizmann(root, 3);
      const opts = ['--train-size', '2', '--superpixels', '20', '--colour-words', '8', '--gradient-words', '8', '--augment', '3', '--json', '--quiet'];
      const seq = join(root, 'seq');
      const par = join(root, 'par');
      const prepare = async (...argv: string[]) => (await cli('prepare-horse', ...argv)).code;
      expect(await prepare(root, '--out', seq, ...opts)).toBe(0);
      expect(await prepare(root, '--out', par, ...opts, '--copies', '2-3', '--no-originals', '--part', 'b')).toBe(0);
      expect(await prepare(root, '--out', par, ...opts, '--copies', '1-1', '--part', 'a')).toBe(0);
      expect(await prepare('--merge', '--out', par, '--json')).toBe(0);
      const a = new HorseDataset(seq);
      const b = new HorseDataset(par);
      expect(b.meta.images.map((i) => i.name)).toEqual(a.meta.images.map((i) => i.name));
      expect(b.meta.images.map((i) => i.file)).toEqual(['horse-a.bin', 'horse-a.bin', 'horse-a.bin', 'horse-a.bin', 'horse-a.bin', 'horse-b.bin', 'horse-b.bin', 'horse-b.bin', 'horse-b.bin']);
      for (let k = 0; k < a.meta.images.length; k++) expect(encodeRecord(b.read(k)).equals(encodeRecord(a.read(k)))).toBe(true);
      // augmented copies differ from each other (they are seeded per copy and image)
      expect(encodeRecord(a.read(3)).equals(encodeRecord(a.read(5)))).toBe(false);
      expect(await prepare(root, '--out', par, '--copies', '9-2', '--augment', '3')).toBe(2);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });

  it('CLI: prepare-horse, train horse:DIR, predict (PNG overlays with the ground truth, pixel accuracy above all-background), exit code 2 on bad usage', async () => {
    const root = mkdtempSync(join(tmpdir(), 'weizmann-cli-'));
    try {
      await writeTinyWeizmann(root, 4);
      const prep = join(root, 'prep');
      let c = await cli('prepare-horse', root, '--out', prep, '--train-size', '2', '--superpixels', '30', '--colour-words', '8', '--gradient-words', '8', '--json', '--quiet');
      expect(c.code).toBe(0);
      expect(c.json).toMatchObject({ images: 4, train: 2, test: 2, dPairwise: 100 });
      const model = join(root, 'm.gbm');
      c = await cli('train', `horse:${prep}`, '--out', model, '--lambda', '0.01', '--max-passes', '30', '--gap-threshold', '0.01', '--train-error', '--json', '--quiet');
      expect(c.code).toBe(0);
      expect(c.json!.trainError as number).toBeLessThan(0.2);
      const outDir = join(root, 'pred');
      c = await cli('predict', model, `horse:${prep}`, '--out-dir', outDir, '--json', '--quiet');
      expect(c.code).toBe(0);
      const pr = c.json!;
      expect(pr.images).toBe(2);
      expect(pr.testError as number).toBeLessThan(0.3);
      expect(pr.pixelAccuracy as number).toBeGreaterThan(0.8);
      expect(pr.pixelAccuracy as number).toBeGreaterThan(pr.allBackgroundAccuracy as number);
      expect(pr.pixelTestError as number).toBeLessThan(0.3);
      expect(existsSync(join(outDir, 'horse003.png'))).toBe(true);
      const meta = await sharp(join(outDir, 'horse003.png')).metadata();
      // The 64 x 48 image at its own size, top left, over a key strip (34 px) wide enough for its three entries.
      expect([meta.width, meta.height, meta.format]).toEqual([480, 48 + 34, 'png']);
      // The overlay draws the ground-truth boundary as well as the prediction, in colours that differ in greyscale.
      const { data, info } = await sharp(join(outDir, 'horse003.png')).raw().toBuffer({ resolveWithObject: true });
      const count = (rgb: readonly number[]) => {
        let k = 0;
        for (let y = 0; y < 48; y++) for (let x = 0; x < 64; x++) if ([0, 1, 2].every((c) => data[info.channels * (y * info.width + x) + c] === rgb[c])) k++;
        return k;
      };
      const { truthBoundary, predictedBoundary } = HORSE_OVERLAY_COLOURS;
      expect(count(truthBoundary)).toBeGreaterThan(0);
      expect(count(predictedBoundary)).toBeGreaterThan(0);
      const luminance = ([r, g, b]: readonly number[]) => 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
      expect(Math.abs(luminance(truthBoundary) - luminance(predictedBoundary))).toBeGreaterThan(120);
      c = await cli('predict', model, `horse:${prep}`, '--out', join(root, 'x.txt'));
      expect(c.code).toBe(2);
      expect(c.stderr).toMatch(/images: give --out-dir/);
      expect((await cli('prepare-horse', root)).code).toBe(2);
      expect((await cli('train', `horse:${join(root, 'nope')}`)).code).toBe(2);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});

describe('real Weizmann horses (40 images)', needsData('weizmann_horse', 'weizmann_horse_db', 'rgb'), () => {
  it('prepare-horse, train horse:DIR and predict: pixel accuracy above the all-background accuracy', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'weizmann-real-'));
    try {
      const prep = join(dir, 'horse');
      const p = await cli('prepare-horse', dataPath('weizmann_horse'), '--out', prep, '--limit', '40', '--train-size', '20', '--colour-words', '32', '--gradient-words', '32', '--json', '--quiet');
      expect(p.code, p.stderr).toBe(0);
      expect(p.json).toMatchObject({ images: 40, train: 20, test: 20 });
      const model = join(dir, 'horse.gbm');
      const t = await cli('train', `horse:${prep}`, '--lambda', '10', '--max-passes', '30', '--out', model, '--json', '--quiet');
      expect(t.code, t.stderr).toBe(0);
      const r = await cli('predict', model, `horse:${prep}`, '--json', '--quiet');
      expect(r.code, r.stderr).toBe(0);
      expect(r.json!.n).toBe(20);
      expect(r.json!.pixelAccuracy as number).toBeGreaterThan((r.json!.allBackgroundAccuracy as number) + 0.05);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 300_000);
});
