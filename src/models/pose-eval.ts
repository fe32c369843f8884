/**
 * LSP pose: the 14-joint tree, the stick definitions and the evaluation measures (PCP, PCK, the paper's
 * loss), plus the mean-pose baseline. Joint order as in {@link LSP_JOINTS} (src/data/lsp.ts).
 *
 * @module
 */
import { check } from '../core/errors.js';

/**
 * Parent of each LSP joint; root = neck (12). head top - neck; neck - shoulders; shoulder - elbow -
 * wrist; shoulder - hip (same side) - knee - ankle.
 */
export const LSP_TREE_PARENTS: readonly number[] = [
  1, // R ankle <- R knee
  2, // R knee <- R hip
  8, // R hip <- R shoulder
  9, // L hip <- L shoulder
  3, // L knee <- L hip
  4, // L ankle <- L knee
  7, // R wrist <- R elbow
  8, // R elbow <- R shoulder
  12, // R shoulder <- neck
  12, // L shoulder <- neck
  9, // L elbow <- L shoulder
  10, // L wrist <- L elbow
  -1, // neck (root)
  12, // head top <- neck
];

/** Number of LSP joints (the first nodes of every LSP tree; PCP, PCK and the loss read these). */
export const LSP_JOINT_COUNT = 14;

/**
 * The LSP tree, optionally extended by midway points (the 2016 paper, App. I.4, after Chen & Yuille 2014 and
 * Yang & Ramanan 2013): a node halfway along every arc of {@link LSP_TREE_PARENTS} except head top - neck, which
 * gives 14 + 12 = 26 nodes. Nodes 0..13 are the joints; node 14 + k is the midpoint of `midpoints[k]` = [child
 * joint, parent joint], and sits between them in the tree (the joint's parent is the midpoint, whose parent is
 * the joint's former parent). Its ground truth is the middle of the two joints' annotations.
 */
export function lspTree(midpoints: boolean): { parents: number[]; midpoints: [number, number][] } {
  const parents = [...LSP_TREE_PARENTS];
  const mids: [number, number][] = [];
  if (!midpoints) return { parents, midpoints: mids };
  for (let j = 0; j < LSP_JOINT_COUNT; j++) {
    const q = LSP_TREE_PARENTS[j]!;
    if (q < 0 || j === 13) continue; // the root, and head top - neck
    mids.push([j, q]);
    parents[j] = LSP_JOINT_COUNT + mids.length - 1;
    parents.push(q);
  }
  return { parents, midpoints: mids };
}

/**
 * The 10 sticks of PCP on LSP (joint pairs): lower/upper legs, upper/lower arms, head (neck - head top)
 * and torso (mid-hips - mid-shoulders; endpoint -1 / -2 denote those midpoints).
 */
export const LSP_STICKS: readonly (readonly [number, number])[] = [
  [0, 1], [1, 2], [3, 4], [4, 5], // legs
  [6, 7], [7, 8], [9, 10], [10, 11], // arms
  [12, 13], // head
  [-1, -2], // torso: mid hips (-1) to mid shoulders (-2)
];

/** Joint coordinates of one pose (pixels, any consistent origin). */
export interface PosePoints {
  x: ArrayLike<number>;
  y: ArrayLike<number>;
}

function point(p: PosePoints, j: number): [number, number] {
  if (j === -1) return [(p.x[2]! + p.x[3]!) / 2, (p.y[2]! + p.y[3]!) / 2];
  if (j === -2) return [(p.x[8]! + p.x[9]!) / 2, (p.y[8]! + p.y[9]!) / 2];
  return [p.x[j]!, p.y[j]!];
}

function dist(a: [number, number], b: [number, number]): number {
  return Math.hypot(a[0] - b[0], a[1] - b[1]);
}

/** The loss scale s = |L shoulder (9) - R hip (2)| of a ground-truth pose (at least 1e-6). */
export function poseScale(p: PosePoints): number {
  return Math.max(1e-6, dist(point(p, 9), point(p, 2)));
}

/** Evaluation of predictions against ground truth. */
export interface PoseMetrics {
  /** Strict PCP: a stick is correct when both endpoints lie within `pcpAlpha` x its true length. */
  pcp: number;
  /** PCK: a joint is correct when within `pckAlpha` x s (s = |L shoulder - R hip|). */
  pck: number;
  /** The paper's loss: mean over joints of min(d^2 / s^2, 1). */
  loss: number;
  /** PCP per stick (LSP_STICKS order). */
  pcpPerStick: number[];
}

/** PCP (alpha 0.5), PCK (alpha 0.2 of s) and the PDJ loss over a set of poses. */
export function pcpPck(pred: readonly PosePoints[], truth: readonly PosePoints[], pcpAlpha = 0.5, pckAlpha = 0.2): PoseMetrics {
  check(pred.length === truth.length && pred.length > 0, `need the same positive number of predictions and truths, got ${pred.length} and ${truth.length}`);
  const stickOk = new Array<number>(LSP_STICKS.length).fill(0);
  let jointsOk = 0;
  let loss = 0;
  for (let i = 0; i < pred.length; i++) {
    const p = pred[i]!;
    const t = truth[i]!;
    LSP_STICKS.forEach(([a, b], k) => {
      const len = dist(point(t, a), point(t, b));
      if (dist(point(p, a), point(t, a)) <= pcpAlpha * len && dist(point(p, b), point(t, b)) <= pcpAlpha * len) stickOk[k]!++;
    });
    const s = poseScale(t);
    for (let j = 0; j < 14; j++) {
      const d = dist(point(p, j), point(t, j));
      if (d <= pckAlpha * s) jointsOk++;
      loss += Math.min((d * d) / (s * s), 1) / 14;
    }
  }
  const n = pred.length;
  return {
    pcp: stickOk.reduce((a, b) => a + b, 0) / (n * LSP_STICKS.length),
    pck: jointsOk / (n * 14),
    loss: loss / n,
    pcpPerStick: stickOk.map((c) => c / n),
  };
}

/**
 * Mean-pose baseline: the average of the training joints in coordinates normalised by the image size
 * (x / width, y / height), mapped back onto each test image.
 */
export class MeanPose {
  readonly mx = new Float64Array(14);
  readonly my = new Float64Array(14);

  constructor(poses: readonly PosePoints[], sizes: readonly { width: number; height: number }[]) {
    check(poses.length === sizes.length && poses.length > 0, 'the mean pose needs training poses with their image sizes');
    poses.forEach((p, i) => {
      for (let j = 0; j < 14; j++) {
        this.mx[j]! += p.x[j]! / sizes[i]!.width / poses.length;
        this.my[j]! += p.y[j]! / sizes[i]!.height / poses.length;
      }
    });
  }

  predict(size: { width: number; height: number }): PosePoints {
    return { x: this.mx.map((v) => v * size.width), y: this.my.map((v) => v * size.height) };
  }
}
