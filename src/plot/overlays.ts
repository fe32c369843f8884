/**
 * Predictions drawn over their images, as PNG bytes: horse segmentations (prediction and ground truth in one
 * image) and LSP pose skeletons (scaled up to a readable size, with a key). Writing the bytes is the
 * caller's (src/io/output.ts).
 * @module
 */
import { LSP_STICKS } from '../models/pose-eval.js';
import { renderPng } from './figures.js';
import { importPeer } from '../io/peers.js';

/**
 * Colours of the horse overlay (RGB): a light and a dark outline, so that they differ in greyscale too (luminance
 * about 237 and 64 of 255).
 */
export const HORSE_OVERLAY_COLOURS = {
  /** Superpixel boundaries of the predicted foreground. */
  predictedBoundary: [255, 255, 0],
  /** Boundary of the ground-truth mask, drawn over everything else. */
  truthBoundary: [0, 64, 255],
} as const;

/** Height of the key strip under an overlay, in pixels of the drawn image. */
const KEY_HEIGHT = 34;
const KEY_FONT = 'font-size="14" font-family="DejaVu Sans, Liberation Sans, Arial, sans-serif"';
const rgbCss = (c: readonly number[]) => `rgb(${c.join(',')})`;

/** One entry of a key: a sample line (or a filled swatch) and its label, at x on a strip starting at y. */
function keyEntry(x: number, y: number, sample: { colour: string; width?: number; dash?: string; fill?: boolean }, label: string): string {
  const mid = y + KEY_HEIGHT / 2;
  const mark = sample.fill
    ? `<rect x="${x}" y="${mid - 7}" width="28" height="14" fill="${sample.colour}"/>`
    : `<line x1="${x}" y1="${mid}" x2="${x + 28}" y2="${mid}" stroke="${sample.colour}" stroke-width="${sample.width ?? 3}"${sample.dash ? ` stroke-dasharray="${sample.dash}"` : ''}/>`;
  return `${mark}<text x="${x + 34}" y="${mid + 5}" fill="#ffffff" ${KEY_FONT}>${label}</text>`;
}

/** A key strip under an image `width` x `height`: its entries laid out left to right, 160 pixels apart at least. */
function keyStrip(width: number, height: number, entries: [Parameters<typeof keyEntry>[2], string][]): string {
  const step = Math.max(160, Math.floor(width / entries.length));
  return `<rect x="0" y="${height}" width="${width}" height="${KEY_HEIGHT}" fill="#202020"/>` + entries.map(([sample, label], k) => keyEntry(8 + k * step, height, sample, label)).join('');
}

/** Width of a drawing with a key of `entries` entries: at least 160 pixels per entry, so that the labels fit. */
const keyedWidth = (width: number, entries: number) => Math.max(width, 160 * entries);

/**
 * A horse segmentation over its image (H x W, RGB bytes): the predicted foreground tinted red with its superpixel
 * boundaries in yellow, and the boundary of the ground-truth mask (pixel labels 0/1) in dark blue, so that misses and
 * false alarms show where the two outlines part (light and dark: they differ in greyscale too). Under the image, a
 * key strip (34 pixels) names them; the drawing is at least 480 pixels wide so that the key fits (the image at its
 * own size, top left).
 */
export async function horseOverlayPng(rgb: Uint8Array, height: number, width: number, superpixels: ArrayLike<number>, predicted: Uint8Array, truth?: Uint8Array): Promise<Uint8Array> {
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
  const photo = (await sharp(out, { raw: { width: W, height: H, channels: 3 } }).png().toBuffer()).toString('base64');
  const entries: [Parameters<typeof keyEntry>[2], string][] = [
    [{ colour: 'rgb(200,60,60)', fill: true }, 'predicted horse'],
    [{ colour: rgbCss(HORSE_OVERLAY_COLOURS.predictedBoundary) }, 'its superpixels'],
    ...(truth ? [[{ colour: rgbCss(HORSE_OVERLAY_COLOURS.truthBoundary) }, 'true outline'] as [Parameters<typeof keyEntry>[2], string]] : []),
  ];
  const Wk = keyedWidth(W, entries.length);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${Wk}" height="${H + KEY_HEIGHT}">` +
    `<rect x="0" y="0" width="${Wk}" height="${H}" fill="#202020"/>` +
    `<image x="0" y="0" width="${W}" height="${H}" preserveAspectRatio="none" xlink:href="data:image/png;base64,${photo}"/>` +
    keyStrip(Wk, H, entries) +
    '</svg>';
  return renderPng(svg, { scale: 1 });
}

/** The 14 LSP joints of a pose: 1-based pixel coordinates (as `PosePoints` of the pose model). */
export interface SkeletonJoints {
  x: ArrayLike<number>;
  y: ArrayLike<number>;
}

/** Smallest height of a drawn pose (LSP images are about 100-250 pixels tall: too small to read). */
const POSE_MIN_HEIGHT = 480;
/** Colours of a predicted skeleton: the person's left limbs, right limbs, and head and torso. */
export const POSE_COLOURS = { left: '#3399ff', right: '#ff8c1a', centre: '#28dc28' } as const;
const TRUTH_COLOUR = '#ffffff';
/** Side of each of LSP_STICKS (LSP joints 0-2 and 6-8 are the person's right, 3-5 and 9-11 the left). */
const STICK_SIDE: readonly (keyof typeof POSE_COLOURS)[] = LSP_STICKS.map(([a]) => (a < 0 || a >= 12 ? 'centre' : a % 6 < 3 ? 'right' : 'left'));

/**
 * The predicted skeleton (solid: the person's left limbs blue, right limbs orange, head and torso green) over the
 * ground truth (white, dashed) on their image, scaled up to at least 480 pixels tall, with a key strip under the
 * image. Joint coordinates are 1-based pixels of the image (LSP's convention). `image` holds `channels`
 * interleaved values per pixel in 0..255.
 */
export async function poseSkeletonPng(image: { width: number; height: number; channels: number; data: ArrayLike<number> }, predicted: SkeletonJoints, truth: SkeletonJoints): Promise<Uint8Array> {
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
  const sticks = (p: SkeletonJoints, colour: (k: number) => string, width: number, dash: string) =>
    LSP_STICKS.map(([a, b], k) => {
      const [x1, y1] = at(p, a);
      const [x2, y2] = at(p, b);
      return `<line x1="${x1.toFixed(1)}" y1="${y1.toFixed(1)}" x2="${x2.toFixed(1)}" y2="${y2.toFixed(1)}" stroke="${colour(k)}" stroke-width="${width}" stroke-linecap="round"${dash ? ` stroke-dasharray="${dash}"` : ''}/>`;
    }).join('');
  const Hs = H * s;
  const entries: [Parameters<typeof keyEntry>[2], string][] = [
    [{ colour: POSE_COLOURS.left, width: 4 }, 'left limbs'],
    [{ colour: POSE_COLOURS.right, width: 4 }, 'right limbs'],
    [{ colour: TRUTH_COLOUR, width: 2, dash: '6 4' }, 'ground truth'],
  ];
  const Ws = W * s;
  const Wk = keyedWidth(Ws, entries.length);
  const svg =
    `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="${Wk}" height="${Hs + KEY_HEIGHT}">` +
    `<rect x="0" y="0" width="${Wk}" height="${Hs}" fill="#202020"/>` +
    `<image x="0" y="0" width="${Ws}" height="${Hs}" preserveAspectRatio="none" xlink:href="data:image/png;base64,${photo}"/>` +
    sticks(truth, () => TRUTH_COLOUR, 2, '6 4') +
    sticks(predicted, (k) => POSE_COLOURS[STICK_SIDE[k]!], 4, '') +
    keyStrip(Wk, Hs, entries) +
    '</svg>';
  return renderPng(svg, { scale: 1 });
}
