import { describe, expect, it } from 'vitest';
import { MulticlassModel, csrRows } from '../src/models/multiclass.js';
import { modelProblem, meanLoss } from '../src/engine/problem.js';
import { InputError } from '../src/core/errors.js';
import { Rng } from '../src/core/rng.js';
import { copySparse, dotSparse, toDense, type SparseVector } from '../src/core/vector.js';
import { bcfw } from '../src/solvers/bcfw.js';
import { fw } from '../src/solvers/fw.js';
import { loadLibsvm } from '../src/data/libsvm.js';
import { dataPath } from '../src/data/paths.js';
import { needsData } from './helpers/skips.js';
import { cli } from './helpers/capture.js';
import { readFileSync } from 'node:fs';
import { root } from './helpers/child.js';
import { join } from 'node:path';

function randomSparse(rng: Rng, F: number): SparseVector {
  const indices: number[] = [];
  const values: number[] = [];
  for (let j = 0; j < F; j++) {
    if (rng.next() < 0.6) {
      indices.push(j);
      values.push(rng.next() * 2 - 1);
    }
  }
  return { indices: Int32Array.from(indices), values: Float64Array.from(values), nnz: indices.length };
}

describe('multiclass (Crammer-Singer) model', () => {
  const rng = new Rng(3);
  const F = 5;
  const K = 4;
  const m = new MulticlassModel(F, K);
  const phi = (x: SparseVector, y: number) => {
    const out = new Float64Array(F * K);
    for (let q = 0; q < x.nnz; q++) out[y * F + x.indices[q]!] = x.values[q]!;
    return out;
  };

  it('oracles maximise over all classes (brute force)', () => {
    for (let t = 0; t < 200; t++) {
      const x = randomSparse(rng, F);
      const yt = rng.int(K);
      const w = Float64Array.from({ length: F * K }, () => rng.next() * 2 - 1);
      const score = (y: number, withLoss: boolean) => (withLoss ? m.loss(yt, y) : 0) + phi(x, y).reduce((s, v, j) => s + v * w[j]!, 0);
      for (const withLoss of [false, true]) {
        const y = withLoss ? m.lossAugmentedDecode(w, x, yt) : m.decode(w, x);
        const best = Math.max(...Array.from({ length: K }, (_, c) => score(c, withLoss)));
        expect(score(y, withLoss)).toBeCloseTo(best, 12);
      }
    }
  });

  it('psi = phi(x, y_i) - phi(x, y)', () => {
    for (let t = 0; t < 50; t++) {
      const x = randomSparse(rng, F);
      const yt = rng.int(K);
      const y = rng.int(K);
      const got = toDense(copySparse(m.psi(x, yt, y)), F * K);
      const a = phi(x, yt);
      const b = phi(x, y);
      expect(Array.from(got)).toEqual(Array.from(a.map((v, j) => v - b[j]!)));
      const w = Float64Array.from({ length: F * K }, () => rng.next());
      expect(dotSparse(w, m.psi(x, yt, y))).toBeCloseTo(a.reduce((s, v, j) => s + (v - b[j]!) * w[j]!, 0), 12);
    }
  });

  it('rejects bad inputs', () => {
    const x = { indices: Int32Array.of(0, 7), values: Float64Array.of(1, 1), nnz: 2 };
    expect(() => modelProblem(m, [x], [0])).toThrow(/feature index 7/);
    expect(() => modelProblem(m, [randomSparse(rng, F)], [K])).toThrow(/label 4/);
    expect(() => modelProblem(m, [{ indices: Int32Array.of(0), values: Float64Array.of(NaN), nnz: 1 }], [0])).toThrow(InputError);
    expect(() => new MulticlassModel(3, 1)).toThrow(/numLabels/);
    expect(() => modelProblem(m, [], [])).toThrow(/empty/);
  });

  it('BCFW and batch FW agree on a small random problem within their certificates', () => {
    const xs = Array.from({ length: 30 }, () => randomSparse(rng, F));
    const ys = xs.map(() => rng.int(K));
    const p = modelProblem(m, xs, ys);
    const a = bcfw(p, { lambda: 0.05, gapThreshold: 1e-4, maxPasses: 100000 });
    const b = fw(p, { lambda: 0.05, gapThreshold: 1e-4, maxPasses: 100000 });
    expect(a.stopReason).toBe('gap');
    expect(b.stopReason).toBe('gap');
    expect(Math.abs(a.primal! - b.primal!)).toBeLessThanOrEqual(a.gap! + b.gap!);
  });
});

describe('multiclass on real data', needsData('multiclass', 'dna', 'dna.scale'), () => {
  it('dna: BCFW reaches a certified gap and a test accuracy above 0.9', () => {
    const train = loadLibsvm(dataPath('multiclass', 'dna', 'dna.scale'));
    const test = loadLibsvm(dataPath('multiclass', 'dna', 'dna.scale.t'), { numFeatures: train.X.cols, labelNames: train.labelNames });
    const m = new MulticlassModel(train.X.cols, train.numLabels);
    const p = modelProblem(m, csrRows(train.X), Array.from(train.y));
    const r = bcfw(p, { lambda: 1e-2, gapThreshold: 0.01, maxPasses: 200 });
    expect(r.stopReason).toBe('gap');
    const err = meanLoss(m, r.w, csrRows(test.X), Array.from(test.y));
    expect(1 - err).toBeGreaterThan(0.9);
  });
});

describe('the table of docs/models/multiclass.md', needsData(['multiclass', 'dna', 'dna.scale'], ['multiclass', 'pendigits', 'pendigits.scale']), () => {
  // Its rows: | data (command) | n / features / classes | lambda | solver | passes | exact gap | test accuracy | seconds |
  const rows = readFileSync(join(root, 'docs/models/multiclass.md'), 'utf8').split('\n').filter((l) => /^\| (dna|pendigits) \(/.test(l)).map((l) => l.split('|').map((c) => c.trim()));
  const data = (set: string, file: string) => `libsvm:${dataPath('multiclass', set, file)}`;
  const commands: Record<string, string[]> = {
    dna: ['train', data('dna', 'dna.scale'), '--test', data('dna', 'dna.scale.t'), '--lambda', '0.01', '--json', '--quiet'],
    pendigits: ['train', data('pendigits', 'pendigits.scale'), '--test', data('pendigits', 'pendigits.scale.t'), '--lambda', '1e-3', '--json', '--quiet'],
  };

  it('lists the default and BCFW on dna and pendigits, with the commands it names', () => {
    expect(rows.map((r) => r[1]!.split(' ')[0])).toEqual(['dna', 'dna', 'pendigits', 'pendigits']);
    expect(rows[0]![1]).toContain('`train libsvm:dna.scale --test libsvm:dna.scale.t --lambda 0.01 --json`');
    expect(rows[2]![1]).toContain('`... pendigits.scale --test ... --lambda 1e-3 --json`');
    expect(rows[1]![1]).toContain('--solver bcfw');
  });

  it.each([0, 1, 2, 3])('row %i: the command gives the passes, exact gap and test accuracy the page states', async (k) => {
    const row = rows[k]!;
    const set = row[1]!.split(' ')[0]!;
    const r = await cli(...commands[set]!, ...(row[4] === 'BCFW' ? ['--solver', 'bcfw'] : []));
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject(row[4] === 'BCFW' ? { solver: 'bcfw', sampling: 'uniform' } : { solver: 'exact', sampling: 'perm', shrinking: true });
    expect(String(r.json!.passes)).toBe(row[5]);
    expect((r.json!.gap as number).toFixed(3)).toBe(row[6]);
    expect((1 - (r.json!.testError as number)).toFixed(3)).toBe(row[7]);
  }, 60_000);
});
