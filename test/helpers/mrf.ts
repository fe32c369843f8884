// Random tiny pairwise MRFs and brute-force references for the graph-labelling tests.
import { Rng } from '../../src/core/rng.js';
import type { GraphPotentials } from '../../src/native/graph.js';
import { mrfScore } from '../../src/models/mrf.js';

/** Every labelling of N nodes with K labels, in odometer order (node 0 fastest). */
export function* labellings(N: number, K: number): Generator<Int32Array> {
  const y = new Int32Array(N);
  for (;;) {
    yield y.slice();
    let i = 0;
    while (i < N && ++y[i]! === K) y[i++] = 0;
    if (i === N) return;
  }
}

/** The maximum score and a maximiser by enumeration. */
export function bruteMax(p: GraphPotentials): { score: number; labels: Int32Array } {
  let best = -Infinity;
  let arg = new Int32Array(0);
  for (const y of labellings(p.unary.length / p.numLabels, p.numLabels)) {
    const s = mrfScore(p, y);
    if (s > best) [best, arg] = [s, y];
  }
  return { score: best, labels: arg };
}

/** Edges of a random forest over N nodes (each node i > 0 joins an earlier one with probability `keep`). */
export function randomForest(rng: Rng, N: number, keep = 0.8): [number, number][] {
  const edges: [number, number][] = [];
  for (let i = 1; i < N; i++) if (rng.next() < keep) edges.push(rng.next() < 0.5 ? [rng.int(i), i] : [i, rng.int(i)]);
  return edges;
}

/** Edges of a random connected loopy graph: a random tree plus `extra` other pairs. */
export function randomLoopy(rng: Rng, N: number, extra: number): [number, number][] {
  const edges = randomForest(rng, N, 1);
  const seen = new Set(edges.map(([u, v]) => Math.min(u, v) * N + Math.max(u, v)));
  for (let tries = 0; tries < 100 && extra > 0; tries++) {
    const u = rng.int(N);
    const v = rng.int(N);
    const key = Math.min(u, v) * N + Math.max(u, v);
    if (u === v || seen.has(key)) continue;
    seen.add(key);
    edges.push([u, v]);
    extra--;
  }
  return edges;
}

/** An MRF on the given edges with uniform random unaries in [-1, 1] and per-edge tables from `table(e)`. */
export function mrfOf(rng: Rng, N: number, K: number, edges: [number, number][], table: (e: number) => number[]): GraphPotentials {
  return {
    unary: Float64Array.from({ length: N * K }, () => rng.next() * 2 - 1),
    numLabels: K,
    edgeFrom: Int32Array.from(edges, (e) => e[0]),
    edgeTo: Int32Array.from(edges, (e) => e[1]),
    tables: Float64Array.from(edges.flatMap((_, e) => table(e))),
  };
}

/** A K x K table of uniform random scores in [-scale, scale] (frustrated in general). */
export function randomTable(rng: Rng, K: number, scale = 1): number[] {
  return Array.from({ length: K * K }, () => (rng.next() * 2 - 1) * scale);
}

/** A submodular 2 x 2 table (t00 + t11 >= t01 + t10). */
export function submodularTable(rng: Rng): number[] {
  const t = randomTable(rng, 2);
  const excess = t[0]! + t[3]! - t[1]! - t[2]!;
  if (excess < 0) t[0]! -= excess - rng.next() * 0.1; // raise agreement until submodular
  return t;
}
