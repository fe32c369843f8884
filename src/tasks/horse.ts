/**
 * `horse:DIR`: a folder written by `gapbcfw prepare-horse` (superpixel graphs with HorseSeg-style features; format
 * in docs/horse-format.md), its fixed train/test split. The model is the graph-cut segmentation SSVM with
 * positivity on the Potts weights. Sets whose records exceed 1 GiB are read from disk per oracle call (`--stream`
 * forces it, `--in-memory` forbids it): that decision is made here. Predictions: PNG overlays of the original
 * images (src/plot/overlays.ts: the prediction tinted red, its superpixel boundary yellow, the ground-truth outline
 * cyan) and, where the original masks can be read, pixel accuracy and the class-normalised pixel error.
 * @module
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { arrayDataset, type ArrayDataset } from '../core/dataset.js';
import { HorseDataset, horseFingerprint, loadWeizmannImage } from '../data/horse.js';
import { makeOutputDir, writeOutput } from '../io/output.js';
import { horseOverlayPng } from '../plot/overlays.js';
import { shouldStream, StreamedHorseSet } from '../data/horse-stream.js';
import { withAreas, type SegmentationLabel } from '../models/segmentation.js';
import { noFields } from './common.js';
import type { SegmentationSpec } from './model-kinds.js';
import type { PredictionTarget, PredictionWriter, Task } from './types.js';

export const horseTask: Task = {
  kind: 'horse',
  data: 'horse:DIR',
  summary: 'a folder written by gapbcfw prepare-horse (superpixel graphs, HorseSeg-style features); its own train/test split',
  predictions: 'images',
  options: [],
  async load(dir, o) {
    const ds = new HorseDataset(dir);
    const spec: SegmentationSpec = { kind: 'segmentation', numFeatures: ds.meta.dUnary, numLabels: 2, labelNames: ['background', 'foreground'], dPairwise: ds.meta.dPairwise };
    const indices = { train: ds.indices('train').slice(0, o.limit ?? Infinity), test: ds.indices('test').slice(0, o.testLimit ?? Infinity) };
    const base = {
      task: 'horse' as const,
      spec,
      fields: noFields(),
      writer: (part: 'train' | 'test', target: PredictionTarget) => overlayWriter(ds, indices[part], target.dir),
    };
    if (shouldStream(ds, [...indices.train, ...indices.test], o.stream)) {
      // Out of core (src/data/horse-stream.ts): records are read per oracle call; modelProblem streams its passes.
      const [train, test] = [new StreamedHorseSet(ds, indices.train), new StreamedHorseSet(ds, indices.test)];
      return {
        ...base,
        train,
        test: test.length > 0 ? test : undefined,
        description: `horse: ${train.length} train / ${test.length} test images (streamed from disk), ${spec.numFeatures} unary + ${spec.dPairwise} pairwise features`,
      };
    }
    const wanted = new Set(o.parts ?? ['train', 'test']);
    const read = (part: 'train' | 'test') => (wanted.has(part) ? inMemory(ds, indices[part]) : arrayDataset([], []));
    const [train, test] = [read('train'), read('test')];
    return {
      ...base,
      train,
      test: test.length > 0 ? test : undefined,
      description: `horse: ${indices.train.length} train / ${indices.test.length} test images, ${spec.numFeatures} unary + ${spec.dPairwise} pairwise features`,
    };
  },
};

/** Records of a split in memory, the ground truths carrying their superpixel areas (the loss is area-weighted). */
function inMemory(ds: HorseDataset, indices: readonly number[]): ArrayDataset<unknown, unknown> {
  const records = indices.map((k) => ds.read(k));
  const set = arrayDataset(
    records.map((r) => r.graph),
    records.map((r) => withAreas(r.labels, r.graph.areas)),
  );
  // A cheaper fingerprint than checksumming every input: the CRC of the records' CRCs (as the streamed set's).
  const fingerprint = horseFingerprint(records.map((r) => r.checksum!));
  set.fingerprint = () => fingerprint;
  return set;
}

/**
 * Predictions of a part: the pixel figures against the original masks (where `source` images can be read) and, with
 * a folder, PNG overlays named after the images.
 */
function overlayWriter(ds: HorseDataset, indices: readonly number[], dir: string | undefined): PredictionWriter<SegmentationLabel> {
  const source = ds.meta.source;
  if (dir !== undefined) makeOutputDir(dir, '--out-dir');
  const counts = { correct: 0, pixels: 0, background: 0, normalisedError: 0, images: 0, written: 0 };
  return {
    async write(i, y) {
      const rec = ds.read(indices[i]!);
      const file = source ? ['.jpg', '.jpeg', '.png'].map((e) => rec.name + e).find((f) => existsSync(join(source, 'rgb', f))) : undefined;
      if (!file) return;
      const im = await loadWeizmannImage(source!, file);
      if (im.height !== rec.height || im.width !== rec.width) return;
      const c = [0, 0, 0, 0]; // pixel counts by truth * 2 + predicted
      for (let p = 0; p < im.mask!.length; p++) c[2 * im.mask![p]! + y[rec.superpixels[p]!]!]!++;
      const fg = c[2]! + c[3]!;
      const bg = c[0]! + c[1]!;
      counts.correct += c[0]! + c[3]!;
      counts.pixels += im.mask!.length;
      counts.background += bg;
      counts.normalisedError += fg === 0 ? c[1]! / bg : bg === 0 ? c[2]! / fg : (c[2]! / fg + c[1]! / bg) / 2;
      counts.images++;
      if (dir !== undefined) {
        writeOutput(join(dir, `${rec.name}.png`), await horseOverlayPng(im.rgb, rec.height, rec.width, rec.superpixels, y, im.mask));
        counts.written++;
      }
    },
    async finish() {
      const px = counts.pixels;
      return {
        pixelAccuracy: px > 0 ? counts.correct / px : undefined,
        allBackgroundAccuracy: px > 0 ? counts.background / px : undefined,
        pixelTestError: counts.images > 0 ? counts.normalisedError / counts.images : undefined,
        images: dir !== undefined ? counts.written : undefined,
      };
    },
  };
}
