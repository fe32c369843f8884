/**
 * Independent reference for the max-flow tests and benchmark: Dinic's algorithm (BFS level graph,
 * blocking flow by an iterative DFS with current-arc pointers) on an explicit residual graph with
 * the two terminals as ordinary nodes. Written for clarity, not speed; shares no code with
 * native/maxflow.
 */

/** A graph in the shape of `MaxflowGraphSpec` (any numeric arrays). */
export interface RefGraph {
  numNodes: number;
  edgeFrom: ArrayLike<number>;
  edgeTo: ArrayLike<number>;
  capFwd: ArrayLike<number>;
  capRev?: ArrayLike<number> | null;
  sourceCap?: ArrayLike<number> | null;
  sinkCap?: ArrayLike<number> | null;
}

export interface RefResult {
  flow: number;
  /** 0 for nodes reachable from s in the final residual graph, 1 otherwise (as the native solver). */
  segments: Uint8Array;
}

/**
 * Max flow by Dinic. Residuals `<= tol` count as saturated (0 for integer capacities; pass about
 * 1e-9 times the largest capacity for doubles).
 */
export function referenceMaxflow(g: RefGraph, tol = 0): RefResult {
  const n = g.numNodes;
  const s = n;
  const t = n + 1;
  const N = n + 2;
  const m = g.edgeFrom.length;
  const A = 2 * (m + 2 * n);
  const head = new Int32Array(A);
  const nxt = new Int32Array(A);
  const res = new Float64Array(A);
  const first = new Int32Array(N).fill(-1);
  let arcs = 0;
  // Arcs come in pairs (a, a^1): a = u->v with residual cuv, a^1 = v->u with residual cvu.
  const addPair = (u: number, v: number, cuv: number, cvu: number) => {
    head[arcs] = v;
    res[arcs] = cuv;
    nxt[arcs] = first[u]!;
    first[u] = arcs++;
    head[arcs] = u;
    res[arcs] = cvu;
    nxt[arcs] = first[v]!;
    first[v] = arcs++;
  };
  for (let e = 0; e < m; e++) {
    const u = g.edgeFrom[e]!;
    const v = g.edgeTo[e]!;
    if (u !== v) addPair(u, v, g.capFwd[e]!, g.capRev ? g.capRev[e]! : 0);
  }
  for (let i = 0; i < n; i++) {
    const cs = g.sourceCap ? g.sourceCap[i]! : 0;
    const ct = g.sinkCap ? g.sinkCap[i]! : 0;
    if (cs > 0) addPair(s, i, cs, 0);
    if (ct > 0) addPair(i, t, ct, 0);
  }

  const level = new Int32Array(N);
  const cur = new Int32Array(N);
  const queue = new Int32Array(N);
  const path = new Int32Array(N);
  let flow = 0;
  for (;;) {
    // Level graph by BFS from s.
    level.fill(-1);
    level[s] = 0;
    let qh = 0;
    let qt = 0;
    queue[qt++] = s;
    while (qh < qt) {
      const u = queue[qh++]!;
      for (let a = first[u]!; a >= 0; a = nxt[a]!) {
        const v = head[a]!;
        if (res[a]! > tol && level[v]! < 0) {
          level[v] = level[u]! + 1;
          queue[qt++] = v;
        }
      }
    }
    if (level[t]! < 0) break;
    // Blocking flow: advance along admissible arcs, retreat from dead ends, augment at t.
    cur.set(first);
    let depth = 0;
    let u = s;
    for (;;) {
      if (u === t) {
        let f = Infinity;
        for (let k = 0; k < depth; k++) f = Math.min(f, res[path[k]!]!);
        for (let k = 0; k < depth; k++) {
          const a = path[k]!;
          res[a] = res[a]! - f;
          res[a ^ 1] = res[a ^ 1]! + f;
        }
        flow += f;
        depth = 0;
        u = s;
        continue;
      }
      let a = cur[u]!;
      while (a >= 0 && !(res[a]! > tol && level[head[a]!] === level[u]! + 1)) a = nxt[a]!;
      cur[u] = a;
      if (a < 0) {
        level[u] = -1; // dead end for this phase
        if (depth === 0) break;
        depth--;
        u = head[path[depth]! ^ 1]!;
        continue;
      }
      path[depth++] = a;
      u = head[a]!;
    }
  }

  // Source side: reachable from s through residuals > tol.
  const seen = new Uint8Array(N);
  seen[s] = 1;
  let qh = 0;
  let qt = 0;
  queue[qt++] = s;
  while (qh < qt) {
    const u = queue[qh++]!;
    for (let a = first[u]!; a >= 0; a = nxt[a]!) {
      const v = head[a]!;
      if (res[a]! > tol && !seen[v]) {
        seen[v] = 1;
        queue[qt++] = v;
      }
    }
  }
  const segments = new Uint8Array(n);
  for (let i = 0; i < n; i++) segments[i] = seen[i] ? 0 : 1;
  return { flow, segments };
}

/**
 * Capacity of the s-t cut given by `segments` (0 = source side): terminal arcs of nodes on the
 * wrong side plus edge capacities from the source side to the sink side.
 */
export function cutCapacity(g: RefGraph, segments: ArrayLike<number>): number {
  let c = 0;
  for (let i = 0; i < g.numNodes; i++) {
    c += segments[i] === 0 ? (g.sinkCap ? g.sinkCap[i]! : 0) : g.sourceCap ? g.sourceCap[i]! : 0;
  }
  for (let e = 0; e < g.edgeFrom.length; e++) {
    const su = segments[g.edgeFrom[e]!];
    const sv = segments[g.edgeTo[e]!];
    if (su === 0 && sv === 1) c += g.capFwd[e]!;
    if (su === 1 && sv === 0) c += g.capRev ? g.capRev[e]! : 0;
  }
  return c;
}


export type Family = 'sparse' | 'dense' | 'grid' | 'zeros' | 'huge';

/** A random graph of the given family with integer capacities (as Int32Array unless `float`). */
export function randomGraph(
  rnd: () => number,
  family: Family,
  opts: { float?: boolean; maxCap?: number } = {},
): { numNodes: number; edgeFrom: Int32Array; edgeTo: Int32Array; capFwd: Int32Array | Float64Array; capRev: Int32Array | Float64Array; sourceCap: Int32Array | Float64Array; sinkCap: Int32Array | Float64Array } {
  const maxCap = opts.maxCap ?? (family === 'huge' ? 1_000_000_000 : 20);
  const cap = (): number => {
    if (family === 'zeros' && rnd() < 0.5) return 0;
    if (opts.float) return Math.round(rnd() * maxCap * 1000) / 1000;
    return Math.floor(rnd() * (maxCap + 1));
  };
  const int = (k: number) => Math.floor(rnd() * k);
  const from: number[] = [];
  const to: number[] = [];
  let n: number;
  if (family === 'grid') {
    const w = 2 + int(12);
    const h = 2 + int(12);
    n = w * h;
    for (let y = 0; y < h; y++) {
      for (let x = 0; x < w; x++) {
        const i = y * w + x;
        if (x + 1 < w) from.push(i), to.push(i + 1);
        if (y + 1 < h) from.push(i), to.push(i + w);
      }
    }
  } else if (family === 'dense') {
    n = 2 + int(24);
    for (let a = 0; a < n; a++) for (let b = a + 1; b < n; b++) if (rnd() < 0.7) from.push(a), to.push(b);
  } else {
    n = 1 + int(120);
    const m = int(3 * n);
    for (let k = 0; k < m; k++) {
      const u = int(n);
      let v = int(n);
      if (v === u) v = (u + 1) % n;
      if (u !== v) from.push(u), to.push(v); // parallel edges kept
    }
  }
  const m = from.length;
  const C = opts.float ? Float64Array : Int32Array;
  const capFwd = new C(m);
  const capRev = new C(m);
  for (let e = 0; e < m; e++) {
    capFwd[e] = cap();
    capRev[e] = rnd() < 0.3 ? 0 : cap();
  }
  const sourceCap = new C(n);
  const sinkCap = new C(n);
  for (let i = 0; i < n; i++) {
    sourceCap[i] = rnd() < 0.5 ? cap() : 0;
    sinkCap[i] = rnd() < 0.5 ? cap() : 0;
  }
  return { numNodes: n, edgeFrom: Int32Array.from(from), edgeTo: Int32Array.from(to), capFwd, capRev, sourceCap, sinkCap };
}

/**
 * A 4-connected W x H segmentation-like grid: random unaries (source/sink capacities) and
 * pairwise capacities `smooth` (both directions), integers.
 */
export function gridGraph(rnd: () => number, w: number, h: number, smooth: number, unaryScale = 100): {
  numNodes: number; edgeFrom: Int32Array; edgeTo: Int32Array; capFwd: Int32Array; capRev: Int32Array; sourceCap: Int32Array; sinkCap: Int32Array;
} {
  const n = w * h;
  const m = (w - 1) * h + w * (h - 1);
  const edgeFrom = new Int32Array(m);
  const edgeTo = new Int32Array(m);
  let e = 0;
  for (let y = 0; y < h; y++) {
    for (let x = 0; x < w; x++) {
      const i = y * w + x;
      if (x + 1 < w) (edgeFrom[e] = i), (edgeTo[e++] = i + 1);
      if (y + 1 < h) (edgeFrom[e] = i), (edgeTo[e++] = i + w);
    }
  }
  const capFwd = new Int32Array(m).fill(smooth);
  const capRev = new Int32Array(m).fill(smooth);
  const sourceCap = new Int32Array(n);
  const sinkCap = new Int32Array(n);
  for (let i = 0; i < n; i++) {
    const v = rnd();
    sourceCap[i] = Math.round(unaryScale * (v - 0.2) * (v - 0.2));
    sinkCap[i] = Math.round(unaryScale * (v - 0.8) * (v - 0.8));
  }
  return { numNodes: n, edgeFrom, edgeTo, capFwd, capRev, sourceCap, sinkCap };
}
