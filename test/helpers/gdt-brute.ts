/**
 * O(n^2) brute-force references for the generalized distance transforms in src/native/gdt.ts. Test and
 * benchmark use only (not exported by the package). Same floating-point expressions as the fast
 * implementations; ties go to the smallest index; all -Infinity gives -Infinity and argmax -1.
 */

/** Brute-force result: values and argmax (q, or the flat index y'*W + x' in 2-D). */
export interface BruteResult {
  values: Float64Array;
  argmax: Int32Array;
}

/** `values[p] = max_q f[q] - a (p-q)^2 - b (p-q)` by trying every q. O(n^2). */
export function bruteForce1d(f: ArrayLike<number>, a: number, b: number): BruteResult {
  const n = f.length;
  const values = new Float64Array(n).fill(-Infinity);
  const argmax = new Int32Array(n).fill(-1);
  for (let p = 0; p < n; p++) {
    let best = -Infinity;
    let arg = -1;
    for (let q = 0; q < n; q++) {
      const fq = f[q]!;
      if (fq === -Infinity) continue;
      const d = p - q;
      const val = fq - a * d * d - b * d;
      if (arg < 0 || val > best) {
        best = val;
        arg = q;
      }
    }
    values[p] = best;
    argmax[p] = arg;
  }
  return { values, argmax };
}

/**
 * `values[y*W+x] = max_{y',x'} f[y'*W+x'] - ax dx^2 - bx dx - ay dy^2 - by dy` (evaluated in this
 * order) by trying every cell. O((H W)^2).
 */
export function bruteForce2d(
  f: ArrayLike<number>,
  height: number,
  width: number,
  ay: number,
  by: number,
  ax: number,
  bx: number,
): BruteResult {
  const n = height * width;
  const values = new Float64Array(n).fill(-Infinity);
  const argmax = new Int32Array(n).fill(-1);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      let best = -Infinity;
      let arg = -1;
      for (let yq = 0; yq < height; yq++) {
        const dy = y - yq;
        for (let xq = 0; xq < width; xq++) {
          const fq = f[yq * width + xq]!;
          if (fq === -Infinity) continue;
          const dx = x - xq;
          const val = fq - ax * dx * dx - bx * dx - ay * dy * dy - by * dy;
          if (arg < 0 || val > best) {
            best = val;
            arg = yq * width + xq;
          }
        }
      }
      values[y * width + x] = best;
      argmax[y * width + x] = arg;
    }
  }
  return { values, argmax };
}
