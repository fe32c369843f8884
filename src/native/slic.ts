/**
 * SLIC superpixels (Achanta et al., TPAMI 2012) in C++ (native/slic): local k-means in CIELAB x (y, x)
 * from a regular grid of centres, then connectivity enforcement, so every superpixel is one
 * 4-connected region and labels are 0..count-1.
 *
 * @example
 * ```ts
 * const { labels, count } = slic(rgb, height, width, { channels: 3, numSuperpixels: 200 });
 * ```
 * @module
 */
import { native } from './addon.js';
import { callNative, typedArray } from './is.js';

/** Options of {@link slic} (Achanta et al., SLIC superpixels, TPAMI 2012). */
export interface SlicOptions {
  /** Interleaved channels per pixel: 1 (grey), 3 (RGB) or 4 (RGBA, alpha ignored). Default 3. */
  channels?: 1 | 3 | 4;
  /** Desired number of superpixels K; the result has about K (fewer after merging small pieces). Default 200. */
  numSuperpixels?: number;
  /** Compactness m (colour vs space; larger = more regular). Default 10 as in the paper. */
  compactness?: number;
  /** k-means iterations. Default 10. */
  iterations?: number;
}

/** Superpixels of an image. */
export interface SlicResult {
  /** Superpixel id per pixel, row-major, in 0..count-1. */
  labels: Int32Array;
  /** Number of superpixels. */
  count: number;
}

// The section's functions on the addon object (src/native/addon.ts).
declare module './addon.js' {
  interface NativeBinding extends SlicBinding {}
}

export interface SlicBinding {
  slic(pixels: Uint8Array, H: number, W: number, channels: number, K: number, m: number, iterations: number, out: Int32Array): number;
}

/**
 * Segments an image into superpixels.
 *
 * @param pixels - H*W*channels bytes, row-major, interleaved.
 * @throws InputError on bad sizes or options.
 */
export function slic(pixels: Uint8Array, height: number, width: number, options: SlicOptions = {}): SlicResult {
  const channels = options.channels ?? 3;
  const K = options.numSuperpixels ?? 200;
  const m = options.compactness ?? 10;
  const iterations = options.iterations ?? 10;
  typedArray('slic', 'pixels', pixels, Uint8Array);
  const labels = new Int32Array(Number.isInteger(height) && Number.isInteger(width) && height > 0 && width > 0 ? height * width : 0);
  const count = callNative(() => native.slic(pixels, height, width, channels, K, m, iterations, labels));
  return { labels, count };
}
