/**
 * gpu.js backend: one kernel computes a chunk of scores out[n, k] = <W_k, X_n> + aug in float32.
 *
 * gpu.js facts this respects (shared/reference/toolchain.md): every result is float32; flat indices above
 * 2^24 are wrong on the webasm and GL backends, so inputs are 2-D (the backend computes addresses) and
 * batches are split into chunks of at most 2^24 values per input and output; GL textures allow at most
 * 16384 per dimension, so a chunk has at most 16384 rows; a kernel is compiled once per feature count and
 * reused with dynamic sizes. gpu.js 2.24.1's cpu mode indexes 2-D `Input`s wrongly once
 * `dynamicArguments` is on (row stride taken from the output), so in cpu mode matrices are passed as arrays of
 * row views instead (a test runs every mode against the float64 reference).
 */
import { createRequire } from 'node:module';
import type { GPU, IKernelRunShortcut, Input as InputType } from 'gpu.js';
import { check } from '../src/core/errors.js';
import { checkRows, checkScore } from './backend.js';
import type { FeatureArray, FeatureRows, LossAugmentation, ScoringBackend } from '../src/core/scoring.js';

/** gpu.js modes a user may force; `gpu` lets gpu.js pick (headlessgl, webgl2, webgl, then webasm). */
export const GPUJS_MODES = ['gpu', 'webgl', 'webgl2', 'headlessgl', 'webasm', 'cpu'] as const;
/** One of {@link GPUJS_MODES}. */
export type GpuJsMode = (typeof GPUJS_MODES)[number];

type GpuJsModule = typeof import('gpu.js');
let gpuJs: GpuJsModule | undefined;
/**
 * Loads gpu.js on first use (it pulls in a JS parser; most runs never need it). gpu.js is an optional peer
 * dependency: it is not installed with gapbcfw (its optional `gl` dependency would download or compile
 * headless-gl at install time), so a machine with a GPU adds it with `npm install gpu.js@2.24.1`.
 */
function loadGpuJs(): GpuJsModule {
  if (gpuJs) return gpuJs;
  try {
    return (gpuJs = createRequire(import.meta.url)('gpu.js') as GpuJsModule);
  } catch (e) {
    if ((e as { code?: string }).code !== 'MODULE_NOT_FOUND') throw e;
    throw new Error('gpu.js is not installed (an optional peer dependency of gapbcfw): npm install gpu.js@2.24.1 to enable this backend');
  }
}

/** Largest number of values of one 2-D input or output in a chunk (flat offsets stay exact in float32). */
export const MAX_CHUNK_VALUES = 2 ** 24;
/** GL texture limit per dimension. */
export const MAX_CHUNK_ROWS = 16384;

/** Rows per chunk for a given feature count and number of classes. */
export function chunkRows(cols: number, K: number): number {
  return Math.max(1, Math.min(MAX_CHUNK_ROWS, Math.floor(MAX_CHUNK_VALUES / cols), Math.floor(MAX_CHUNK_VALUES / K)));
}

/** A matrix argument: a 2-D Input, or (cpu mode) an array of row views. */
type Matrix = InputType | Float32Array[];

interface Chunk {
  start: number;
  rows: number;
  input: Matrix;
}

class GpuJsRows implements FeatureRows {
  constructor(
    readonly rows: number,
    readonly cols: number,
    readonly chunks: Chunk[],
    readonly rowsPerChunk: number,
  ) {}
}

/**
 * The kernel: thread (x = k, y = n) of a chunk. Plain JavaScript that gpu.js translates; no closures, loop
 * bound from a constant. `labels` holds class ids as floats (exact below 2^24); rows without augmentation
 * get weight 0.
 */
function scoreKernel(this: { thread: { x: number; y: number }; constants: { D: number } }, X: number[][], W: number[][], labels: number[], weight: number[]): number {
  const n = this.thread.y;
  const k = this.thread.x;
  let s = 0;
  for (let j = 0; j < this.constants.D; j++) {
    s += W[k]![j]! * X[n]![j]!;
  }
  if (Math.abs(labels[n]! - k) > 0.5) {
    s += weight[n]!;
  }
  return s;
}

/** Settings of a {@link GpuJsBackend}. */
export interface GpuJsBackendOptions {
  /** gpu.js mode (default `gpu`: the best gpu.js finds). */
  mode?: GpuJsMode;
  /** Rows per chunk (default: the largest within the limits above); tests lower it to exercise chunking. */
  rowsPerChunk?: number;
}

/** Batched scores with gpu.js kernels (float32; labels are then certified in float64 by the models). */
export class GpuJsBackend implements ScoringBackend {
  readonly name = 'gpujs' as const;
  readonly precision = 'float32' as const;
  private readonly gpu: GPU;
  private readonly kernels = new Map<number, IKernelRunShortcut>();
  private readonly rowsPerChunk: number | undefined;
  private labels = new Float32Array(0);
  private weight = new Float32Array(0);

  constructor(options: GpuJsBackendOptions = {}) {
    const mode = options.mode ?? 'gpu';
    check((GPUJS_MODES as readonly string[]).includes(mode), `gpu.js mode must be one of ${GPUJS_MODES.join(', ')}, got '${mode}'`);
    if (options.rowsPerChunk !== undefined) {
      check(Number.isInteger(options.rowsPerChunk) && options.rowsPerChunk >= 1, `rowsPerChunk must be a positive integer, got ${options.rowsPerChunk}`);
    }
    this.rowsPerChunk = options.rowsPerChunk;
    const { GPU } = loadGpuJs();
    // No mode: gpu.js picks the best it can start (headlessgl, webgl2, webgl, then webasm) and reports it.
    this.gpu = mode === 'gpu' ? new GPU() : new GPU({ mode });
  }

  /** The mode gpu.js actually runs in (e.g. `webasm` when no GPU context could be created). */
  get mode(): string {
    return this.gpu.mode ?? 'unknown';
  }

  /** A rows x cols float32 matrix as this mode reads it correctly. */
  private matrix(f32: Float32Array, rows: number, cols: number): Matrix {
    if (this.gpu.mode === 'cpu') return Array.from({ length: rows }, (_, r) => f32.subarray(r * cols, (r + 1) * cols));
    const { Input } = loadGpuJs();
    return new Input(f32 as unknown as number[], [cols, rows]);
  }

  prepare(X: FeatureArray, rows: number, cols: number): FeatureRows {
    checkRows(X, rows, cols);
    // Chunks also hold K outputs per row; K is unknown here, so the output limit is checked in score().
    const per = Math.min(this.rowsPerChunk ?? MAX_CHUNK_ROWS, chunkRows(cols, 1));
    const chunks: Chunk[] = [];
    for (let start = 0; start < rows; start += per) {
      const r = Math.min(per, rows - start);
      const part = X.subarray(start * cols, (start + r) * cols);
      const f32 = part instanceof Float32Array ? part : Float32Array.from(part);
      chunks.push({ start, rows: r, input: this.matrix(f32, r, cols) });
    }
    return new GpuJsRows(rows, cols, chunks, per);
  }

  score(rows: FeatureRows, W: Float64Array, K: number, out: Float64Array, aug?: LossAugmentation): void {
    if (!(rows instanceof GpuJsRows)) throw new TypeError('these rows were prepared by another backend');
    checkScore(rows, W, K, out, aug);
    check(rows.rowsPerChunk * K <= MAX_CHUNK_VALUES, () => `K = ${K} classes x ${rows.rowsPerChunk} rows per chunk exceed 2^24 outputs`);
    if (rows.rows === 0) return;
    const D = rows.cols;
    const kernel = this.kernelFor(D);
    const w = this.matrix(Float32Array.from(W), K, D);
    if (this.labels.length < rows.rowsPerChunk) {
      this.labels = new Float32Array(rows.rowsPerChunk);
      this.weight = new Float32Array(rows.rowsPerChunk);
    }
    for (const c of rows.chunks) {
      const labels = this.labels.subarray(0, c.rows);
      const weight = this.weight.subarray(0, c.rows);
      for (let i = 0; i < c.rows; i++) {
        labels[i] = aug ? aug.labels[c.start + i]! : -1;
        weight[i] = aug ? aug.weight[c.start + i]! : 0;
      }
      kernel.setOutput([K, c.rows]);
      const result = kernel(c.input, w, labels, weight) as Float32Array[];
      for (let i = 0; i < c.rows; i++) {
        const row = result[i]!;
        const o = (c.start + i) * K;
        for (let k = 0; k < K; k++) out[o + k] = row[k]!;
      }
    }
  }

  private kernelFor(D: number): IKernelRunShortcut {
    let kernel = this.kernels.get(D);
    if (!kernel) {
      const settings = { constants: { D }, output: [1, 1], dynamicOutput: true, dynamicArguments: true, tactic: 'precision', loopMaxIterations: D };
      kernel = this.gpu.createKernel(scoreKernel as never, settings as never);
      this.kernels.set(D, kernel);
    }
    return kernel;
  }

  dispose(): void {
    this.kernels.clear();
    void Promise.resolve(this.gpu.destroy()).catch(() => undefined);
  }
}
