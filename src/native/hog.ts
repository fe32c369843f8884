/**
 * HOG cell features (Felzenszwalb et al., TPAMI 2010, Sec. 6: 31 dimensions per cell: 18
 * contrast-sensitive + 9 contrast-insensitive orientation bins + 4 gradient-energy features) and
 * linear filter responses over cell grids, computed by the C++ addon (native/hog).
 *
 * Output cell (r, c) is centred at pixel ((c + 1.5) * sbin, (r + 1.5) * sbin) (0-based x, y); the
 * grid has max(round(H / sbin) - 2, 0) rows and max(round(W / sbin) - 2, 0) columns.
 *
 * @module
 */
import { check } from '../core/errors.js';
import { native } from './addon.js';
import { callNative } from './is.js';

/** Features per HOG cell. */
export const HOG_DIM = 31;

/** Feature d of cell (r, c) at `data[(r * cols + c) * 31 + d]`. */
export interface HogFeatures {
  rows: number;
  cols: number;
  dim: number;
  data: Float32Array;
  /** Cell size in pixels. */
  sbin: number;
}

// The section's functions on the addon object (src/native/addon.ts).
declare module './addon.js' {
  interface NativeBinding extends HogBinding {}
}

export interface HogBinding {
  hog(image: Float64Array, H: number, W: number, C: number, sbin: number, out: Float32Array): void;
  hogShape(H: number, W: number, sbin: number): [number, number];
  filterResponses(feat: Float32Array, rows: number, cols: number, dim: number, w: Float64Array, numFilters: number, k: number, out: Float64Array): void;
}
const hogNative: HogBinding = native;

/** Grid size of {@link hog} for an image size. */
export function hogShape(height: number, width: number, sbin: number): { rows: number; cols: number } {
  const [rows, cols] = hogNative.hogShape(height, width, sbin);
  return { rows, cols };
}

/**
 * HOG features of an image: `data` row-major with `channels` (1..4) interleaved values per pixel (any
 * range; 0..255 typical). In colour images each pixel uses the channel with the strongest gradient.
 *
 * @throws InputError on wrong sizes, non-finite pixels or sbin < 1.
 */
export function hog(image: { width: number; height: number; channels: number; data: ArrayLike<number> }, sbin = 8): HogFeatures {
  const { width, height, channels } = image;
  check(Number.isInteger(sbin) && sbin >= 1, `sbin must be a positive integer, got ${sbin}`);
  check(Number.isInteger(channels) && channels >= 1 && channels <= 4, `channels must be 1..4, got ${channels}`);
  check(Number.isInteger(width) && Number.isInteger(height) && width >= 1 && height >= 1, `image size must be positive integers, got ${width} x ${height}`);
  check(image.data.length === width * height * channels, `image data has length ${image.data.length}, expected ${width * height * channels}`);
  const data = image.data instanceof Float64Array ? image.data : Float64Array.from(image.data);
  const { rows, cols } = hogShape(height, width, sbin);
  const out = new Float32Array(rows * cols * HOG_DIM);
  callNative(() => hogNative.hog(data, height, width, channels, sbin, out));
  return { rows, cols, dim: HOG_DIM, data: out, sbin };
}

/**
 * Responses of `numFilters` k x k linear filters (layout f, i, j, d in `w`, starting at index 0) at every
 * cell: out[f][r*cols + c] = sum w_f(i, j, d) feat(r + i - k/2, c + j - k/2, d), zero outside the grid.
 */
export function filterResponses(feat: { rows: number; cols: number; dim: number; data: Float32Array }, w: Float64Array, numFilters: number, k: number): Float64Array[] {
  const { rows, cols, dim } = feat;
  const out = new Float64Array(numFilters * rows * cols);
  hogNative.filterResponses(feat.data, rows, cols, dim, w, numFilters, k, out);
  return Array.from({ length: numFilters }, (_, f) => out.subarray(f * rows * cols, (f + 1) * rows * cols));
}
