/**
 * The Hungarian algorithm (Kuhn 1955, Munkres 1957) for the rectangular assignment problem, and the
 * maximum-weight bipartite matching built on it: the max-oracle of word alignment (Taskar,
 * Lacoste-Julien & Klein 2005; Lacoste-Julien et al. 2013, Sec. 6).
 *
 * Assignment: given an n x m cost matrix C with n <= m, find distinct columns sigma(0..n-1) minimising
 * sum_i C[i, sigma(i)]. The shortest-augmenting-path form with dual potentials u (rows) and v (columns)
 * keeps C[i][j] - u[i] - v[j] >= 0 on every edge and = 0 on the assigned ones; each of the n rows is
 * inserted by one Dijkstra-like search over the m columns with reduced costs, so the total work is
 * O(n^2 m) (O(n^3) for square problems). Costs may be any finite numbers (negative included).
 *
 * Matching: "each word aligned to at most one word on the other side, unaligned allowed" is an assignment
 * on the padded matrix [ -S | 0 ] of size rows x (cols + rows): row j either takes a real column k
 * (gain S[j][k]) or one of `rows` null columns (gain 0), so every partial matching is an assignment and
 * vice versa; the optimum is exact whatever the signs of S.
 */
import { InputError } from '../core/errors.js';

/**
 * Reusable solver: keeps its O(n + m) work arrays between calls (the oracle is called many times on
 * problems of similar size). Not re-entrant; use one instance per concurrent caller.
 */
export class Hungarian {
  private u = new Float64Array(0);
  private v = new Float64Array(0);
  private minv = new Float64Array(0);
  private p = new Int32Array(0);
  private way = new Int32Array(0);
  private used = new Uint8Array(0);
  private padded = new Float64Array(0);
  private assignment = new Int32Array(0);

  private ensure(n: number, m: number): void {
    if (this.u.length < n + 1) this.u = new Float64Array(n + 1);
    if (this.v.length < m + 1) {
      this.v = new Float64Array(m + 1);
      this.minv = new Float64Array(m + 1);
      this.p = new Int32Array(m + 1);
      this.way = new Int32Array(m + 1);
      this.used = new Uint8Array(m + 1);
    }
  }

  /**
   * Minimum-cost assignment of the n rows of the row-major n x m matrix `cost` (n <= m) to distinct
   * columns. Writes rowToCol[i] (length >= n) and returns the optimal total cost.
   * Costs are not checked here (see {@link assignmentMinCost}); NaN gives an unspecified assignment.
   */
  solve(cost: ArrayLike<number>, n: number, m: number, rowToCol: Int32Array): number {
    if (n > m) throw new InputError(`Hungarian.solve needs rows <= columns, got ${n} x ${m} (use assignmentMinCost)`);
    if (n === 0) return 0;
    this.ensure(n, m);
    // 1-based potentials; column 0 is the virtual column of the row being inserted.
    const { u, v, minv, p, way, used } = this;
    u.fill(0, 0, n + 1);
    v.fill(0, 0, m + 1);
    p.fill(0, 0, m + 1);
    way.fill(0, 0, m + 1);
    for (let i = 1; i <= n; i++) {
      p[0] = i;
      let j0 = 0;
      minv.fill(Infinity, 0, m + 1);
      used.fill(0, 0, m + 1);
      do {
        used[j0] = 1;
        const i0 = p[j0]!;
        const rowBase = (i0 - 1) * m - 1; // cost[i0-1][j-1] = cost[rowBase + j]
        const ui0 = u[i0]!;
        let delta = Infinity;
        let j1 = -1;
        for (let j = 1; j <= m; j++) {
          if (used[j]) continue;
          const cur = cost[rowBase + j]! - ui0 - v[j]!;
          if (cur < minv[j]!) {
            minv[j] = cur;
            way[j] = j0;
          }
          if (minv[j]! < delta) {
            delta = minv[j]!;
            j1 = j;
          }
        }
        if (j1 < 0) throw new InputError('Hungarian: no augmenting column (non-finite costs?)');
        for (let j = 0; j <= m; j++) {
          if (used[j]) {
            u[p[j]!]! += delta;
            v[j]! -= delta;
          } else {
            minv[j]! -= delta;
          }
        }
        j0 = j1;
      } while (p[j0] !== 0);
      // Augment along the alternating path back to the virtual column.
      do {
        const j1 = way[j0]!;
        p[j0] = p[j1]!;
        j0 = j1;
      } while (j0 !== 0);
    }
    let total = 0;
    for (let j = 1; j <= m; j++) {
      const i = p[j]!;
      if (i !== 0) {
        rowToCol[i - 1] = j - 1;
        total += cost[(i - 1) * m + j - 1]!;
      }
    }
    return total;
  }

  /**
   * Maximum-weight bipartite matching of a rows x cols score matrix (row-major): out[j] = k when row j
   * is matched to column k, -1 when it stays unmatched (a null node, gain 0). Returns the total score.
   * Exact for any finite scores; edges of score <= 0 are never used (an edge of score exactly 0 is left
   * out, which does not change the optimal value). Throws InputError on NaN or infinite scores.
   */
  maxWeightMatching(scores: ArrayLike<number>, rows: number, cols: number, out: Int32Array): number {
    checkShape(scores, rows, cols);
    if (out.length < rows) throw new InputError(`matching output has length ${out.length}, needs ${rows}`);
    out.fill(-1, 0, rows);
    if (rows === 0 || cols === 0) return 0;
    const m = cols + rows;
    if (this.padded.length < rows * m) this.padded = new Float64Array(rows * m);
    const c = this.padded;
    for (let j = 0; j < rows; j++) {
      const base = j * m;
      for (let k = 0; k < cols; k++) {
        const s = scores[j * cols + k]!;
        if (!Number.isFinite(s)) throw new InputError(`matching score (${j}, ${k}) is ${s} (must be finite)`);
        c[base + k] = -s;
      }
      c.fill(0, base + cols, base + m);
    }
    if (this.assignment.length < rows) this.assignment = new Int32Array(rows);
    this.solve(c, rows, m, this.assignment);
    let total = 0;
    for (let j = 0; j < rows; j++) {
      const k = this.assignment[j]!;
      if (k < cols && scores[j * cols + k]! > 0) {
        out[j] = k;
        total += scores[j * cols + k]!;
      }
    }
    return total;
  }
}

function checkShape(a: ArrayLike<number>, n: number, m: number): void {
  if (!(Number.isInteger(n) && n >= 0 && Number.isInteger(m) && m >= 0)) throw new InputError(`matrix shape must be non-negative integers, got ${n} x ${m}`);
  if (a.length !== n * m) throw new InputError(`matrix has ${a.length} entries, expected ${n} x ${m} = ${n * m}`);
}

const shared = new Hungarian();

/**
 * Minimum-cost assignment of an n x m row-major matrix (any n, m): when n <= m every row gets a distinct
 * column; when n > m every column gets a distinct row (and the other rows get -1). Costs must be finite.
 */
export function assignmentMinCost(cost: ArrayLike<number>, n: number, m: number): { rowToCol: Int32Array; cost: number } {
  checkShape(cost, n, m);
  for (let q = 0; q < cost.length; q++) if (!Number.isFinite(cost[q])) throw new InputError(`cost[${q}] is ${cost[q]} (must be finite)`);
  const rowToCol = new Int32Array(n).fill(-1);
  if (n <= m) return { rowToCol, cost: shared.solve(cost, n, m, rowToCol) };
  const t = new Float64Array(n * m);
  for (let i = 0; i < n; i++) for (let j = 0; j < m; j++) t[j * n + i] = cost[i * m + j]!;
  const colToRow = new Int32Array(m);
  const total = shared.solve(t, m, n, colToRow);
  for (let j = 0; j < m; j++) rowToCol[colToRow[j]!] = j;
  return { rowToCol, cost: total };
}

/**
 * Maximum-weight bipartite matching (unmatched allowed, gain 0) of a rows x cols score matrix; see
 * {@link Hungarian.maxWeightMatching}. Returns the row-to-column map (-1 = unmatched) and its score.
 */
export function maxWeightMatching(scores: ArrayLike<number>, rows: number, cols: number): { match: Int32Array; score: number } {
  const match = new Int32Array(rows);
  const score = shared.maxWeightMatching(scores, rows, cols, match);
  return { match, score };
}
