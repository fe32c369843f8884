/**
 * Predictions drawn over their images, as PNG bytes: horse segmentations (prediction and ground truth in one
 * image) and LSP pose skeletons (scaled up to a readable size, with a key). Writing the bytes is the
 * caller's (src/io/output.ts).
 * @module
 */
import { LSP_STICKS } from '../models/pose-eval.js';
import { renderPng } from './figures.js';
import { importPeer } from '../io/peers.js';

/** Colours of the horse overlay (RGB). */
export const HORSE_OVERLAY_COLOURS = {
  /** Superpixel boundaries of the predicted foreground. */
  predictedBoundary: [255, 255, 0],
  /** Boundary of the ground-truth mask, drawn over everything else. */
  truthBoundary: [0, 255, 255],
} as const;

/**
 * A horse segmentation over its image (H x W, RGB bytes): the predicted foreground tinted red with its
 * superpixel boundaries in yellow, and the boundary of the ground-truth mask (pixel labels 0/1) in cyan, so
 * that misses and false alarms show where the two outlines part. Same size as the image.
 */
export async function horseOverlayPng(rgb: Uint8Array, height: number, width: number, superpixels: ArrayLike<number>, predicted: Uint8Array, truth?: Uint8Array): Promise<Buffer> {
  const H = height;
  const W = width;
  const out = Buffer.alloc(H * W * 3);
  // A pixel lies on the boundary of a labelling when its right or lower neighbour has the other label.
  const onBoundary = (label: (p: number) => number, p: number) => {
    const x = p % W;
    const v = label(p);
    return (x + 1 < W && label(p + 1) !== v) || (p + W < H * W && label(p + W) !== v);
  };
  const predictedAt = (p: number) => predicted[superpixels[p]!]!;
  for (let p = 0; p < H * W; p++) {
    const fg = predictedAt(p);
    if (truth && onBoundary((q) => truth[q]!, p)) out.set(HORSE_OVERLAY_COLOURS.truthBoundary, 3 * p);
    else if (onBoundary(predictedAt, p)) out.set(HORSE_OVERLAY_COLOURS.predictedBoundary, 3 * p);
    else if (fg) out.set([Math.round(0.5 * rgb[3 * p]! + 127), Math.round(0.5 * rgb[3 * p + 1]!), Math.round(0.5 * rgb[3 * p + 2]!)], 3 * p);
    else out.set([rgb[3 * p]!, rgb[3 * p + 1]!, rgb[3 * p + 2]!], 3 * p);
  }
  const { default: sharp } = await importPeer<typeof import('sharp')>('sharp', 'drawing overlays');
  return sharp(out, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer();
}

/** The 14 LSP joints of a pose: 1-based pixel coordinates (as `PosePoints` of the pose model). */
export interface SkeletonJoints {
  x: ArrayLike<number>;
  y: ArrayLike<number>;
}

/** Smallest height of a drawn pose (LSP images are about 100-250 pixels tall: too small to read). */
const POSE_MIN_HEIGHT = 480;
const KEY_HEIGHT = 34;
const PREDICTION_COLOUR = '#28dc28';
const TRUTH_COLOUR = '#ffffff';

/**
 * The predicted skeleton (green, solid) over the ground truth (white, dashed) on their image, scaled up to at
 * least 480 pixels tall, with a key strip under the image. Joint coordinates are 1-based pixels of the
 * image (LSP's convention). `image` holds `channels` interleaved values per pixel in 0..255.
 */
export async function poseSkeletonPng(image: { width: number; height: number; channels: number; data: ArrayLike<number> }, predicted: SkeletonJoints, truth: SkeletonJoints): Promise<Buffer> {
  const { width: W, height: H, channels: C } = image;
  const rgb = Buffer.alloc(W * H * 3);
  for (let p = 0; p < W * H; p++) for (let c = 0; c < 3; c++) rgb[3 * p + c] = image.data[C * p + Math.min(c, C - 1)]!;
  const { default: sharp } = await importPeer<typeof import('sharp')>('sharp', 'drawing overlays');
  const photo = (await sharp(rgb, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer()).toString('base64');
  const s = Math.max(1, Math.ceil(POSE_MIN_HEIGHT / H));
  const at = (p: SkeletonJoints, j: number): [number, number] => {
    const [x, y] = j === -1 ? [(p.x[2]! + p.x[3]!) / 2, (p.y[2]! + p.y[3]!) / 2] : j === -2 ? [(p.x[8]! + p.x[9]!) / 2, (p.y[8]! + p.y[9]!) / 2] : [p.x[j]!, p.y[j]!];
    return [(x - 0.5) * s, (y - 0.5) * s]; // 1-based pixel centres to scaled coordinates
  };
  const sticks = (p: SkeletonJoints, colour: string, width: number, dash: string) =>
    LSP_STICKS.map(([a, b]) => {
      const [x1, y1] = at(p, a);
      const [x2, y2] = at(p, b);
      return `<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}" stroke="${colour}" stroke-width="${width}" stroke-linecap="round"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`;
    }).join('');
  const Ws = W * s;
  const Hs = H * s;
  const keyLine = (x: number, colour: string, width: number, dash: string, label: string) =>
    `<line x1="${x}" y1="${Hs + KEY_HEIGHT / 2}" x2="${x + 28}" y2="${Hs + KEY_HEIGHT / 2}" stroke="${colour}" stroke-width="${width}"${dash ? ` stroke-dasharray="${dash}"` : ''}/>` +
    `<text x="${x + 34}" y="${Hs + KEY_HEIGHT / 2 + 5}" fill="#ffffff" font-size="14" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif">${label}</text>`;
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${Ws}" height="${Hs + KEY_HEIGHT}">` +
    `<image x="0" y="0" width="${Ws}" height="${Hs}" preserveAspectRatio="none" xlink:href="data:image/png;base64,${photo}"/>` +
    sticks(truth, TRUTH_COLOUR, 2, '6 4') +
    sticks(predicted, PREDICTION_COLOUR, 4, '') +
    `<rect x="0" y="${Hs}" width="${Ws}" height="${KEY_HEIGHT}" fill="#202020"/>` +
    keyLine(8, PREDICTION_COLOUR, 4, '', 'prediction') +
    keyLine(Math.max(130, Math.round(Ws / 2)), TRUTH_COLOUR, 2, '6 4', 'ground truth') +
    '</svg>';
  return renderPng(svg, { scale: 1 });
}
