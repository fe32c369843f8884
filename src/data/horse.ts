/**
 * HorseSeg-style data pipeline on the Weizmann Horse database (Borenstein & Ullman): SLIC superpixels,
 * ground truth by mask majority, adjacency graph, and HorseSeg's unary and pairwise features
 * (Kolesnikov et al. 2014, as laid out by the gapBCFW code, see shared/reference 11.3), written once to a
 * versioned binary file and read back per image (streamed: one record at a time).
 *
 * Unary features of superpixel i (d_unary = 1 + 3 (L + C + G) = 1969 for the defaults L = 16, C = 128,
 * G = 512), in this order:
 *   [0]                  the constant 1
 *   location histograms  3 x L:  pixel positions over a 4 x 4 grid of image cells, for the superpixel,
 *                        its first-order neighbourhood (itself + adjacent superpixels) and its
 *                        second-order neighbourhood (within two hops)
 *   colour histograms    3 x C:  words of a k-means codebook over RGB pixels (learned on training pixels)
 *   gradient histograms  3 x G:  words of a k-means codebook over dense 2 x 2-cell, 8-orientation
 *                        gradient descriptors (a small dense SIFT), one word per 4 x 4 pixel block
 * Each histogram h is stored as sqrt(counts / sum), so it is L2-normalised and h^2 is the
 * L1-normalised histogram (HorseSeg's features are L2-normalised; the reference squares them).
 *
 * Pairwise features of edge (i, j) (d_pairwise = 1 + 9 * 11 = 100): the constant 1, then for each of
 * the 9 histograms (location x3, colour x3, gradient x3) and each beta in 2^-5 .. 2^5:
 * exp(-beta * chi2(h_i^2, h_j^2)), chi2(p, q) = sum_k (p_k - q_k)^2 / (p_k + q_k).
 *
 * On-disk format (version 1): a directory with
 *   horse.json  {format: "gapbcfw-horse", version: 1, dUnary, dPairwise, options, codebooks,
 *               images: [{name, split, file?, offset, bytes, height, width, numNodes, numEdges}], ...}
 *   horse.bin   the concatenated records, one per image, little-endian, each:
 *               char[4] "HSR1"; u32 numNodes N, numEdges E, dUnary, dPairwise, height H, width W
 *               i32 edgeFrom[E], i32 edgeTo[E], f64 areas[N], u8 labels[N] (0/1, padded to 4 bytes),
 *               f32 unary[N*dUnary], f32 pairwise[E*dPairwise], u16 superpixels[H*W] (padded to 4 bytes)
 * Index entries may name their record file (`file`, default horse.bin): parts prepared in parallel
 * (`prepare-horse --part P` -> horse-P.bin / horse-P.json) are joined by {@link mergeHorseParts} without
 * copying records. A user with other features (e.g. the real HorseSeg ones) writes the same records with
 * {@link writeHorseDataset} and trains on them unchanged (docs/horse-format.md). Large sets are read
 * out of core, one record per oracle call (src/data/horse-stream.ts).
 * @module
 */
import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { closeSync, openSync, readSync, readdirSync, existsSync, rmSync } from 'node:fs';
import { readInputText } from '../io/input.js';
import { basename, join } from 'node:path';
import { check, FormatError, InputError } from '../core/errors.js';
import { Rng } from '../core/rng.js';
import type { SegmentationGraph } from '../models/segmentation.js';
import { slic } from '../native/slic.js';
import { crc32 } from '../io/model-file.js';
import { checkReplaceableFolder, makeOutputDir, OutputError, removeEmptyFolder, renameFolderIntoPlace, StreamedOutput, temporaryFolder, writeOutput } from '../io/output.js';
import { decodeImage } from './image-file.js';

export const HORSE_FORMAT = 'gapbcfw-horse';
export const HORSE_VERSION = 1;
/** The fixed split: horse001 .. horse147 train (HorseSeg-small's size), horse148 .. horse328 test. */
export const HORSE_TRAIN_SIZE = 147;
export const BETAS: readonly number[] = Array.from({ length: 11 }, (_, k) => 2 ** (k - 5));

export interface HorseFeatureOptions {
  /** Location grid side (cells = side^2; default 4 -> 16). */
  locationGrid?: number;
  /** Colour codebook size (default 128). */
  colourWords?: number;
  /** Gradient codebook size (default 512; 0 disables the gradient histograms). */
  gradientWords?: number;
  /** SLIC: desired superpixels per image (default 150) and compactness (default 10). */
  superpixels?: number;
  compactness?: number;
  /** Seed of the codebook k-means. Default 1. */
  seed?: number;
}

type Resolved = Required<HorseFeatureOptions>;

function resolve(o: HorseFeatureOptions = {}): Resolved {
  const r: Resolved = {
    locationGrid: o.locationGrid ?? 4,
    colourWords: o.colourWords ?? 128,
    gradientWords: o.gradientWords ?? 512,
    superpixels: o.superpixels ?? 150,
    compactness: o.compactness ?? 10,
    seed: o.seed ?? 1,
  };
  check(Number.isInteger(r.locationGrid) && r.locationGrid >= 1, 'locationGrid must be a positive integer');
  check(Number.isInteger(r.colourWords) && r.colourWords >= 1, 'colourWords must be a positive integer');
  check(Number.isInteger(r.gradientWords) && r.gradientWords >= 0, 'gradientWords must be an integer >= 0');
  check(Number.isInteger(r.superpixels) && r.superpixels >= 1, 'superpixels must be a positive integer');
  check(r.compactness > 0, 'compactness must be > 0');
  return r;
}

/** Histogram sizes [location, colour, gradient] (gradient may be 0). */
function histSizes(o: Resolved): number[] {
  return [o.locationGrid * o.locationGrid, o.colourWords, o.gradientWords];
}

/** d_unary = 1 + 3 * (L + C + G). */
export function unaryDim(o: HorseFeatureOptions = {}): number {
  const r = resolve(o);
  return 1 + 3 * histSizes(r).reduce((a, b) => a + b, 0);
}

/** d_pairwise = 1 + (number of histograms) * 11. */
export function pairwiseDim(o: HorseFeatureOptions = {}): number {
  const r = resolve(o);
  return 1 + 3 * histSizes(r).filter((s) => s > 0).length * BETAS.length;
}

/** An image in memory: interleaved RGB bytes and a binary mask (1 = horse), both H x W. */
export interface HorseImage {
  name: string;
  height: number;
  width: number;
  rgb: Uint8Array;
  /** 0/1 per pixel; may be omitted for unlabelled images (labels then all 0). */
  mask?: Uint8Array;
}

/** Codebooks: k-means centres, row-major. */
export interface HorseCodebooks {
  colour: Float32Array; // colourWords x 3
  gradient: Float32Array; // gradientWords x GRAD_DIM
}

/** A featurised image: the model input, its ground truth and the superpixel map. */
export interface HorseRecord {
  name: string;
  height: number;
  width: number;
  graph: SegmentationGraph;
  labels: Uint8Array;
  superpixels: Uint16Array;
  /** CRC-32 of the record's training bytes (see `trainingBytes`); set by {@link HorseDataset.read}. */
  checksum?: number;
}

// ---------------------------------------------------------------------------------------------
// k-means
// ---------------------------------------------------------------------------------------------

/** Index of the nearest centre of each row (squared Euclidean). */
export function nearest(data: Float32Array, d: number, centres: Float32Array, out?: Int32Array): Int32Array {
  const n = data.length / d;
  const k = centres.length / d;
  const res = out ?? new Int32Array(n);
  const cn = new Float64Array(k);
  for (let c = 0; c < k; c++) {
    let s = 0;
    for (let j = 0; j < d; j++) s += centres[c * d + j]! ** 2;
    cn[c] = s;
  }
  for (let i = 0; i < n; i++) {
    const o = i * d;
    let best = Infinity;
    let arg = 0;
    for (let c = 0; c < k; c++) {
      const co = c * d;
      let dot = 0;
      for (let j = 0; j < d; j++) dot += data[o + j]! * centres[co + j]!;
      const v = cn[c]! - 2 * dot;
      if (v < best) {
        best = v;
        arg = c;
      }
    }
    res[i] = arg;
  }
  return res;
}

/** k-means++ initialisation then Lloyd iterations; empty clusters keep their centre. */
export function kmeans(data: Float32Array, d: number, k: number, iterations: number, rng: Rng): Float32Array {
  const n = data.length / d;
  check(n >= 1, 'k-means needs at least one point');
  const centres = new Float32Array(k * d);
  const dist = new Float64Array(n).fill(Infinity);
  let pick = rng.int(n);
  for (let c = 0; c < k; c++) {
    centres.set(data.subarray(pick * d, pick * d + d), c * d);
    let total = 0;
    for (let i = 0; i < n; i++) {
      let s = 0;
      for (let j = 0; j < d; j++) s += (data[i * d + j]! - centres[c * d + j]!) ** 2;
      if (s < dist[i]!) dist[i] = s;
      total += dist[i]!;
    }
    if (c + 1 === k) break;
    if (total === 0) {
      pick = rng.int(n); // fewer distinct points than centres: duplicates
      continue;
    }
    let r = rng.next() * total;
    pick = n - 1;
    for (let i = 0; i < n; i++) {
      r -= dist[i]!;
      if (r < 0) {
        pick = i;
        break;
      }
    }
  }
  const assign = new Int32Array(n);
  const sums = new Float64Array(k * d);
  const counts = new Float64Array(k);
  for (let it = 0; it < iterations; it++) {
    nearest(data, d, centres, assign);
    sums.fill(0);
    counts.fill(0);
    for (let i = 0; i < n; i++) {
      const c = assign[i]!;
      counts[c]!++;
      for (let j = 0; j < d; j++) sums[c * d + j]! += data[i * d + j]!;
    }
    for (let c = 0; c < k; c++) if (counts[c]! > 0) for (let j = 0; j < d; j++) centres[c * d + j] = sums[c * d + j]! / counts[c]!;
  }
  return centres;
}

// ---------------------------------------------------------------------------------------------
// Dense gradient descriptors (2 x 2 cells of 4 x 4 pixels, 8 orientations: 32 dims, SIFT-normalised)
// ---------------------------------------------------------------------------------------------

export const GRAD_CELL = 4;
export const GRAD_BINS = 8;
export const GRAD_DIM = 4 * GRAD_BINS;

/** Descriptors on the cell grid: (Hc - 1) x (Wc - 1) rows of GRAD_DIM, Hc = floor(H / 4). */
export function gradientDescriptors(rgb: Uint8Array, H: number, W: number): { data: Float32Array; rows: number; cols: number } {
  const grey = new Float64Array(H * W);
  for (let p = 0; p < H * W; p++) grey[p] = 0.299 * rgb[3 * p]! + 0.587 * rgb[3 * p + 1]! + 0.114 * rgb[3 * p + 2]!;
  const Hc = Math.floor(H / GRAD_CELL);
  const Wc = Math.floor(W / GRAD_CELL);
  const cells = new Float64Array(Math.max(0, Hc * Wc * GRAD_BINS));
  for (let y = 0; y < Hc * GRAD_CELL; y++) {
    for (let x = 0; x < Wc * GRAD_CELL; x++) {
      const gx = grey[y * W + Math.min(W - 1, x + 1)]! - grey[y * W + Math.max(0, x - 1)]!;
      const gy = grey[Math.min(H - 1, y + 1) * W + x]! - grey[Math.max(0, y - 1) * W + x]!;
      const mag = Math.hypot(gx, gy);
      if (mag === 0) continue;
      let b = Math.floor(((Math.atan2(gy, gx) + Math.PI) / (2 * Math.PI)) * GRAD_BINS);
      if (b >= GRAD_BINS) b = GRAD_BINS - 1;
      cells[((Math.floor(y / GRAD_CELL) * Wc + Math.floor(x / GRAD_CELL)) * GRAD_BINS) + b]! += mag;
    }
  }
  const rows = Math.max(0, Hc - 1);
  const cols = Math.max(0, Wc - 1);
  const data = new Float32Array(rows * cols * GRAD_DIM);
  const v = new Float64Array(GRAD_DIM);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let k = 0;
      for (const [dy, dx] of [[0, 0], [0, 1], [1, 0], [1, 1]] as const) {
        for (let b = 0; b < GRAD_BINS; b++) v[k++] = cells[((r + dy) * Wc + c + dx) * GRAD_BINS + b]!;
      }
      // SIFT normalisation: L2, clip at 0.2, L2 again
      for (let pass = 0; pass < 2; pass++) {
        let s = 0;
        for (let j = 0; j < GRAD_DIM; j++) s += v[j]! * v[j]!;
        const inv = s > 0 ? 1 / Math.sqrt(s) : 0;
        for (let j = 0; j < GRAD_DIM; j++) v[j] = pass === 0 ? Math.min(0.2, v[j]! * inv) : v[j]! * inv;
      }
      data.set(v, (r * cols + c) * GRAD_DIM);
    }
  }
  return { data, rows, cols };
}

/** Gradient word per pixel: the word of the descriptor centred nearest to the pixel (0 when none). */
function gradientWordMap(rgb: Uint8Array, H: number, W: number, codebook: Float32Array): Int32Array {
  const { data, rows, cols } = gradientDescriptors(rgb, H, W);
  const out = new Int32Array(H * W);
  if (rows === 0 || cols === 0) return out;
  const words = nearest(data, GRAD_DIM, codebook);
  for (let y = 0; y < H; y++) {
    const r = Math.min(rows - 1, Math.max(0, Math.floor((y - GRAD_CELL / 2) / GRAD_CELL)));
    for (let x = 0; x < W; x++) {
      const c = Math.min(cols - 1, Math.max(0, Math.floor((x - GRAD_CELL / 2) / GRAD_CELL)));
      out[y * W + x] = words[r * cols + c]!;
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Codebooks and featurisation
// ---------------------------------------------------------------------------------------------

/** Learns the colour and gradient codebooks on (a sample of) the pixels / descriptors of the given images. */
export function learnCodebooks(images: readonly HorseImage[], options: HorseFeatureOptions = {}, samplesPerImage = 400, iterations = 8): HorseCodebooks {
  const o = resolve(options);
  const rng = new Rng(o.seed);
  const colourSamples: number[] = [];
  const gradSamples: number[] = [];
  for (const im of images) {
    const P = im.height * im.width;
    for (let s = 0; s < Math.min(samplesPerImage, P); s++) {
      const p = samplesPerImage >= P ? s : rng.int(P);
      colourSamples.push(im.rgb[3 * p]!, im.rgb[3 * p + 1]!, im.rgb[3 * p + 2]!);
    }
    if (o.gradientWords > 0) {
      const { data } = gradientDescriptors(im.rgb, im.height, im.width);
      const n = data.length / GRAD_DIM;
      for (let s = 0; s < Math.min(samplesPerImage, n); s++) {
        const q = samplesPerImage >= n ? s : rng.int(n);
        for (let j = 0; j < GRAD_DIM; j++) gradSamples.push(data[q * GRAD_DIM + j]!);
      }
    }
  }
  const colour = kmeans(Float32Array.from(colourSamples), 3, o.colourWords, iterations, rng);
  const gradient = o.gradientWords > 0 && gradSamples.length > 0 ? kmeans(Float32Array.from(gradSamples), GRAD_DIM, o.gradientWords, iterations, rng) : new Float32Array(o.gradientWords * GRAD_DIM);
  return { colour, gradient };
}

/** chi2(p, q) = sum_k (p_k - q_k)^2 / (p_k + q_k) over L1-normalised histograms (terms with p + q = 0 skipped). */
export function chi2(p: ArrayLike<number>, q: ArrayLike<number>): number {
  let s = 0;
  for (let k = 0; k < p.length; k++) {
    const a = p[k]!;
    const b = q[k]!;
    if (a + b > 0) s += ((a - b) * (a - b)) / (a + b);
  }
  return s;
}

/**
 * Superpixels, ground truth, graph and features of one image. `superpixels` may be given (for tests or
 * other superpixel methods); otherwise SLIC runs with the options' settings.
 */
export function featuriseImage(image: HorseImage, codebooks: HorseCodebooks, options: HorseFeatureOptions = {}, superpixels?: Int32Array): HorseRecord {
  const o = resolve(options);
  const { height: H, width: W, rgb } = image;
  check(Number.isInteger(H) && Number.isInteger(W) && H >= 1 && W >= 1, `${image.name}: bad image size ${W}x${H}`);
  check(rgb.length === H * W * 3, `${image.name}: rgb has ${rgb.length} bytes, expected ${H * W * 3}`);
  check(image.mask === undefined || image.mask.length === H * W, `${image.name}: mask has the wrong size`);
  check(codebooks.colour.length === o.colourWords * 3 && codebooks.gradient.length === o.gradientWords * GRAD_DIM, `${image.name}: codebooks do not match the options`);
  const P = H * W;
  let sp: Int32Array;
  let N: number;
  if (superpixels) {
    check(superpixels.length === P, `${image.name}: superpixel map has the wrong size`);
    sp = superpixels;
    N = 0;
    for (let p = 0; p < P; p++) N = Math.max(N, sp[p]! + 1);
  } else {
    const r = slic(rgb, H, W, { channels: 3, numSuperpixels: o.superpixels, compactness: o.compactness });
    sp = r.labels;
    N = r.count;
  }
  check(N <= 65535, `${image.name}: ${N} superpixels (at most 65535)`);
  // areas, ground truth by majority, adjacency (4-neighbourhood)
  const areas = new Float64Array(N);
  const fgCount = new Float64Array(N);
  for (let p = 0; p < P; p++) {
    areas[sp[p]!]!++;
    if (image.mask?.[p]) fgCount[sp[p]!]!++;
  }
  for (let i = 0; i < N; i++) check(areas[i]! > 0, `${image.name}: superpixel ${i} is empty`);
  const labels = new Uint8Array(N);
  for (let i = 0; i < N; i++) labels[i] = 2 * fgCount[i]! > areas[i]! ? 1 : 0;
  const adj = new Set<number>();
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const a = sp[y * W + x]!;
      if (x + 1 < W) {
        const b = sp[y * W + x + 1]!;
        if (a !== b) adj.add(Math.min(a, b) * N + Math.max(a, b));
      }
      if (y + 1 < H) {
        const b = sp[(y + 1) * W + x]!;
        if (a !== b) adj.add(Math.min(a, b) * N + Math.max(a, b));
      }
    }
  }
  const keys = [...adj].sort((a, b) => a - b);
  const E = keys.length;
  const edgeFrom = new Int32Array(E);
  const edgeTo = new Int32Array(E);
  keys.forEach((k, e) => {
    edgeFrom[e] = Math.floor(k / N);
    edgeTo[e] = k % N;
  });
  const neighbours: number[][] = Array.from({ length: N }, () => []);
  for (let e = 0; e < E; e++) {
    neighbours[edgeFrom[e]!]!.push(edgeTo[e]!);
    neighbours[edgeTo[e]!]!.push(edgeFrom[e]!);
  }
  // per-pixel words
  const sizes = histSizes(o);
  const G = o.locationGrid;
  const words: Int32Array[] = [new Int32Array(P), new Int32Array(P)];
  for (let y = 0; y < H; y++) {
    const gy = Math.min(G - 1, Math.floor((y * G) / H));
    for (let x = 0; x < W; x++) words[0]![y * W + x] = gy * G + Math.min(G - 1, Math.floor((x * G) / W));
  }
  const colourData = new Float32Array(P * 3);
  for (let j = 0; j < P * 3; j++) colourData[j] = rgb[j]!;
  nearest(colourData, 3, codebooks.colour, words[1]);
  if (o.gradientWords > 0) words.push(gradientWordMap(rgb, H, W, codebooks.gradient));
  // counts per superpixel, then first- and second-order neighbourhood sums
  const types = words.length;
  const counts = words.map((_, t) => new Float64Array(N * sizes[t]!));
  for (let p = 0; p < P; p++) {
    const i = sp[p]!;
    for (let t = 0; t < types; t++) counts[t]![i * sizes[t]! + words[t]![p]!]!++;
  }
  const hops: number[][][] = [[], [], []];
  for (let i = 0; i < N; i++) {
    const first = new Set<number>([i, ...neighbours[i]!]);
    const second = new Set<number>(first);
    for (const j of neighbours[i]!) for (const k of neighbours[j]!) second.add(k);
    hops[0]!.push([i]);
    hops[1]!.push([...first]);
    hops[2]!.push([...second]);
  }
  // normalised histograms hist[t][order] : N x size, entries L1-normalised (p); features store sqrt(p)
  const hist: Float64Array[][] = [];
  for (let t = 0; t < types; t++) {
    const K = sizes[t]!;
    const c = counts[t]!;
    hist.push([0, 1, 2].map((order) => {
      const h = new Float64Array(N * K);
      for (let i = 0; i < N; i++) {
        let total = 0;
        for (const j of hops[order]![i]!) for (let k = 0; k < K; k++) {
          h[i * K + k]! += c[j * K + k]!;
          total += c[j * K + k]!;
        }
        for (let k = 0; k < K; k++) h[i * K + k]! /= total;
      }
      return h;
    }));
  }
  const dU = 1 + 3 * sizes.reduce((a, b) => a + b, 0);
  const unary = new Float32Array(N * dU);
  for (let i = 0; i < N; i++) {
    let off = i * dU;
    unary[off++] = 1;
    for (let t = 0; t < types; t++) {
      const K = sizes[t]!;
      for (let order = 0; order < 3; order++) {
        const h = hist[t]![order]!;
        for (let k = 0; k < K; k++) unary[off++] = Math.sqrt(h[i * K + k]!);
      }
    }
  }
  const dP = 1 + 3 * types * BETAS.length;
  const pairwise = new Float32Array(E * dP);
  for (let e = 0; e < E; e++) {
    const a = edgeFrom[e]!;
    const b = edgeTo[e]!;
    let off = e * dP;
    pairwise[off++] = 1;
    for (let t = 0; t < types; t++) {
      const K = sizes[t]!;
      for (let order = 0; order < 3; order++) {
        const h = hist[t]![order]!;
        const d = chi2(h.subarray(a * K, a * K + K), h.subarray(b * K, b * K + K));
        for (const beta of BETAS) pairwise[off++] = Math.exp(-beta * d);
      }
    }
  }
  const map = new Uint16Array(P);
  for (let p = 0; p < P; p++) map[p] = sp[p]!;
  return { name: image.name, height: H, width: W, graph: { numNodes: N, unary, edgeFrom, edgeTo, pairwise, areas }, labels, superpixels: map };
}

// ---------------------------------------------------------------------------------------------
// Binary format
// ---------------------------------------------------------------------------------------------

const MAGIC = 'HSR1';
const pad4 = (n: number) => (n + 3) & ~3;
/** Bytes of a record's header (magic and six u32). */
export const RECORD_HEADER_BYTES = 28;

/**
 * Bytes of record `im` before its superpixel map: all that training reads (header, graph, areas,
 * labels, features); the map only serves overlays and pixel metrics.
 */
export function trainingBytes(im: HorseImageEntry): number {
  const map = pad4(2 * im.height * im.width);
  return map > im.bytes - RECORD_HEADER_BYTES ? im.bytes : im.bytes - map;
}

/**
 * Fingerprint of a horse set (which `gap` and `eval` compare with a model's training set before using its
 * saved dual): the CRC-32 of the CRC-32s of every record's training bytes, in set order. The in-memory
 * and streamed readers take each record's CRC when they read it anyway, so a set read by a pass costs
 * nothing more.
 */
export function horseFingerprint(checksums: readonly number[]): string {
  const crc = crc32(new Uint8Array(Uint32Array.from(checksums).buffer));
  return `horse:${checksums.length}:${crc.toString(16).padStart(8, '0')}`;
}

/** The bytes of one record (see the module comment). */
export function encodeRecord(r: HorseRecord): Uint8Array {
  const { graph: g } = r;
  const N = g.numNodes;
  const E = g.edgeFrom.length;
  const dU = g.unary.length / N;
  const dP = E > 0 ? g.pairwise.length / E : 0;
  const P = r.height * r.width;
  const bytes = 28 + 8 * E + 8 * N + pad4(N) + 4 * N * dU + 4 * E * dP + pad4(2 * P);
  const buf = Buffer.alloc(bytes);
  buf.write(MAGIC, 0, 'latin1');
  [N, E, dU, dP, r.height, r.width].forEach((v, k) => buf.writeUInt32LE(v, 4 + 4 * k));
  let off = 28;
  const put = (a: ArrayBufferView, padded: number) => {
    Buffer.from(a.buffer, a.byteOffset, a.byteLength).copy(buf, off);
    off += padded;
  };
  put(g.edgeFrom, 4 * E);
  put(g.edgeTo, 4 * E);
  put(g.areas, 8 * N);
  put(r.labels, pad4(N));
  put(g.unary, 4 * N * dU);
  put(g.pairwise, 4 * E * dP);
  put(r.superpixels, pad4(2 * P));
  return buf;
}

/** Parses one record; `where` names it in errors. */
export function decodeRecord(record: Uint8Array, name: string, where: string): HorseRecord {
  const buf = Buffer.from(record.buffer, record.byteOffset, record.byteLength);
  if (buf.length < 28 || buf.toString('latin1', 0, 4) !== MAGIC) throw new FormatError(`${where}: not a horse record (bad magic)`);
  const [N, E, dU, dP, H, W] = [0, 1, 2, 3, 4, 5].map((k) => buf.readUInt32LE(4 + 4 * k)) as [number, number, number, number, number, number];
  const P = H * W;
  const bytes = 28 + 8 * E + 8 * N + pad4(N) + 4 * N * dU + 4 * E * dP + pad4(2 * P);
  if (buf.length !== bytes) throw new FormatError(`${where}: record has ${buf.length} bytes, its header implies ${bytes}`);
  let off = 28;
  const take = <T>(C: { new (b: ArrayBuffer): T }, n: number, padded: number): T => {
    const ab = new ArrayBuffer(n);
    new Uint8Array(ab).set(buf.subarray(off, off + n));
    off += padded;
    return new C(ab);
  };
  const edgeFrom = take(Int32Array, 4 * E, 4 * E);
  const edgeTo = take(Int32Array, 4 * E, 4 * E);
  const areas = take(Float64Array, 8 * N, 8 * N);
  const labels = take(Uint8Array, N, pad4(N));
  const unary = take(Float32Array, 4 * N * dU, 4 * N * dU);
  const pairwise = take(Float32Array, 4 * E * dP, 4 * E * dP);
  const superpixels = take(Uint16Array, 2 * P, pad4(2 * P));
  return { name, height: H, width: W, graph: { numNodes: N, unary, edgeFrom, edgeTo, pairwise, areas }, labels, superpixels };
}

export interface HorseImageEntry {
  name: string;
  split: 'train' | 'test';
  /** The record file inside the folder (default 'horse.bin'; parts written in parallel have their own). */
  file?: string;
  offset: number;
  bytes: number;
  height: number;
  width: number;
  numNodes: number;
  numEdges: number;
}

/** The index `horse.json` of a prepared folder: format and version, feature dimensions and options, codebooks, and one entry per image record. */
export interface HorseMeta {
  format: typeof HORSE_FORMAT;
  version: number;
  dUnary: number;
  dPairwise: number;
  options: Resolved;
  codebooks: { colour: number[]; gradient: number[] };
  images: HorseImageEntry[];
  source?: string;
  /** Set while prepare-horse is still writing (or was interrupted): the index lists the records written so far. */
  incomplete?: boolean;
}

/**
 * Writes records (in order) and the index to `dir`: `horse.bin` + `horse.json`, or, with `part` P,
 * `horse-P.bin` + `horse-P.json` (a part written in parallel with others; {@link mergeHorseParts} joins them).
 */
export function writeHorseDataset(dir: string, records: Iterable<HorseRecord & { split: 'train' | 'test' }>, options: HorseFeatureOptions, codebooks: HorseCodebooks, source?: string, part?: string, flushEvery = 100): HorseMeta {
  const writer = new HorseSetWriter(dir, options, codebooks, source, part, flushEvery);
  try {
    for (const r of records) writer.add(r);
    return writer.finish(false);
  } catch (e) {
    writer.fail(e);
    throw e;
  }
}

/**
 * Writes a prepared set record by record. The index is rewritten (atomically) every `flushEvery` records, marked
 * incomplete, so that a long prepare that is interrupted leaves a readable set of the records written so far.
 */
/** The records file of a prepared set in `dir`: horse.bin, or horse-P.bin for part P. @throws InputError for a part name that is not letters, digits, _ . - */
export function horseRecordsFile(dir: string, part?: string): string {
  check(part === undefined || /^[A-Za-z0-9_.-]+$/.test(part), `part name '${part}' must be letters, digits, _ . -`);
  return join(dir, part === undefined ? 'horse.bin' : `horse-${part}.bin`);
}

/** The files of a whole prepared set (a part's are horse-P.bin and horse-P.json). */
const HORSE_SET_FILES: readonly string[] = ['horse.json', 'horse.bin'];

class HorseSetWriter {
  private readonly bin: StreamedOutput;
  private readonly binName: string;
  private readonly indexName: string;
  /** Where the files are written: a temporary folder beside `dir` for a whole set, `dir` itself for a part. */
  private readonly folder: string;
  private readonly images: HorseImageEntry[] = [];
  private offset = 0;
  private dims: [number, number] | undefined;
  /** This writer made the folder of a part (it goes again when a full disk leaves nothing in it). */
  private readonly madeDir: boolean;

  constructor(
    private readonly dir: string,
    private readonly options: HorseFeatureOptions,
    private readonly codebooks: HorseCodebooks,
    private readonly source: string | undefined,
    private readonly part: string | undefined,
    private readonly flushEvery: number,
  ) {
    this.madeDir = part !== undefined && !existsSync(dir);
    // A whole set is written into a temporary folder and renamed into place when done (finish): no reader sees a
    // part of it. Parts are written in place, in parallel, into the folder they share (--merge joins them).
    this.folder = part === undefined ? temporaryFolder(dir) : (makeOutputDir(dir), dir);
    this.binName = basename(horseRecordsFile(dir, part));
    this.indexName = part === undefined ? 'horse.json' : `horse-${part}.json`;
    this.bin = StreamedOutput.open(join(this.folder, this.binName), { as: join(dir, this.binName) });
  }

  add(r: HorseRecord & { split: 'train' | 'test' }): void {
    const buf = encodeRecord(r);
    this.bin.write(buf);
    const N = r.graph.numNodes;
    const E = r.graph.edgeFrom.length;
    const d: [number, number] = [r.graph.unary.length / N, E > 0 ? r.graph.pairwise.length / E : (this.dims?.[1] ?? 0)];
    if (this.dims && (this.dims[0] !== d[0] || (E > 0 && this.dims[1] !== d[1]))) throw new InputError(`${r.name}: feature dimensions ${d} differ from ${this.dims}`);
    this.dims ??= d;
    this.images.push({ name: r.name, split: r.split, ...(this.part === undefined ? {} : { file: this.binName }), offset: this.offset, bytes: buf.length, height: r.height, width: r.width, numNodes: N, numEdges: E });
    this.offset += buf.length;
    if (this.flushEvery > 0 && this.images.length % this.flushEvery === 0) this.flush(true);
  }

  /**
   * Closes the records and writes the final index: complete, or marked incomplete (a run stopped early); a whole set
   * then takes the place of `dir` (an earlier set there is replaced).
   */
  finish(incomplete: boolean): HorseMeta {
    this.bin.close();
    this.flush(incomplete);
    if (this.part === undefined) renameFolderIntoPlace(this.folder, this.dir, HORSE_SET_FILES);
    return this.meta(incomplete);
  }

  /**
   * After a failure: a full disk leaves nothing behind (records and index go); any other failure keeps the
   * records written so far with the last index, marked incomplete.
   */
  fail(e: unknown): void {
    if (e instanceof OutputError) {
      this.bin.discard();
      if (this.part === undefined) rmSync(this.folder, { recursive: true, force: true });
      else {
        rmSync(join(this.folder, this.indexName), { force: true });
        if (this.madeDir) removeEmptyFolder(this.dir); // another part may have written into it meanwhile
      }
    } else {
      try {
        this.finish(true);
      } catch {
        /* already failing: the first error is the one to report */
      }
    }
  }

  private meta(incomplete: boolean): HorseMeta {
    return {
      format: HORSE_FORMAT,
      version: HORSE_VERSION,
      dUnary: this.dims?.[0] ?? unaryDim(this.options),
      dPairwise: this.dims?.[1] ?? pairwiseDim(this.options),
      options: resolve(this.options),
      codebooks: { colour: [...this.codebooks.colour], gradient: [...this.codebooks.gradient] },
      images: this.images,
      ...(this.source ? { source: this.source } : {}),
      ...(incomplete ? { incomplete: true } : {}),
    };
  }

  private flush(incomplete: boolean): void {
    writeOutput(join(this.folder, this.indexName), `${JSON.stringify(this.meta(incomplete))}\n`, { as: join(this.dir, this.indexName) });
  }
}

/**
 * Joins the parts `horse-P.json` of a folder (written by prepare-horse --part, in parallel) into one
 * index `horse.json` whose entries point into the part files; no record is copied. Parts are taken in
 * the given order (default: their names sorted); their options and codebooks must agree.
 */
export function mergeHorseParts(dir: string, parts?: readonly string[], allowIncomplete = false): HorseMeta {
  const names = parts ?? readdirSync(dir).flatMap((f) => { const m = /^horse-(.+)\.json$/.exec(f); return m ? [m[1]!] : []; }).sort();
  check(names.length > 0, `${dir}: no horse-PART.json parts to merge`);
  let merged: HorseMeta | undefined;
  for (const p of names) {
    const file = join(dir, `horse-${p}.json`);
    let m: HorseMeta;
    try {
      m = JSON.parse(readInputText(file)) as HorseMeta;
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new FormatError(`bad JSON: ${(e as Error).message}`, file);
    }
    if (m.format !== HORSE_FORMAT || m.version !== HORSE_VERSION) throw new FormatError(`not a ${HORSE_FORMAT} version ${HORSE_VERSION} part`, file);
    if (m.incomplete && !allowIncomplete) throw new InputError(`${file}: the part is incomplete (still being written, or interrupted); wait, or merge with --allow-incomplete`);
    const images = m.images.map((im) => ({ ...im, file: im.file ?? 'horse.bin' }));
    if (!merged) {
      merged = { ...m, images };
      continue;
    }
    if (JSON.stringify(m.options) !== JSON.stringify(merged.options) || m.dUnary !== merged.dUnary || m.dPairwise !== merged.dPairwise) throw new InputError(`${file}: options or dimensions differ from the first part`);
    if (JSON.stringify(m.codebooks) !== JSON.stringify(merged.codebooks)) throw new InputError(`${file}: codebooks differ from the first part (same data, training split and seed are needed)`);
    merged.images.push(...images);
    if (m.incomplete) merged.incomplete = true;
  }
  const seen = new Set<string>();
  for (const im of merged!.images) {
    check(!seen.has(im.name), `${dir}: image ${im.name} appears in two parts`);
    seen.add(im.name);
  }
  writeOutput(join(dir, 'horse.json'), `${JSON.stringify(merged)}\n`);
  return merged!;
}

/** Largest record an index may declare (1 GiB; HorseSeg-size records are about 1.5 MB). */
const MAX_RECORD_BYTES = 2 ** 30;

/** A prepared data set on disk; records are read one at a time. */
export class HorseDataset {
  readonly meta: HorseMeta;
  readonly dir: string;

  constructor(dir: string) {
    this.dir = dir;
    const file = join(dir, 'horse.json');
    if (!existsSync(file)) throw new InputError(`${dir}: no horse.json (run gapbcfw prepare-horse first)`);
    let meta: HorseMeta;
    try {
      meta = JSON.parse(readInputText(file)) as HorseMeta;
    } catch (e) {
      if (e instanceof InputError) throw e;
      throw new FormatError(`bad JSON: ${(e as Error).message}`, file);
    }
    if (meta.format !== HORSE_FORMAT) throw new FormatError(`not a ${HORSE_FORMAT} index`, file);
    if (meta.version !== HORSE_VERSION) throw new FormatError(`version ${meta.version} is not supported (this build reads version ${HORSE_VERSION})`, file);
    check(Array.isArray(meta.images), `${file}: images must be an array`);
    meta.images.forEach((im, k) => {
      // Checked before any buffer is sized from an entry: a damaged index must not become a huge allocation.
      if (!(Number.isSafeInteger(im.offset) && im.offset >= 0 && Number.isSafeInteger(im.bytes) && im.bytes >= 0 && im.bytes <= MAX_RECORD_BYTES)) {
        throw new FormatError(`index entry ${k} (${im.name}) has offset ${im.offset} and size ${im.bytes} (a record is at most ${MAX_RECORD_BYTES} bytes)`, file);
      }
    });
    this.meta = meta;
  }

  /** Indices of the images of a split. */
  indices(split: 'train' | 'test' | 'all'): number[] {
    return this.meta.images.flatMap((im, k) => (split === 'all' || im.split === split ? [k] : []));
  }

  /** Reads record k from horse.bin. */
  read(k: number): HorseRecord {
    const im = this.meta.images[k];
    check(im !== undefined, `image index ${k} is outside 0..${this.meta.images.length - 1}`);
    const bin = join(this.dir, im.file ?? 'horse.bin');
    const fd = openSync(bin, 'r');
    try {
      const buf = Buffer.alloc(im.bytes);
      const got = readSync(fd, buf, 0, im.bytes, im.offset);
      if (got !== im.bytes) throw new FormatError(`truncated at record ${k} (${im.name})`, bin);
      const r = decodeRecord(buf, im.name, `${bin} record ${k} (${im.name})`);
      if (r.graph.numNodes !== im.numNodes || r.graph.edgeFrom.length !== im.numEdges) throw new FormatError(`record ${k} (${im.name}) does not match the index`, bin);
      return { ...r, checksum: crc32(buf.subarray(0, trainingBytes(im))) };
    } finally {
      closeSync(fd);
    }
  }

  /** Loads every record of a split into memory (inputs and labels for modelProblem, and the set's fingerprint: the CRC of its records' CRCs). */
  load(split: 'train' | 'test' | 'all', limit = Infinity): { xs: SegmentationGraph[]; ys: Uint8Array[]; records: HorseRecord[]; fingerprint: string } {
    const records = this.indices(split).slice(0, limit).map((k) => this.read(k));
    return { xs: records.map((r) => r.graph), ys: records.map((r) => r.labels), records, fingerprint: horseFingerprint(records.map((r) => r.checksum!)) };
  }

  /** Copies of the colour and gradient k-means codebooks stored in `horse.json` (to featurise new images consistently). */
  codebooks(): HorseCodebooks {
    return { colour: Float32Array.from(this.meta.codebooks.colour), gradient: Float32Array.from(this.meta.codebooks.gradient) };
  }
}

// ---------------------------------------------------------------------------------------------
// Weizmann horse images (decoded with sharp)
// ---------------------------------------------------------------------------------------------

/**
 * The image names of a Weizmann database folder (weizmann_horse_db/ or its parent), sorted. Every image
 * needs its mask and every mask its image: a missing one is an error naming it (skipping it would shift the
 * train/test split, which is by position in this list).
 */
export function weizmannNames(root: string): { db: string; names: string[] } {
  const db = existsSync(join(root, 'weizmann_horse_db')) ? join(root, 'weizmann_horse_db') : root;
  if (!existsSync(join(db, 'rgb')) || !existsSync(join(db, 'figure_ground'))) throw new InputError(`${root}: expected rgb/ and figure_ground/ folders (the Weizmann horse database)`);
  const list = (sub: string) => readdirSync(join(db, sub)).filter((f) => /\.(jpe?g|png)$/i.test(f)).sort();
  const names = list('rgb');
  const masks = list('figure_ground');
  const maskSet = new Set(masks);
  const imageSet = new Set(names);
  const noMask = names.find((f) => !maskSet.has(f));
  if (noMask !== undefined) throw new InputError(`${join(db, 'figure_ground', noMask)} is missing: every image in rgb/ needs its mask`);
  const noImage = masks.find((f) => !imageSet.has(f));
  if (noImage !== undefined) throw new InputError(`${join(db, 'rgb', noImage)} is missing: every mask in figure_ground/ needs its image`);
  return { db, names };
}

/** Decodes one image: rgb/ resized to the size of its figure_ground/ mask, mask thresholded at 128. */
export async function loadWeizmannImage(db: string, file: string): Promise<HorseImage> {
  const { data: maskData, info } = await decodeImage(join(db, 'figure_ground', file), (im) => im.extractChannel(0).raw().toBuffer({ resolveWithObject: true }));
  const H = info.height;
  const W = info.width;
  const { data: rgbData } = await decodeImage(join(db, 'rgb', file), (im) => im.removeAlpha().toColourspace('srgb').resize(W, H, { fit: 'fill' }).raw().toBuffer({ resolveWithObject: true }));
  check(rgbData.length === H * W * 3, `${file}: decoded ${rgbData.length} bytes, expected ${H * W * 3}`);
  const mask = new Uint8Array(H * W);
  for (let p = 0; p < H * W; p++) mask[p] = maskData[p]! >= 128 ? 1 : 0;
  return { name: file.replace(/\.[^.]+$/, ''), height: H, width: W, rgb: new Uint8Array(rgbData), mask };
}

export interface PrepareHorseOptions extends HorseFeatureOptions {
  /** Use only the first `limit` images (sorted by name). */
  limit?: number;
  /** Training images (the first `trainSize` by name); default 147. */
  trainSize?: number;
  /**
   * Augmented copies per training image (default 0): random horizontal flip, crop (80-100% of each
   * side) and colour jitter, seeded; appended as training images named NAME_augK. 41 copies of the
   * 147 give 6,174 training images (HorseSeg-medium's scale: 6,121), 172 give 25,431 (-large: 25,438).
   */
  augment?: number;
  /**
   * Write only augmented copies from..to (1-based, inclusive; default 1..augment), so that parts of a large
   * augmented set can be prepared in parallel (each copy is seeded by (seed, copy, image), so the parts
   * equal one sequential run's records).
   */
  copies?: [number, number];
  /** Include the original (unaugmented) images; default true. */
  originals?: boolean;
  /** Write horse-PART.bin / horse-PART.json instead of horse.bin / horse.json ({@link mergeHorseParts}). */
  part?: string;
  /** Progress callback. */
  onProgress?: (stage: string, done: number, total: number) => void;
  /**
   * Stops after the current image: the index then lists the records written so far, marked incomplete (readable,
   * and `mergeHorseParts(..., allowIncomplete)` joins it); stopped while decoding, nothing is written and the
   * result has no images.
   */
  signal?: AbortSignal;
}

/** A random flip / crop / colour jitter of an image and its mask (nearest-neighbour resampling back to H x W). */
export function augmentImage(im: HorseImage, rng: Rng, name: string): HorseImage {
  const { height: H, width: W } = im;
  const flip = rng.next() < 0.5;
  const ch = Math.max(1, Math.round(H * (0.8 + 0.2 * rng.next())));
  const cw = Math.max(1, Math.round(W * (0.8 + 0.2 * rng.next())));
  const y0 = rng.int(H - ch + 1);
  const x0 = rng.int(W - cw + 1);
  const gain = [0, 1, 2].map(() => 0.8 + 0.4 * rng.next());
  const offset = (rng.next() * 2 - 1) * 20;
  const rgb = new Uint8Array(H * W * 3);
  const mask = new Uint8Array(H * W);
  for (let y = 0; y < H; y++) {
    const sy = y0 + Math.min(ch - 1, Math.floor(((y + 0.5) * ch) / H));
    for (let x = 0; x < W; x++) {
      let sx = x0 + Math.min(cw - 1, Math.floor(((x + 0.5) * cw) / W));
      if (flip) sx = 2 * x0 + cw - 1 - sx;
      const q = sy * W + sx;
      for (let c = 0; c < 3; c++) rgb[3 * (y * W + x) + c] = Math.max(0, Math.min(255, Math.round(im.rgb[3 * q + c]! * gain[c]! + offset)));
      mask[y * W + x] = im.mask ? im.mask[q]! : 0;
    }
  }
  return { name, height: H, width: W, rgb, mask };
}

/** The generator of augmented copy c of training image k: seeded by (seed, c, k) alone. */
export function augmentRng(seed: number, copy: number, image: number): Rng {
  let h = Math.imul((seed + 7919) >>> 0, 0x9e3779b1) >>> 0;
  h = Math.imul(h ^ copy, 0x85ebca6b) >>> 0;
  h = Math.imul(h ^ image, 0xc2b2ae35) >>> 0;
  return new Rng((h ^ (h >>> 15)) >>> 0);
}

/** Decodes, featurises and writes the whole database: `gapbcfw prepare-horse`. */
export async function prepareHorse(root: string, outDir: string, options: PrepareHorseOptions = {}): Promise<HorseMeta> {
  const { db, names: all } = weizmannNames(root);
  const names = all.slice(0, options.limit ?? all.length);
  const trainSize = Math.min(options.trainSize ?? HORSE_TRAIN_SIZE, names.length);
  const augment = options.augment ?? 0;
  check(Number.isInteger(augment) && augment >= 0, `augment must be an integer >= 0, got ${augment}`);
  const [from, to] = options.copies ?? [1, augment];
  check(Number.isInteger(from) && Number.isInteger(to) && from >= 1 && to <= augment && from <= to + 1, `copies ${from}..${to} must lie within 1..${augment}`);
  const originals = options.originals ?? true;
  // A whole set replaces an earlier one in outDir, and nothing else (checked again when it is moved into place).
  if (options.part === undefined) checkReplaceableFolder(outDir, HORSE_SET_FILES);
  const images: HorseImage[] = [];
  for (let k = 0; k < names.length; k++) {
    if (options.signal?.aborted) return { format: HORSE_FORMAT, version: HORSE_VERSION, dUnary: unaryDim(options), dPairwise: pairwiseDim(options), options: resolve(options), codebooks: { colour: [], gradient: [] }, images: [], incomplete: true };
    images.push(await loadWeizmannImage(db, names[k]!));
    options.onProgress?.('decode', k + 1, names.length);
  }
  options.onProgress?.('codebooks', 0, 1);
  const codebooks = learnCodebooks(images.slice(0, trainSize), options);
  options.onProgress?.('codebooks', 1, 1);
  const total = (originals ? images.length : 0) + Math.max(0, to - from + 1) * trainSize;
  const seed = options.seed ?? 1;
  const records = function* () {
    let done = 0;
    if (originals) {
      for (let k = 0; k < images.length; k++) {
        const r = featuriseImage(images[k]!, codebooks, options);
        options.onProgress?.('features', ++done, total);
        yield { ...r, split: (k < trainSize ? 'train' : 'test') as 'train' | 'test' };
      }
    }
    for (let c = from; c <= to; c++) {
      for (let k = 0; k < trainSize; k++) {
        const im = augmentImage(images[k]!, augmentRng(seed, c, k), `${images[k]!.name}_aug${c}`);
        yield { ...featuriseImage(im, codebooks, options), split: 'train' as const };
        options.onProgress?.('features', ++done, total);
      }
    }
  };
  // Record by record, yielding to the event loop between images so that a signal can stop the run cleanly.
  const writer = new HorseSetWriter(outDir, options, codebooks, db, options.part, 100);
  let stopped = false;
  try {
    for (const r of records()) {
      writer.add(r);
      await yieldToEventLoop();
      if (options.signal?.aborted) {
        stopped = true;
        break;
      }
    }
    return writer.finish(stopped);
  } catch (e) {
    writer.fail(e);
    throw e;
  }
}
