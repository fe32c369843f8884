/**
 * Part types of the mixtures-of-parts pose model (Yang & Ramanan, TPAMI 2013, Sec. 5: "we cluster the relative
 * locations of a part with respect to its parent"; Chen & Yuille 2014 and the 2016 paper, App. I.4, do the same):
 * K-means of every part's displacement from its parent over the training poses. The rounded centroids are the
 * types' anchors (the rest displacements of their springs); a pose's type of a part is its nearest anchor.
 *
 * @module
 */
import { check } from '../core/errors.js';
import { Rng } from '../core/rng.js';
import type { CellOffset, PoseLabel } from './pose.js';

/** Lloyd iterations at most (k-means stops earlier when no assignment changes). */
const MAX_ITERATIONS = 100;

/**
 * K-means of 2-D points: k-means++ seeding from `rng`, then Lloyd iterations until no assignment changes.
 * Ties go to the smaller centre. Returns the centres (k of them, or fewer when the points have fewer distinct
 * values).
 */
export function kmeans2d(points: readonly CellOffset[], k: number, rng: Rng): CellOffset[] {
  check(points.length >= 1, 'k-means needs at least one point');
  check(Number.isInteger(k) && k >= 1, `k must be a positive integer, got ${k}`);
  const distinct = new Set(points.map((p) => `${p.dx},${p.dy}`)).size;
  const K = Math.min(k, distinct);
  const d2 = (a: CellOffset, b: CellOffset) => (a.dx - b.dx) ** 2 + (a.dy - b.dy) ** 2;
  const nearest = (p: CellOffset, centres: readonly CellOffset[]) => {
    let best = 0;
    for (let c = 1; c < centres.length; c++) if (d2(p, centres[c]!) < d2(p, centres[best]!)) best = c;
    return best;
  };
  // k-means++: the first centre uniformly, each next one with probability proportional to the squared
  // distance to the nearest centre so far (never a point already chosen: its weight is 0).
  const centres: CellOffset[] = [{ ...points[rng.int(points.length)]! }];
  while (centres.length < K) {
    const weights = points.map((p) => d2(p, centres[nearest(p, centres)]!));
    let u = rng.next() * weights.reduce((a, b) => a + b, 0);
    let pick = weights.findIndex((v) => v > 0 && (u -= v) < 0);
    for (let i = weights.length - 1; pick < 0; i--) if (weights[i]! > 0) pick = i; // rounding left u >= 0 at the end
    centres.push({ ...points[pick]! });
  }
  let assignment = points.map((p) => nearest(p, centres));
  for (let it = 0; it < MAX_ITERATIONS; it++) {
    for (let c = 0; c < K; c++) {
      let sx = 0;
      let sy = 0;
      let m = 0;
      assignment.forEach((a, i) => {
        if (a !== c) return;
        sx += points[i]!.dx;
        sy += points[i]!.dy;
        m++;
      });
      if (m > 0) centres[c] = { dx: sx / m, dy: sy / m }; // an emptied centre stays where it was
    }
    const next = points.map((p) => nearest(p, centres));
    const changed = next.some((a, i) => a !== assignment[i]);
    assignment = next;
    if (!changed) break;
  }
  return centres;
}

/** The displacement of part p from its parent in a pose (cells of the pose's level). */
function displacement(y: PoseLabel, p: number, q: number): CellOffset {
  return { dx: y.x[p]! - y.x[q]!, dy: y.y[p]! - y.y[q]! };
}

/**
 * The types of a tree's parts from training poses: per part the anchors of its types, the rounded k-means
 * centres of its displacements from its parent (in the order k-means found them, duplicates after rounding
 * dropped; at most `k`), and one zero anchor for the root. Deterministic for a seed.
 */
export function poseTypeAnchors(labels: readonly PoseLabel[], parents: readonly number[], k: number, seed = 1): CellOffset[][] {
  check(labels.length >= 1, 'part types need at least one training pose');
  const rng = new Rng(seed);
  return parents.map((q, p) => {
    if (q < 0) return [{ dx: 0, dy: 0 }];
    const anchors: CellOffset[] = [];
    for (const c of kmeans2d(labels.map((y) => displacement(y, p, q)), k, rng)) {
      const a = { dx: Math.round(c.dx), dy: Math.round(c.dy) };
      if (!anchors.some((b) => b.dx === a.dx && b.dy === a.dy)) anchors.push(a);
    }
    return anchors;
  });
}

/** The type of every part of a pose: the nearest anchor to its displacement from its parent (ties to the smaller type; 0 at the root). */
export function assignPoseTypes(y: PoseLabel, parents: readonly number[], anchors: readonly (readonly CellOffset[])[]): Int32Array {
  return Int32Array.from(parents, (q, p) => {
    if (q < 0) return 0;
    const d = displacement(y, p, q);
    let best = 0;
    let bestD2 = Infinity;
    anchors[p]!.forEach((a, t) => {
      const d2 = (d.dx - a.dx) ** 2 + (d.dy - a.dy) ** 2;
      if (d2 < bestD2) {
        best = t;
        bestD2 = d2;
      }
    });
    return best;
  });
}
