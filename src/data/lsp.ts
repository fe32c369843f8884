/**
 * Leeds Sports Pose (Johnson & Everingham, BMVC 2010): 2,000 images `images/im0001.jpg ...` and
 * `joints.mat` (3 x 14 x 2000 doubles: x, y, flag; in this release flag 0 = visible, 1 = occluded).
 * Coordinates are MATLAB's (1-based pixels); {@link LspAnnotation} keeps them as stored.
 *
 * Joint order: 0 R ankle, 1 R knee, 2 R hip, 3 L hip, 4 L knee, 5 L ankle, 6 R wrist, 7 R elbow,
 * 8 R shoulder, 9 L shoulder, 10 L elbow, 11 L wrist, 12 neck, 13 head top.
 *
 * Standard splits: images 1-1000 train, 1001-2000 test; "small" = the first 100 training images
 * (LSP-small of the 2016 paper) with the same test set.
 *
 * @module
 */
import { join } from 'node:path';
import { FormatError, InputError } from '../core/errors.js';
import { decodeImage } from './image-file.js';
import { matNumeric, readMat } from './matfile.js';
import { hog } from '../native/hog.js';
import type { PoseGrid, PoseInput, PoseLabel } from '../models/pose.js';
import { poseScale } from '../models/pose-eval.js';

export const LSP_JOINTS = [
  'R ankle', 'R knee', 'R hip', 'L hip', 'L knee', 'L ankle', 'R wrist', 'R elbow',
  'R shoulder', 'L shoulder', 'L elbow', 'L wrist', 'neck', 'head top',
] as const;
export const LSP_NUM_JOINTS = 14;
/** Indices used by the loss scale: s = |L shoulder - R hip| (the 2016 paper's PDJ loss). */
export const LSP_L_SHOULDER = 9;
export const LSP_R_HIP = 2;

/** Ground truth of one image. */
export interface LspAnnotation {
  /** 0-based image index (im0001 is 0). */
  index: number;
  /** 1-based MATLAB pixel coordinates, length 14. */
  x: Float64Array;
  y: Float64Array;
  /** true where the joint is visible (flag 0). */
  visible: boolean[];
}

/** All annotations of `joints.mat` (any number of images, in file order). */
export function loadLspJoints(dir: string): LspAnnotation[] {
  const file = join(dir, 'joints.mat');
  const mat = readMat(file);
  const v = matNumeric(mat, 'joints', file);
  let nImages: number;
  let at: (c: number, j: number, i: number) => number;
  const d = v.dims;
  if (d.length === 3 && d[0] === 3 && d[1] === LSP_NUM_JOINTS) {
    nImages = d[2]!;
    at = (c, j, i) => v.data[c + 3 * (j + LSP_NUM_JOINTS * i)]!; // column-major 3 x 14 x N
  } else if (d.length === 3 && d[0] === LSP_NUM_JOINTS && d[1] === 3) {
    nImages = d[2]!; // LSP-extended layout 14 x 3 x N
    at = (c, j, i) => v.data[j + LSP_NUM_JOINTS * (c + 3 * i)]!;
  } else {
    throw new FormatError(`'joints' has dimensions ${d.join('x')}, expected 3x14xN`, file);
  }
  const out: LspAnnotation[] = [];
  for (let i = 0; i < nImages; i++) {
    const x = new Float64Array(LSP_NUM_JOINTS);
    const y = new Float64Array(LSP_NUM_JOINTS);
    const visible: boolean[] = [];
    for (let j = 0; j < LSP_NUM_JOINTS; j++) {
      x[j] = at(0, j, i);
      y[j] = at(1, j, i);
      if (!Number.isFinite(x[j]) || !Number.isFinite(y[j])) throw new FormatError(`image ${i + 1}, joint ${j}: coordinate is not finite`, file);
      visible.push(at(2, j, i) === 0);
    }
    out.push({ index: i, x, y, visible });
  }
  return out;
}

/** Path of image `index` (0-based): images/im0001.jpg for 0. */
export function lspImagePath(dir: string, index: number): string {
  return join(dir, 'images', `im${String(index + 1).padStart(4, '0')}.jpg`);
}

export type LspSplit = 'small' | 'full';

/** Standard splits as 0-based image indices: train = first 1000 (or first 100 for 'small'), test = last 1000. */
export function lspSplit(count: number, split: LspSplit | string = 'full'): { train: number[]; test: number[] } {
  if (split !== 'small' && split !== 'full') throw new InputError(`unknown LSP split '${split}' (small | full)`);
  if (count < 2000) throw new InputError(`the standard LSP splits need 2000 images, joints.mat has ${count}`);
  const range = (a: number, b: number) => Array.from({ length: b - a }, (_, k) => a + k);
  return { train: range(0, split === 'small' ? 100 : 1000), test: range(1000, 2000) };
}

/** An image as float RGB/gray pixels, row-major, channels interleaved. */
export interface RgbImage {
  width: number;
  height: number;
  channels: number;
  data: Float64Array;
}

/**
 * Decodes an image file with sharp (optionally rescaled by `scale`), returning RGB float pixels in 0..255.
 */
export async function loadImage(path: string, scale = 1): Promise<RgbImage> {
  if (!(scale > 0 && Number.isFinite(scale))) throw new InputError(`scale must be positive, got ${scale}`);
  // A missing, empty or corrupt image is a one-line error naming it (src/data/image-file.ts).
  const { data, info } = await decodeImage(path, async (image) => {
    let pipeline = image.removeAlpha().toColourspace('srgb');
    if (scale !== 1) {
      const meta = await image.metadata();
      const w = Math.max(1, Math.round((meta.width ?? 1) * scale));
      const h = Math.max(1, Math.round((meta.height ?? 1) * scale));
      pipeline = pipeline.resize(w, h, { fit: 'fill' });
    }
    return pipeline.raw().toBuffer({ resolveWithObject: true });
  });
  const out = new Float64Array(data.length);
  for (let i = 0; i < data.length; i++) out[i] = data[i]!;
  return { width: info.width, height: info.height, channels: info.channels, data: out };
}

// ---------------------------------------------------------------------------------------------
// Pose-model examples: HOG grids and grid labels.
// ---------------------------------------------------------------------------------------------

/** How images become HOG grids. */
export interface LspFeatureOptions {
  /** HOG cell size in pixels (default 4). */
  sbin?: number;
  /** Image rescaling factor before HOG (default 1: LSP people are already of similar size). */
  scale?: number;
  /** Pyramid level factors, relative to `scale`: one HOG grid per level (default [1], one level). */
  scales?: readonly number[];
  /** Midpoint nodes after the 14 joints: the joint pairs whose middle they are (lspTree in src/models/pose-eval.ts). Default none. */
  midpoints?: readonly (readonly [number, number])[];
  /**
   * With several levels: the person scale (|L shoulder - R hip| in pixels at factor 1) that a ground truth's level
   * brings the person nearest to, in ratio (see {@link lspTruthLevel}). Required with more than one level.
   */
  reference?: number;
}

/**
 * The pyramid level of a ground truth: the level whose factor brings the person's scale (|L shoulder - R hip|
 * in pixels at factor 1) nearest to `reference` in ratio (ties to the first level), so the training poses of
 * every level are of about the same size.
 */
export function lspTruthLevel(personScale: number, scales: readonly number[], reference: number): number {
  let best = 0;
  const off = (l: number) => Math.abs(Math.log((personScale * scales[l]!) / reference));
  for (let l = 1; l < scales.length; l++) if (off(l) < off(best)) best = l;
  return best;
}

/** The median of the training poses' scales (|L shoulder - R hip|, pixels): the reference of {@link lspTruthLevel}. */
export function lspReferenceScale(annotations: readonly LspAnnotation[]): number {
  if (annotations.length === 0) throw new InputError('the reference person scale needs at least one training pose');
  const s = annotations.map((a) => poseScale(a)).sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** One image as the pose model sees it, with what is needed to map cells back to pixels. */
export interface LspExample {
  annotation: LspAnnotation;
  width: number;
  height: number;
  /** HOG grids (Float32 features), one per pyramid level. */
  input: PoseInput;
  /** Ground-truth cells of the joints and midpoints at the truth's level (`level`, present with several levels) and the loss scale in its cells. */
  label: PoseLabel;
  sbin: number;
  scale: number;
}

/** Cell of a 1-based MATLAB pixel coordinate (nearest cell centre, clamped to the grid). */
export function pixelToCell(v: number, sbin: number, scale: number, n: number): number {
  return Math.min(n - 1, Math.max(0, Math.round(((v - 1) * scale) / sbin - 1.5)));
}

/** 1-based MATLAB pixel coordinate of a cell centre. */
export function cellToPixel(c: number, sbin: number, scale: number): number {
  return ((c + 1.5) * sbin) / scale + 1;
}

/** Builds pose examples for the given 0-based image indices (decodes with sharp, HOG natively, every pyramid level). */
export async function lspExamples(dir: string, annotations: readonly LspAnnotation[], indices: readonly number[], opts: LspFeatureOptions = {}): Promise<LspExample[]> {
  const sbin = opts.sbin ?? 4;
  const scale = opts.scale ?? 1;
  const scales = opts.scales ?? [1];
  const midpoints = opts.midpoints ?? [];
  if (scales.length > 1 && !(opts.reference !== undefined && opts.reference > 0)) throw new InputError('a pyramid of several levels needs the reference person scale');
  const out: LspExample[] = [];
  for (const i of indices) {
    const ann = annotations[i];
    if (ann === undefined) throw new InputError(`no annotation for image ${i + 1}`);
    const grids: PoseGrid[] = [];
    let width = 0;
    let height = 0;
    for (const f of scales) {
      const img = await loadImage(lspImagePath(dir, i), scale * f);
      const g = hog(img, sbin);
      if (g.rows < 1 || g.cols < 1) throw new InputError(`image ${i + 1} is too small for HOG cells of ${sbin} pixels at pyramid factor ${f}`);
      grids.push({ rows: g.rows, cols: g.cols, dim: g.dim, data: g.data });
      if (grids.length === 1) {
        width = Math.round(img.width / (scale * f));
        height = Math.round(img.height / (scale * f));
      }
    }
    const level = scales.length > 1 ? lspTruthLevel(poseScale(ann) * scale, scales, opts.reference!) : 0;
    const at = scale * scales[level]!;
    const g = grids[level]!;
    // joints, then the midpoints (the middle of their two joints' annotations)
    const px = [...ann.x, ...midpoints.map(([a, b]) => (ann.x[a]! + ann.x[b]!) / 2)];
    const py = [...ann.y, ...midpoints.map(([a, b]) => (ann.y[a]! + ann.y[b]!) / 2)];
    const label: PoseLabel = {
      x: Int32Array.from(px, (v) => pixelToCell(v, sbin, at, g.cols)),
      y: Int32Array.from(py, (v) => pixelToCell(v, sbin, at, g.rows)),
      scale: (poseScale(ann) * at) / sbin,
      ...(scales.length > 1 ? { level } : {}),
    };
    out.push({ annotation: ann, width, height, input: { ...grids[0]!, ...(scales.length > 1 ? { levels: grids.slice(1) } : {}) }, label, sbin, scale });
  }
  return out;
}

/** Predicted cells back to 1-based pixel coordinates (at the label's pyramid level of `scales`, default one level). */
export function labelToPixels(y: PoseLabel, sbin: number, scale: number, scales: readonly number[] = [1]): { x: Float64Array; y: Float64Array } {
  const at = scale * scales[y.level ?? 0]!;
  return { x: Float64Array.from(y.x, (c) => cellToPixel(c, sbin, at)), y: Float64Array.from(y.y, (c) => cellToPixel(c, sbin, at)) };
}

/** Rounded mean displacement child - parent over training labels (cells), for {@link PoseModel}. */
export function meanOffsets(labels: readonly PoseLabel[], parents: readonly number[]): { dx: number; dy: number }[] {
  if (labels.length === 0) throw new InputError('mean offsets need at least one training pose');
  return parents.map((q, p) => {
    if (q < 0) return { dx: 0, dy: 0 };
    let sx = 0;
    let sy = 0;
    for (const l of labels) {
      sx += l.x[p]! - l.x[q]!;
      sy += l.y[p]! - l.y[q]!;
    }
    return { dx: Math.round(sx / labels.length), dy: Math.round(sy / labels.length) };
  });
}
