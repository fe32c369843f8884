/**
 * `lsp:DIR`: Leeds Sports Pose (images/im0001.jpg ... and joints.mat) for the pictorial-structures pose model
 * (HOG part filters on a tree of 14 joints, optionally extended by 12 midpoints; K types per part from k-means of
 * the training displacements (mixtures of parts); quadratic deformations with positivity; a small image pyramid;
 * exact GDT max-sum oracle). Splits:
 * the first half of the images trains (`full`: LSP's 1,000) or its first tenth (`small`: LSP-small's 100), the
 * second half tests. Metrics: strict PCP and PCK; the baseline is the mean pose of the training set (kept in the
 * model file, so evaluating never re-reads the training images). Predictions: PNG skeletons over the images.
 * @module
 */
import { join } from 'node:path';
import { FormatError, InputError } from '../core/errors.js';
import { arrayDataset } from '../core/dataset.js';
import { labelToPixels, loadImage, loadLspJoints, lspExamples, lspImagePath, lspReferenceScale, meanOffsets, type LspExample } from '../data/lsp.js';
import { makeOutputDir, writeOutput } from '../io/output.js';
import { LSP_JOINT_COUNT, lspTree, pcpPck, type PosePoints } from '../models/pose-eval.js';
import { assignPoseTypes, poseTypeAnchors } from '../models/pose-types.js';
import { poseSkeletonPng } from '../plot/overlays.js';
import type { PoseLabel, PoseModelOptions } from '../models/pose.js';
import { flagValue, numberValue, stringValue } from './common.js';
import type { PoseSpec } from './model-kinds.js';
import type { LoadOptions, PredictionWriter, Task, TaskFields } from './types.js';

/**
 * The task fields of a pose model: HOG cell size, image scale, the training set's mean pose (normalised by image
 * size), whether the tree has midpoints and, with a pyramid, the reference person scale of the truth's level.
 */
interface LspFields {
  sbin: number;
  scale: number;
  /** Absent in pose models of earlier versions (no baseline then). */
  meanPose?: { x: number[]; y: number[] };
  /** The tree has the 12 midpoints of lspTree (absent: no). */
  midpoints?: boolean;
  /** With several pyramid levels: the median training person scale in pixels (lspTruthLevel). */
  reference?: number;
}

/** Seed of the k-means that finds the part types (fixed, so that solver seeds do not change the model). */
const TYPES_SEED = 1;
/** Types per part by default (Yang & Ramanan's K = 6). */
const DEFAULT_TYPES = 6;

export const lspTask: Task = {
  kind: 'lsp',
  data: 'lsp:DIR',
  summary: 'Leeds Sports Pose (images/ + joints.mat); splits small (first 100 of 2,000 train: LSP-small) | full (first 1,000)',
  predictions: 'images',
  splits: 'small (default) | full',
  options: [
    { name: 'sbin', type: 'integer', value: 'N', min: 2, max: 64, help: 'HOG cell size in pixels', default: '4', use: 'train', tasks: ['lsp'] },
    { name: 'filter-size', type: 'integer', value: 'K', min: 1, max: 31, help: 'part filter side in cells (odd)', default: '5', use: 'train', tasks: ['lsp'] },
    { name: 'def-scale', type: 'number', value: 'S', min: 0, minExclusive: true, max: 1e3, help: 'displacement normaliser in cells', default: '4', use: 'train', tasks: ['lsp'] },
    { name: 'types', type: 'integer', value: 'K', min: 1, max: 32, help: 'types per part (k-means of the displacements from the parent; mixtures of parts)', default: '6', use: 'train', tasks: ['lsp'] },
    { name: 'midpoints', type: 'flag', help: 'add a node halfway along every arc but head - neck (26 nodes)', default: 'on', use: 'train', tasks: ['lsp'] },
    { name: 'no-midpoints', type: 'flag', help: 'the 14 joints only (with --types 1: the plain pictorial-structures model)', use: 'train', tasks: ['lsp'] },
    { name: 'scales', type: 'string', value: 'F,F,...', help: 'image pyramid: level factors relative to the image (the truth sits on the level nearest the median person size)', default: '1', use: 'train', tasks: ['lsp'] },
  ],
  defaults: { lambda: 0.01, gapThreshold: 1e-3, maxPasses: 30 },
  async load(dir, o) {
    const annotations = loadLspJoints(dir);
    const split = lspSplit(annotations.length, o.split ?? 'small', dir);
    const indices = { train: split.train.slice(0, o.limit ?? Infinity), test: split.test.slice(0, o.testLimit ?? Infinity) };
    const saved = o.model ? (o.model.fields.meta as unknown as LspFields) : undefined;
    const savedSpec = o.model?.spec as PoseSpec | undefined;
    const sbin = saved?.sbin ?? numberValue(o.values, 'sbin') ?? 4;
    const scale = saved?.scale ?? 1;
    const midpoints = saved ? saved.midpoints === true : midpointsOption(o.values);
    const scales = savedSpec ? [...(savedSpec.options.scales ?? [1])] : scalesOption(stringValue(o.values, 'scales'));
    const reference = saved ? saved.reference : scales.length > 1 ? lspReferenceScale(indices.train.map((i) => annotations[i]!)) * scale : undefined;
    const tree = lspTree(midpoints);
    const wanted = new Set(o.parts ?? ['train', 'test']);
    const features = { sbin, scale, scales, midpoints: tree.midpoints, ...(reference !== undefined ? { reference } : {}) };
    const read = async (part: 'train' | 'test') => (wanted.has(part) ? lspExamples(dir, annotations, indices[part], features) : []);
    const examples = { train: await read('train'), test: await read('test') };
    let spec: PoseSpec;
    let fields: LspFields;
    if (savedSpec) {
      spec = savedSpec;
      fields = saved!;
    } else {
      const filterSize = numberValue(o.values, 'filter-size') ?? 5;
      if (filterSize % 2 !== 1) throw new InputError(`--filter-size must be odd, got ${filterSize}`);
      const types = numberValue(o.values, 'types') ?? DEFAULT_TYPES;
      const labels = examples.train.map((e) => e.label);
      const options: PoseModelOptions = {
        parents: tree.parents,
        ...(types === 1 ? { meanOffsets: meanOffsets(labels, tree.parents) } : { typeOffsets: poseTypeAnchors(labels, tree.parents, types, TYPES_SEED) }),
        ...(midpoints ? { joints: LSP_JOINT_COUNT } : {}),
        ...(scales.length > 1 ? { scales } : {}),
        filterSize,
        defScale: numberValue(o.values, 'def-scale') ?? 4,
      };
      spec = { kind: 'pose', options };
      fields = { sbin, scale, meanPose: meanPose(examples.train), ...(midpoints ? { midpoints } : {}), ...(reference !== undefined ? { reference } : {}) };
    }
    // The types of the truths: the nearest anchor of each part (the k-means assignment of the training poses).
    const anchors = spec.options.typeOffsets;
    if (anchors) for (const e of [...examples.train, ...examples.test]) e.label.types = assignPoseTypes(e.label, spec.options.parents, anchors);
    const set = (part: 'train' | 'test') => arrayDataset(examples[part].map((e) => e.input), examples[part].map((e) => e.label));
    const test = set('test');
    const truth = (part: 'train' | 'test') => examples[part].map((e) => e.annotation);
    const typeCount = anchors ? Math.max(...anchors.map((a) => a.length)) : 1;
    return {
      task: 'lsp',
      spec,
      train: set('train'),
      test: test.length > 0 || !wanted.has('test') ? test : undefined,
      description:
        `lsp: ${indices.train.length} train / ${indices.test.length} test images, HOG cells of ${sbin} pixels` +
        (midpoints || typeCount > 1 || scales.length > 1 ? `, ${tree.parents.length} nodes, up to ${typeCount} types, ${scales.length} level(s) (${scales.join(', ')})` : ''),
      fields: { meta: { ...fields }, arrays: {} },
      metrics: (part, predictions) => {
        const m = pcpPck((predictions as PoseLabel[]).map((y) => labelToPixels(y, sbin, scale, scales)), truth(part));
        return { pcp: m.pcp, pck: m.pck };
      },
      baseline: (part): Record<string, number> => {
        const list = examples[part];
        const mean = fields.meanPose;
        if (list.length === 0 || mean === undefined) return {};
        const m = pcpPck(list.map((e) => scaled(mean, e)), truth(part));
        return { meanPosePcp: m.pcp, meanPosePck: m.pck, meanPoseLoss: m.loss };
      },
      writer: (part, target) => skeletonWriter(dir, examples[part], sbin, scale, scales, target.dir),
    };
  },
  checkFields(f: TaskFields, file: string) {
    const m = f.meta as Partial<LspFields>;
    const mean = m.meanPose;
    const joints = (a: unknown) => Array.isArray(a) && a.length === 14 && a.every((v) => typeof v === 'number');
    const ok =
      Number.isInteger(m.sbin) &&
      (m.sbin as number) >= 1 &&
      typeof m.scale === 'number' &&
      m.scale > 0 &&
      (mean === undefined || (joints(mean.x) && joints(mean.y))) &&
      (m.midpoints === undefined || typeof m.midpoints === 'boolean') &&
      (m.reference === undefined || (typeof m.reference === 'number' && m.reference > 0 && Number.isFinite(m.reference)));
    if (!ok) throw new FormatError('pose model fields need sbin, scale and (optionally) a 14-joint meanPose, midpoints (a boolean) and a positive reference scale', file);
  },
};

/** `--midpoints` / `--no-midpoints` (default: midpoints). */
function midpointsOption(values: LoadOptions['values']): boolean {
  const off = flagValue(values, 'no-midpoints');
  if (off && flagValue(values, 'midpoints')) throw new InputError('--midpoints and --no-midpoints contradict each other');
  return !off;
}

/** `--scales F,F,...`: 1 to 8 distinct positive pyramid factors (default one level, 1). */
export function scalesOption(text: string | undefined): number[] {
  if (text === undefined) return [1];
  const scales = text.split(',').map((t) => Number(t.trim()));
  const ok = scales.length >= 1 && scales.length <= 8 && scales.every((f) => Number.isFinite(f) && f >= 0.1 && f <= 10) && new Set(scales).size === scales.length;
  if (!ok) throw new InputError(`--scales must list 1 to 8 distinct factors between 0.1 and 10, separated by commas (e.g. 1,0.8,1.25), got '${text}'`);
  return scales;
}

/**
 * Train and test image indices (0-based): the second half of the images tests, the first half trains (`full`) or
 * its first tenth (`small`); for LSP's 2,000 images exactly the standard 1,000 / 1,000 and LSP-small's 100.
 */
export function lspSplit(count: number, split: string, dir: string): { train: number[]; test: number[] } {
  if (split !== 'small' && split !== 'full') throw new InputError(`--split must be small or full for lsp data, got '${split}'`);
  if (count < 2) throw new InputError(`${dir}: joints.mat has ${count} image(s); a train/test split needs at least 2`);
  const half = Math.floor(count / 2);
  const range = (a: number, b: number) => Array.from({ length: b - a }, (_, k) => a + k);
  return { train: range(0, split === 'small' ? Math.max(1, Math.round(half / 10)) : half), test: range(half, count) };
}

/** The mean of the training joints in coordinates normalised by the image size (x / width, y / height). */
function meanPose(examples: readonly LspExample[]): { x: number[]; y: number[] } {
  const x = new Array<number>(14).fill(0);
  const y = new Array<number>(14).fill(0);
  for (const e of examples) {
    for (let j = 0; j < 14; j++) {
      x[j]! += e.annotation.x[j]! / e.width / examples.length;
      y[j]! += e.annotation.y[j]! / e.height / examples.length;
    }
  }
  return { x, y };
}

/** The mean pose mapped onto an image. */
function scaled(mean: { x: number[]; y: number[] }, e: LspExample): PosePoints {
  return { x: mean.x.map((v) => v * e.width), y: mean.y.map((v) => v * e.height) };
}

/** Skeleton PNGs of a part's predictions, named after the LSP images (im1001.png, ...). */
function skeletonWriter(dir: string, examples: readonly LspExample[], sbin: number, scale: number, scales: readonly number[], outDir: string | undefined): PredictionWriter<PoseLabel> {
  if (outDir !== undefined) makeOutputDir(outDir, '--out-dir');
  let written = 0;
  return {
    async write(i, y) {
      if (outDir === undefined) return;
      const e = examples[i]!;
      const image = await loadImage(lspImagePath(dir, e.annotation.index));
      writeOutput(join(outDir, `im${String(e.annotation.index + 1).padStart(4, '0')}.png`), await poseSkeletonPng(image, labelToPixels(y, sbin, scale, scales), e.annotation));
      written++;
    },
    finish: async () => ({ images: outDir !== undefined ? written : undefined }),
  };
}
